"""The page registry and the deck: every part of every page, in lesson order, once."""

from __future__ import annotations

import ast

import pytest

from core import i18n
from tests.conftest import ROOT
from ui.nav import CLASS_PATH, LESSON_MAP, PAGES, Stop, deck, is_built, neighbours, page_parts


def _source_parts(slug: str) -> tuple[str, ...] | None:
    """The parts written in a page's source: the keys of its ``ui.show_part`` mapping, or
    its ``PARTS`` tuple (``None`` if the page has neither)."""
    tree = ast.parse((ROOT / "pages" / f"{slug}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "show_part"
            and isinstance(node.args[1], ast.Dict)
        ):
            return tuple(ast.literal_eval(k) for k in node.args[1].keys)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PARTS" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    return None


def test_every_registered_page_exists():
    assert [p.slug for p in PAGES if not is_built(p.slug)] == []


@pytest.mark.parametrize("spec", PAGES, ids=[p.slug for p in PAGES])
def test_declared_parts_are_the_pages_parts(spec):
    """ui.part_selector refuses a mismatch at run time; this catches it without running."""
    assert _source_parts(spec.slug) == (spec.parts or None)


@pytest.mark.parametrize("spec", [p for p in PAGES if p.parts], ids=lambda p: p.slug)
def test_every_part_has_a_label_in_both_languages(spec):
    for lang in i18n.LANGS:
        cat = i18n.load_catalogue(lang)
        missing = [p for p in spec.parts if f"{spec.slug}.part.{p}" not in cat]
        assert missing == [], (lang, spec.slug)


def test_deck_walks_home_then_every_part_once_and_ends_on_the_arena():
    stops = deck()
    assert stops[0] == Stop("home", None)
    assert stops[-1] == Stop("arena", "evidence")
    assert len(stops) == len(set(stops))
    expected = [Stop("home", None)] + [
        Stop(p.slug, part) for p in PAGES if p.listed for part in p.parts
    ]
    assert list(stops) == expected


def test_neighbours_link_both_ways():
    stops = deck()
    for i, stop in enumerate(stops):
        prev, nxt, k, n = neighbours(stop.slug, stop.part)
        assert (k, n) == (i + 1, len(stops))
        assert prev == (stops[i - 1] if i else None)
        assert nxt == (stops[i + 1] if i + 1 < len(stops) else None)


def test_unknown_part_is_not_in_the_deck():
    assert neighbours("attention", "nope")[2] == 0  # falls back to no place
    assert neighbours("nowhere", None) == (None, None, 0, len(deck()))


def test_a_comparison_page_comes_after_the_pages_it_compares():
    order = [p.slug for p in PAGES if p.listed]
    assert order.index("path_length") > order.index("cnn_receptive_field")
    assert order.index("path_length") > order.index("rnn_gradients")
    assert order.index("arena") == len(order) - 1


def test_lesson_map_follows_the_page_order():
    order = [p.slug for p in PAGES if p.listed]
    stops = [s.slug for s in LESSON_MAP]
    assert stops == [s for s in order if s in stops]
    assert page_parts("home") == ()


# --- two ways through the deck ---------------------------------------------------------------


def test_the_class_path_walks_the_lesson_in_order_in_at_most_20_stops():
    full, path = deck("full"), deck("class")
    assert len(path) <= 20 and len(path) == len(CLASS_PATH) == len(set(path))
    assert path[0] == Stop("home", None) and path[-1] == Stop("arena", "sentence")
    assert set(path) <= set(full)  # every class stop is a part of the full lesson
    # the lesson's argument: each page's stops in the page's order, CNNs and RNNs before
    # attention, what attention buys (the reach measured on every architecture, the race,
    # the arena) after it. path_length compares every architecture: the path takes its
    # summary of the three problems once self-attention, its answer to the third, is taught
    # (plain words: no stop uses a term before it is given), and its reach after the score.
    for slug in {s.slug for s in path} - {"path_length"}:
        mine = [s for s in path if s.slug == slug]
        assert sorted(mine, key=full.index) == mine, slug
    at = [i for i, s in enumerate(path) if s.slug == "attention"]
    before = ("autoregressive", "bottleneck", "compression", "cnn_receptive_field", "rnn_gradients")
    assert all(i < at[0] for i, s in enumerate(path) if s.slug in before)
    problems = path.index(Stop("path_length", "problems"))
    assert path.index(Stop("attention", "self")) < problems < path.index(Stop("attention", "score"))
    assert all(i > at[-1] for i, s in enumerate(path) if s.slug in ("live", "arena"))


def test_the_class_path_links_both_ways():
    stops = deck("class")
    for i, stop in enumerate(stops):
        prev, nxt, k, n = neighbours(stop.slug, stop.part, "class")
        assert (k, n) == (i + 1, len(stops))
        assert prev == (stops[i - 1] if i else None)
        assert nxt == (stops[i + 1] if i + 1 < len(stops) else None)


def test_a_part_off_the_class_path_steps_back_onto_it():
    # autoregressive's translation part lies between its lm and wrong parts
    prev, nxt, k, n = neighbours("autoregressive", "translate", "class")
    assert (prev, nxt, k, n) == (
        Stop("autoregressive", "lm"),
        Stop("autoregressive", "wrong"),
        0,
        len(deck("class")),
    )
    # every part of every page reaches the path: nothing is a dead end
    for stop in deck("full"):
        prev, nxt, _, _ = neighbours(stop.slug, stop.part, "class")
        assert prev is not None or nxt is not None, stop
    assert neighbours("nowhere", None, "class") == (None, None, 0, len(deck("class")))


def test_a_path_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="path must be one of"):
        deck("scenic")
