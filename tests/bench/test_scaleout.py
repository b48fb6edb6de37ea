"""The class bench through nginx (``bench/scaleout.py``, ``python -m bench class N
--replicas 1,2`` and ``--abuser``): its logic on a tiny class, no timing asserted.

One test on one cluster (xdist may not split it): two ``streamlit run app.py`` replicas on
loopback behind nginx from ``deploy/nginx/`` verbatim, a class of 2 students from
127.0.0.2 (one school NAT address) and a few seconds of an abusive client from 127.0.0.3
(a process of its own). Checked from nginx's access log, server-side: the per-replica session
counts, the clients' source addresses, stickiness, and that the abuser is refused (429)
while the class is not. The app's full warm-up (30-120 s here) is not waited for: the bench
waits for it, the test checks only that every replica served the teacher's page directly.

Without nginx or its brotli modules the test skips with a message; with ``CI`` set that is a
failure. Every process is stopped by ``bench.procs.cluster``; the logs are copied to
tests/artifacts/scaleout_bench_*.log.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from bench import procs
from bench import scaleout as S
from bench.classroom import ClassPlan, Student
from bench.schema import validate_abuse, validate_class, validate_scaleout
from tests.conftest import ROOT, in_fresh_thread, need

PORT = 8690  # this module's ports: 8690 (nginx), 8691-8692 (replicas)
PAGE = ("", "lang=en")  # the home page: the cheapest page, the harness is what is tested
ARTIFACTS = ROOT / "tests" / "artifacts"
OTHER_ADDR = "127.0.0.9"


def _require_cluster() -> None:
    lacks = procs.missing_nginx()
    need("; ".join(lacks), not lacks, "the scale-out bench test needs it")


def run(coro, limit: float = 240):
    return in_fresh_thread(asyncio.run)(asyncio.wait_for(coro, limit))  # a test never hangs


def test_the_log_is_counted_per_replica_and_per_address():
    a, b = "127.0.0.1:1", "127.0.0.1:2"

    def e(addr, route, up, request="GET /_stcore/stream HTTP/1.1", status=101):
        return {"addr": addr, "route": route, "upstream": up, "request": request, "status": status}

    log = [
        e(S.CLASS_ADDR, "r1", a, "GET /?lang=en HTTP/1.1", 200),
        e(S.CLASS_ADDR, "r1", a),
        e(S.CLASS_ADDR, "r2", b),
        e(S.CLASS_ADDR, "r3", f"{a}, {b}"),  # a retried request: served by the last one
        e(S.CLASS_ADDR, "teacher", a),
        e(S.CLASS_ADDR, "r2", a, "GET /_stcore/health HTTP/1.1", 200),  # r2 moved
        e(S.ABUSER_ADDR, "x1", a),
        e(S.ABUSER_ADDR, "x2", "", status=429),
        e(S.CLASS_ADDR, "r4", a, "GET /_stcore/stream?x HTTP/1.1", 429),
    ]
    got = S.sessions_by_replica(log, S.CLASS_ADDR, [a, b], skip_routes=["teacher"])
    assert got == {"sessions": {a: 1, b: 2}, "routes": 4, "routes_on_two_replicas": 1}
    assert S.sessions_by_replica(log, S.ABUSER_ADDR, [a, b])["sessions"] == {a: 1, b: 0}
    assert S.statuses(log, S.ABUSER_ADDR, sessions_only=True) == {"101": 1, "429": 1}
    assert S.statuses(log, S.CLASS_ADDR) == {"101": 4, "200": 2, "429": 1}
    assert S.addresses(log) == {S.CLASS_ADDR: 7, S.ABUSER_ADDR: 2}
    r = S.ratio_of(
        {"arrive_s": {"p50": 2, "p95": 6, "max": 8}, "click_s": {"p95": 1.0}, "cpu_s": 10},
        {"arrive_s": {"p50": 1, "p95": 3, "max": None}, "click_s": {"p95": 0.5}, "cpu_s": 5},
    )
    assert (r["arrive_p50"], r["arrive_p95"], r["arrive_max"]) == (2.0, 2.0, None)
    assert (r["click_p95"], r["click_p50"], r["cpu_s"]) == (2.0, None, 2.0)


def test_the_result_checks_can_fail():
    good_class = {
        "arrive_s": {"p50": 1, "p95": 2, "max": 3},
        "click_s": {"p50": 1, "p95": 2, "max": 3},
        "errors": 0,
        "sessions": 2,
        "rss_mb": 400,
        "cpu_s": 10,
        "replicas": {"127.0.0.1:1": {"sessions": 2, "cpu_s": 10, "rss_peak_mb": 400}},
    }
    ratios = dict.fromkeys(
        ("arrive_p50", "arrive_p95", "arrive_max", "click_p50", "click_p95", "click_max"), 1.0
    )
    good = {
        "replicas": {"1": {"class": {"2": good_class}}, "2": {"class": {"2": good_class}}},
        "replica_ratio": {"2": ratios},
        "errors": [],
    }
    assert validate_scaleout(good, [2], [1, 2]) == []
    bad = dict(good, replica_ratio={"2": dict(ratios, click_p95=None)})
    assert validate_scaleout(bad, [2], [1, 2]) == [
        "replica_ratio.2.click_p95 is missing and no error says why"
    ]
    abuser = {k: 1 for k in ("attempts", "opened", "closed", "timed_out", "reruns_ok")}
    entry = {"without": good_class, "with": good_class, "with_over_without": ratios}
    ok = {"abuse": {"2": dict(entry, abuser=dict(abuser, reruns_failed=0, refused={"429": 3}))}}
    assert validate_abuse(ok, [2]) == []
    broken = {"abuse": {"2": dict(entry, abuser=dict(abuser, refused={"429": 3}))}}
    assert validate_abuse(broken, [2]) == [
        "abuse.2.abuser.reruns_failed should be a whole number >= 0"
    ]


@pytest.mark.long
@pytest.mark.timeout(400)  # ~40 s on an idle 2-core machine; generous when it is busy
@in_fresh_thread
def test_a_tiny_class_and_an_abuser_through_two_replicas():
    _require_cluster()
    with procs.cluster(2, PORT, keep_logs=ARTIFACTS, label="scaleout_bench") as cl:
        ups = [s.upstream for s in cl.replicas]

        # every replica serves the teacher's page once, on its own port (not through nginx)
        mark = cl.log_mark()
        warm, errors = run(S.warm_replicas(cl, PAGE, 180, wait=False))
        assert not errors, errors
        assert set(warm) == set(ups)
        assert all(w["first_render_s"] is not None for w in warm.values()), warm
        assert cl.access_log(mark) == [], "the warm-up went to the replicas directly"

        # the source address a client binds is the one nginx sees (HTTP and websocket);
        # an unbound client is 127.0.0.1: the address comes from the binding
        async def other_client():
            s = Student(cl.base, timeout=60, source_address=OTHER_ADDR)
            assert s.http.get(cl.base + "/_stcore/health", timeout=30).status_code == 200
            await s._connect()
            await s.close()
            s.close_http()
            plain = Student(cl.base, timeout=60)
            assert plain.http.get(cl.base + "/_stcore/health", timeout=30).status_code == 200
            plain.close_http()

        mark = cl.log_mark()
        run(other_client())
        for _ in range(50):  # nginx logs the websocket as it closes
            seen = cl.access_log(mark)
            if len(seen) >= 3:
                break
            run(asyncio.sleep(0.1))
        assert S.statuses(seen, OTHER_ADDR) == {"101": 1, "200": 1}, seen
        assert S.statuses(seen, "127.0.0.1") == {"200": 1}, seen

        # a class of 2 with a few seconds of an abuser
        mark = cl.log_mark()
        # bounded: 200 attempts, 30 s (about 125 get in, then 429; the class is shorter)
        abuse = S.Abuse(attempts=200, open_seconds=30, seconds=40, rerun_sessions=1, timeout=30)
        plan = ClassPlan([2], PAGE, "page", 0.5, 3.0, (0.5, 1.0), timeout=60)
        log = ARTIFACTS / "scaleout_bench_abuser.log"
        figs, errors = run(S.measure_class(cl, 2, plan, abuse, log))
        entries = cl.access_log(mark)
    assert not errors, errors

    # the shape of `python -m bench class`, plus per-replica figures
    assert validate_class({"class": {"2": figs}}, [2]) == []
    assert figs["arrived"] == 2 and figs["clicks_ok"] >= 2, figs
    assert set(figs["replicas"]) == set(ups)
    for r in figs["replicas"].values():
        assert r["cpu_s"] is not None and r["rss_peak_mb"] > 0
    assert figs["clients"]["cpu_s"] is not None and figs["machine"]["cores"] == os.cpu_count()

    # sessions per replica, from nginx's log: the 2 students (the teacher is counted apart),
    # each on one replica; the log holds exactly them and the teacher's from that address
    assert sum(r["sessions"] for r in figs["replicas"].values()) == 2, figs["replicas"]
    class_ws = [e for e in entries if e["addr"] == S.CLASS_ADDR and S._is_session(e)]
    assert [e["status"] for e in class_ws] == [101, 101, 101], class_ws
    teacher = [e for e in class_ws if S._served_by(e) in figs["teacher_replica"]]
    assert len(figs["teacher_replica"]) == 1 and teacher
    assert figs["stickiness"] == {"routes": 2, "routes_on_two_replicas": 0}

    # every request came from the two chosen addresses: the class's and the abuser's
    assert set(S.addresses(entries)) == {S.CLASS_ADDR, S.ABUSER_ADDR}, S.addresses(entries)

    # the abuser was refused with 429 after its burst; the class never was
    ab = figs["abuser"]
    assert ab["opened"] >= 1 and ab["refused"].get("429", 0) >= 1, ab
    assert ab["reruns_ok"] >= 1, ab
    assert (
        ab["attempts"]
        == ab["opened"] + sum(ab["refused"].values()) + ab["closed"] + ab["timed_out"]
    )
    assert ab["nginx_statuses"].get("429") == ab["refused"]["429"], ab
    assert ab["nginx_statuses"].get("101") == ab["opened"], ab
    assert "429" not in figs["nginx"]["class_statuses"], figs["nginx"]["class_statuses"]
    assert "503" not in figs["nginx"]["class_statuses"]
