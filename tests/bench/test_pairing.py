"""The pages bench's pairing: with ``--pair-tab fresh`` a page's reruns alternate with a bare
tab opened beside the page's own new tab (its first render is the bare first render), with
``warm`` with the one bare tab of the run. A fake browser records which tab does what."""

from __future__ import annotations

import contextlib
import itertools

import pytest

from bench import browser as B
from bench import pages
from bench.schema import PAIRING, markdown_table


class FakeBrowser:
    def __init__(self) -> None:
        self.ids = itertools.count(1)
        self.events: list[tuple] = []  # (what, tab id, ...)

    @contextlib.contextmanager
    def tab(self, browser, errors=None):
        n = next(self.ids)
        self.events.append(("open", n))
        yield n
        self.events.append(("close", n))

    def render(self, tab, url, *a, **k) -> float:
        self.events.append(("render", tab, url))
        return 1.0 + tab / 100  # tells which tab rendered

    def rerun(self, tab, control, timeout_s=60.0) -> float:
        self.events.append(("rerun", tab))
        return 0.1 + tab / 1000

    def list_controls(self, tab):
        return [B.Control("slider", 0)]

    def pick_control(self, tab, prefer=None):
        return B.Control("slider", 0)


@pytest.fixture
def fake(monkeypatch) -> FakeBrowser:
    f = FakeBrowser()
    for name in ("tab", "render", "rerun", "list_controls", "pick_control"):
        monkeypatch.setattr(B, name, getattr(f, name))
    return f


@pytest.mark.parametrize("fresh", [True, False])
def test_a_pages_reruns_alternate_with_the_chosen_bare_tab(fake, fresh):
    warm = pages.Paired(tab=99, control=B.Control("slider", 0), url="http://bare/", fresh=fresh)
    out = pages.measure_interactive(object(), "http://app/x", 3, [], paired=warm)
    reruns = [e[1] for e in fake.events if e[0] == "rerun"]
    page_tab = 1  # the first tab opened
    bare_tab = 2 if fresh else 99
    assert reruns == [page_tab, bare_tab] * 3
    renders = [(e[1], e[2]) for e in fake.events if e[0] == "render"]
    assert renders[0] == (page_tab, "http://app/x")
    # the bare first render: the fresh tab's own (before its reruns), or another new tab's
    assert renders[1] == (2, "http://bare/")
    assert out["bare_first_render_s"] == pytest.approx(1.02)
    assert out["bare_rerun_ms_median"] == pytest.approx(100 + bare_tab)
    if fresh:  # the fresh bare tab is closed with the page's
        assert fake.events[-2:] == [("close", 2), ("close", 1)]


def test_a_fresh_bare_tab_that_does_not_render_falls_back_to_the_runs_tab(fake, monkeypatch):
    def render(tab, url, *a, **k):
        fake.events.append(("render", tab, url))
        if url == "http://bare/":
            raise B.BenchTimeout("too slow")
        return 1.0

    monkeypatch.setattr(B, "render", render)
    errors: list[str] = []
    warm = pages.Paired(tab=99, control=B.Control("slider", 0), url="http://bare/", fresh=True)
    out = pages.measure_interactive(object(), "http://app/x", 2, errors, paired=warm)
    assert [e[1] for e in fake.events if e[0] == "rerun"] == [1, 99, 1, 99]
    assert out["bare_first_render_s"] is None
    assert any("fresh bare tab" in e for e in errors)


def test_the_table_says_how_the_reruns_were_paired():
    base = {"bare": {"rerun_ms_median": 100.0}, "pages": {"home": {"rerun_ms_median": 90.0}}}
    for tab in ("fresh", "warm"):
        result = base | {"meta": {"paired": True, "pair_tab": tab}}
        assert PAIRING[tab] in markdown_table(result)
    # a result from before the choice: one bare tab for the run
    assert PAIRING["warm"] in markdown_table(base | {"meta": {"paired": True}})
    assert PAIRING["fresh"] not in markdown_table(base | {"meta": {"paired": False}})


def test_the_first_render_is_the_median_of_pairs_in_alternating_order(fake, monkeypatch):
    # page renders 3.0, 1.0, 2.0 s (median 2.0), bare 9.0, 5.0, 7.0 (median 7.0): the medians
    # of three pairs, not the first pair (3.0 / 9.0)
    times = {"http://app/x": iter([3.0, 1.0, 2.0]), "http://bare/": iter([9.0, 5.0, 7.0])}

    def render(tab, url, *a, **k):
        fake.events.append(("render", tab, url))
        return next(times[url])

    monkeypatch.setattr(B, "render", render)
    warm = pages.Paired(tab=99, control=B.Control("slider", 0), url="http://bare/", fresh=True)
    out = pages.measure_interactive(object(), "http://app/x", 1, [], paired=warm, first_pairs_n=3)
    assert out["first_renders_s"] == [3.0, 1.0, 2.0]
    assert out["bare_first_renders_s"] == [9.0, 5.0, 7.0]
    assert (out["first_render_s"], out["bare_first_render_s"]) == (2.0, 7.0)
    urls = [e[2] for e in fake.events if e[0] == "render"]
    # the page's own tab and its bare tab, then bare first, then the page first
    assert urls == ["http://app/x", "http://bare/"] * 1 + ["http://bare/", "http://app/x"] + [
        "http://app/x",
        "http://bare/",
    ]
    # each extra render in a new session (a tab of its own)
    tabs = [e[1] for e in fake.events if e[0] == "render"]
    assert len(set(tabs)) == len(tabs)


def test_without_a_pair_the_first_render_is_the_pages_one(fake):
    out = pages.measure_interactive(object(), "http://app/x", 1, [], first_pairs_n=3)
    assert out["first_render_s"] == pytest.approx(1.01) and "first_renders_s" not in out
