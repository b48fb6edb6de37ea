"""The class simulator's logic (bench/classroom.py) against a tiny real Streamlit server.

The app below is written by the test: two pages behind ``st.navigation``, a slider, a
button, a segmented control, a fragment, a page link, a view chosen by the query string,
a page that raises and a page that is slow. Every assertion is on what the server sent
(texts, widgets, pages) or on the figures' shape: no timing is asserted.
"""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from bench import classroom as C
from bench import procs
from bench.schema import validate_class
from tests.conftest import in_fresh_thread

MAIN = """
import streamlit as st
pg = st.navigation(
    [st.Page("one.py", title="One", default=True), st.Page("two.py", title="Two", url_path="two")],
    position="hidden",
)
pg.run()
"""
ONE = """
import time
import streamlit as st
view = st.query_params.get("view", "a")
st.title(f"view {view}")
if view == "boom":
    raise ValueError("boom on purpose")
if view == "slow":
    time.sleep(6)
n = st.slider("n", 0, 10, 3, key="t_n")
st.markdown(f"n is {n}")
if st.button("Press", key="t_press"):
    st.markdown("pressed!")
pick = st.segmented_control("pick", ["red", "blue"], default="red", key="t_pick")
st.markdown(f"picked {pick}")
@st.fragment
def part():
    k = st.slider("k", 0, 5, 1, key="t_k")
    st.markdown(f"k is {k}")
part()
st.page_link("two.py", label="next two", query_params={"view": "b"})
"""
TWO = """
import streamlit as st
st.title(f"two {st.query_params.get('view', '-')}")
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny_app")
    for name, text in (("app.py", MAIN), ("one.py", ONE), ("two.py", TWO)):
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    srv = procs.start_server(str(root / "app.py"), root, root / "server.log")
    yield srv
    procs.stop_server(srv)


def run(coro):
    return in_fresh_thread(asyncio.run)(asyncio.wait_for(coro, 90))  # a test never hangs either


async def _arrived(base: str, query: str = "view=a", timeout: float = 30.0) -> C.Student:
    s = C.Student(base, timeout=timeout)
    a = await s.arrive("", query)
    assert a.ok, a.error
    return s


def test_a_student_arrives_like_a_browser(server):
    async def go():
        async with C.Student(server.base, timeout=30) as s:
            a = await s.arrive("home", "view=a")
            return a, s.texts(), s.cookies, s.page, sorted(s.pages), s.connected

    a, texts, cookies, page, pages, connected = run(go())
    assert a.ok and a.error is None and a.kind == "arrive"
    assert a.seconds is not None and set(a.phases) == {"http", "connect", "run"}
    assert "view a" in texts and "n is 3" in texts and "picked red" in texts
    assert C.XSRF_COOKIE in cookies  # set by /_stcore/health, sent with the websocket
    assert page == "" and pages == ["", "two"]
    assert connected


def test_a_widget_click_changes_what_the_server_sends(server):
    async def go():
        s = await _arrived(server.base)
        try:
            out = {"set": await s.set("t_n", 7), "after_set": s.texts()}
            out["press"] = await s.press("t_press")
            out["pressed"] = [t for el in s.received for t in C._texts(el)]
            out["again"] = await s.set("t_n", 8)
            out["after_again"] = s.texts()
            out["pick"] = await s.set("t_pick", "blue")
            out["after_pick"] = s.texts()
            out["frag"] = await s.set("t_k", 4)
            out["frag_received"] = [t for el in s.received for t in C._texts(el)]
            out["after_frag"] = s.texts()
            return out
        finally:
            await s.close()

    out = run(go())
    for name in ("set", "press", "again", "pick", "frag"):
        assert out[name].ok, (name, out[name].error)
    assert "n is 7" in out["after_set"] and "n is 3" not in out["after_set"]
    assert "pressed!" in out["pressed"]  # the button's trigger reached the script
    assert "pressed!" not in out["after_again"] and "n is 8" in out["after_again"]
    assert "picked blue" in out["after_pick"]
    # the fragment reran alone: its own text came back, the page title did not
    assert "k is 4" in out["frag_received"] and "view a" not in out["frag_received"]
    assert "k is 4" in out["after_frag"] and "view a" in out["after_frag"]


def test_a_link_click_reaches_the_other_view(server):
    async def go():
        s = await _arrived(server.base)
        try:
            views = []
            for act in (
                s.click("view=b"),  # same page, another query string
                s.open_link(next(x for x in s.page_links() if x.label == "next two")),
                s.click("view=c", page="home"),  # a link back to the default page
            ):
                a = await act
                views.append((a.ok, a.error, a.page, a.query, s.texts()[0]))
            return views
        finally:
            await s.close()

    views = run(go())
    assert views[0] == (True, None, "", "view=b", "view b")
    assert views[1] == (True, None, "two", "view=b", "two b")
    assert views[2] == (True, None, "", "view=c", "view c")


def test_errors_are_counted_not_raised(server):
    async def go():
        s = await _arrived(server.base)
        try:
            missing = await s.set("no_such_key", 1)
            bad_option = await s.set("t_pick", "green")
            not_button = await s.press("t_n")
            no_page = await s.click("view=a", page="nowhere")
            boom = await s.click("view=boom")  # the page raises; the script still "finishes"
            return boom, missing, bad_option, not_button, no_page
        finally:
            await s.close()

    boom, missing, bad_option, not_button, no_page = run(go())
    assert not boom.ok and boom.seconds is not None and "boom on purpose" in boom.error
    assert not missing.ok and "no widget with key 'no_such_key'" in missing.error
    assert not bad_option.ok and "green" in bad_option.error
    assert not not_button.ok and "not a button" in not_button.error
    assert not no_page.ok and "nowhere" in no_page.error


def test_an_unknown_page_is_an_error(server):
    async def go():
        async with C.Student(server.base, timeout=30) as s:
            return await s.arrive("missing_page", "view=a")

    a = run(go())
    assert not a.ok and "page not found" in a.error


def test_a_slow_run_times_out_and_a_dead_server_is_reported(tmp_path):
    for name, text in (("app.py", MAIN), ("one.py", ONE), ("two.py", TWO)):
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    srv = procs.start_server(str(tmp_path / "app.py"), tmp_path, tmp_path / "server.log")
    try:

        async def go():
            s = await _arrived(srv.base)
            s.timeout = 2.0  # each later action gets 2 s
            try:
                slow = await s.click("view=slow")  # sleeps 6 s: longer than the timeout
                procs.stop_server(srv)
                await asyncio.sleep(0.5)
                dead = await s.set("t_n", 5)
                again = await s.arrive("", "view=a")  # nothing listens any more
                return slow, dead, again
            finally:
                await s.close()

        slow, dead, again = run(go())
    finally:
        if srv.proc.poll() is None:
            procs.stop_server(srv)
    assert not slow.ok and slow.seconds is None and "no script_finished within 2 s" in slow.error
    assert not dead.ok and dead.seconds is None and "disconnected" in dead.error
    assert not again.ok and again.error.startswith("load ")


def test_a_small_class_reports_the_class_shape(server):
    plan = C.ClassPlan([3], ("", "view=a"), "page", 1.0, 3.0, (0.5, 1.0), seed=1, timeout=30)
    result = run(C.run_class(server.base, 3, plan, server.pid))
    assert {"arrive_s", "click_s", "errors", "sessions", "rss_mb", "cpu_s"} <= set(result)
    assert set(result["arrive_s"]) == set(result["click_s"]) == {"p50", "p95", "max"}
    assert result["errors"] == 0, result["error_samples"]
    assert result["sessions"] == 3 and result["arrived"] == 3
    assert result["clicks"] >= 3 and result["clicks_ok"] == result["clicks"]
    assert result["rss_mb"] > 0 and result["cpu_s"] >= 0
    assert result["arrive_s"]["p50"] <= result["arrive_s"]["p95"] <= result["arrive_s"]["max"]
    assert validate_class({"class": {"3": result}, "errors": []}, [3]) == []


def test_realistic_clicks_use_the_page_controls_only(server):
    async def go():
        s = await _arrived(server.base)
        try:
            rng = C.random.Random(3)
            return [C.choose_click(s, rng) for _ in range(40)]
        finally:
            await s.close()

    choices = run(go())
    keys = {c[1] if c[0] == "press" else c[1][0] for c in choices if c[0] != "link"}
    assert keys <= {"t_n", "t_press", "t_pick", "t_k"} and len(keys) >= 3
    for how, what in choices:
        if how == "set" and what[0] == "t_pick":
            assert what[1] == "blue"  # another option than the current one
        if how == "set" and what[0] == "t_n":
            assert what[1] in (2, 4)  # one notch, like an arrow key


def test_the_walk_is_the_deck():
    from ui.nav import deck

    stops = C.walk_stops("zh")
    assert len(stops) == len(deck()) and stops[0] == ("", "lang=zh&present=0")
    assert all(q.startswith("lang=zh&present=0") for _, q in stops)
    assert ("attention", "lang=zh&present=0&part=align") in stops


def test_summary_and_widget_keys():
    assert C.summary_s([]) == {"p50": None, "p95": None, "max": None}
    assert C.summary_s([1.0, 2.0, 3.0]) == {"p50": 2.0, "p95": 2.9, "max": 3.0}
    assert C.widget_key("$$ID-0123abcd-attention_step") == "attention_step"
    assert C.widget_key("$$ID-0123abcd-my-key") == "my-key"
