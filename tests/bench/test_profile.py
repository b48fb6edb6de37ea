"""bench/profile.py's arithmetic on made-up profiles and websocket timestamps.

No timing here: the profiler's figures never decide whether the suite passes.
"""

from __future__ import annotations

import pytest

from bench import profile as P


def _profile() -> dict:
    def node(i: int, url: str, fn: str) -> dict:
        return {"id": i, "callFrame": {"url": url, "functionName": fn}}

    return {
        "nodes": [
            node(1, "", "(root)"),
            node(2, "http://127.0.0.1:8501/static/js/PlotlyChart.abc.js", "draw"),
            node(3, "", "(idle)"),
            node(4, "", "(program)"),
            node(5, "http://127.0.0.1:8501/static/js/PlotlyChart.abc.js", "other"),
        ],
        # a sample's delta is the time since the previous sample; the first one is the gap
        # before profiling started and belongs to nobody
        "samples": [1, 2, 3, 2, 4, 5],
        "timeDeltas": [99_000, 1_000, 2_000, 3_000, 500, 250],
    }


def test_self_time_per_script_file_and_chromium_label():
    scripts = P.by_script(_profile())
    assert scripts == {"PlotlyChart.abc.js": 4.25, "(idle)": 2.0, "(program)": 0.5}
    assert list(scripts) == ["PlotlyChart.abc.js", "(idle)", "(program)"]  # largest first


def test_busy_time_leaves_out_idle_and_the_gap_before_profiling():
    assert P.busy_ms(P.by_script(_profile())) == pytest.approx(4.75)


def test_rerun_split_at_the_websocket():
    # the page's clock, ms: input at 1000; the browser's message leaves at 1010 (one before
    # the input is an older message and is ignored); the run's last message is handled at
    # 1090 and the last DOM change is at 1200
    split = P.split_rerun(1000.0, 1200.0, sent=[990.0, 1010.0, 1050.0], received=[1020.0, 1090.0])
    assert split["lead_s"] == pytest.approx(0.01)
    assert split["server_s"] == pytest.approx(0.08)
    assert split["browser_s"] == pytest.approx(0.11)
    assert P.split_rerun(1000.0, 1200.0, sent=[990.0], received=[1020.0]) is None
    assert P.split_rerun(1000.0, 1200.0, sent=[1010.0], received=[]) is None


def test_summary_takes_medians_and_the_biggest_scripts():
    first = [
        {"done_s": d, "busy_ms": b, "scripts": {"(idle)": 900.0, "a.js": b / 2, "(program)": b / 4}}
        for d, b in ((1.0, 800.0), (1.4, 1000.0), (1.2, 900.0))
    ]
    again = [
        {
            "done_s": 0.1,
            "messages": 7,
            "control": "slider[0] shift",
            "server_s": 0.04,
            "browser_s": 0.05,
            "lead_s": 0.01,
        },
        {"done_s": 0.3, "messages": 9, "control": "slider[0] shift"},  # no split: not counted
        {
            "done_s": 0.2,
            "messages": 8,
            "control": "slider[0] shift",
            "server_s": 0.06,
            "browser_s": 0.1,
            "lead_s": 0.03,
        },
    ]
    s = P.summary(first, again)
    assert s["first_done_s"] == 1.2 and s["first_busy_ms"] == 900.0
    assert s["first_busy_by_script_ms"] == {"a.js": 450.0, "(program)": 225.0}  # no idle
    assert s["rerun_done_s"] == 0.2 and s["rerun_messages"] == 8
    assert s["rerun_server_s"] == 0.05 and s["rerun_browser_s"] == 0.075
    assert s["rerun_lead_s"] == 0.02 and s["control"] == "slider[0] shift"
    assert P.summary(first, [])["rerun_done_s"] is None
