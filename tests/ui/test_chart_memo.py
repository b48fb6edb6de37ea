"""``ui.chart(build, memo=...)``: a chart as sent, kept for the whole server. The same view
again (another visitor, or a slider moved back) is not built again and is sent byte for byte
as built; another language, presenter mode or view is built anew; the store stays bounded."""

from __future__ import annotations

import pytest

from lessons.compression import markov
from tests.conftest import make_app
from tests.lessons.test_compression import _need_lm
from ui import plot


def test_the_store_drops_the_least_recently_used_past_its_bounds():
    drawn = plot.Drawn(max_items=3, max_bytes=100)
    for k in "abc":
        drawn.put(k, k.upper(), 10)
    assert drawn.get("a") == "A"  # a is now the most recent: b goes first
    drawn.put("d", "D", 10)
    assert drawn.get("b") is None and [drawn.get(k) for k in "acd"] == ["A", "C", "D"]
    drawn.put("e", "E", 85)  # past 100 bytes: the oldest go until it fits
    assert len(drawn) == 2 and drawn.get("e") == "E" and drawn.size <= 100
    drawn.put("huge", "H", 101)  # larger than the whole store: not kept
    assert drawn.get("huge") is None and drawn.get("e") == "E"
    drawn.put("e", "E2", 5)  # the same key again: replaced, its bytes counted once
    assert drawn.get("e") == "E2" and drawn.size == 15
    assert (drawn.hits, drawn.misses) == (7, 2)


@pytest.fixture
def counted_builds(monkeypatch):
    """How often compression's growth chart is built (the store: empty, conftest)."""
    calls: list[int] = []
    build = markov.growth_figure

    def counting(stats, n):
        calls.append(n)
        return build(stats, n)

    monkeypatch.setattr(markov, "growth_figure", counting)
    return calls


def _growth(at) -> str:
    return next(c.proto.spec for c in at.get("plotly_chart") if "cmp_growth" in c.proto.id)


def test_a_view_seen_before_is_sent_as_built_without_building_it(counted_builds):
    _need_lm()
    at = make_app("pages/compression.py", lang="en", part="markov", n="3").run(timeout=600)
    assert not at.exception and counted_builds == [3]
    first = _growth(at)
    at.select_slider(key="cmp_n").set_value(5).run(timeout=600)
    assert counted_builds == [3, 5] and _growth(at) != first
    at.select_slider(key="cmp_n").set_value(3).run(timeout=600)  # back: from the store
    assert counted_builds == [3, 5] and _growth(at) == first
    # another visitor on the same view: from the store too
    other = make_app("pages/compression.py", lang="en", part="markov", n="3").run(timeout=600)
    assert counted_builds == [3, 5] and _growth(other) == first
    # the store's copy is what building it again gives, byte for byte
    plot.DRAWN = plot.Drawn(max_items=512, max_bytes=48 << 20)
    again = make_app("pages/compression.py", lang="en", part="markov", n="3").run(timeout=600)
    assert counted_builds == [3, 5, 3] and _growth(again) == first


@pytest.mark.parametrize("other", [{"lang": "zh"}, {"present": "1"}])
def test_another_language_or_presenter_mode_is_built_anew(counted_builds, other):
    _need_lm()
    base = make_app("pages/compression.py", lang="en", part="markov", n="3").run(timeout=600)
    view = {"lang": "en", **other}
    at = make_app("pages/compression.py", part="markov", n="3", **view).run(timeout=600)
    assert not at.exception and counted_builds == [3, 3]
    assert _growth(at) != _growth(base)
