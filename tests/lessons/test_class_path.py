"""The class path shows each picture once: no two of its stops draw the same data (a series
of four or more numbers, compared to four decimals), and where a later stop needs an earlier
picture it says so in a line and links back to it."""

from __future__ import annotations

import base64
import hashlib
import json

import numpy as np
import pytest

from core.i18n import translate
from tests.conftest import main_text, make_app
from ui.nav import Stop, deck

MIN_POINTS = 4  # a reference line (chance, a bound) has fewer; a picture's series more


def _values(raw) -> np.ndarray | None:
    if isinstance(raw, dict) and "bdata" in raw:
        values = np.frombuffer(base64.b64decode(raw["bdata"]), dtype=raw["dtype"]).astype(float)
    else:
        try:
            values = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):  # category labels
            return None
    return values if values.size >= MIN_POINTS and np.isfinite(values).all() else None


def _series(at) -> set[str]:
    """A digest per drawn series (the y or z values of every trace of every chart)."""
    out = set()
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec).get("data", []):
            for axis in ("y", "z"):
                values = _values(trace.get(axis))
                if values is not None:
                    out.add(hashlib.sha256(np.round(values, 4).tobytes()).hexdigest())
    return out


def _run(stop: Stop, **params):
    at = make_app(f"pages/{stop.slug}.py", lang="en", present="0", part=stop.part or "", **params)
    at.run(timeout=300)
    assert not at.exception, (stop, [e.value for e in at.exception])
    return at


def _repeats(stops, **params) -> list[tuple[Stop, Stop]]:
    seen: dict[str, Stop] = {}
    repeats = []
    for stop in stops:
        for digest in _series(_run(stop, **params)):
            if digest in seen and seen[digest] != stop:
                repeats.append((seen[digest], stop))
            seen.setdefault(digest, stop)
    return sorted(set(repeats), key=str)


@pytest.mark.long
def test_no_two_stops_of_the_class_path_draw_the_same_data():
    assert _repeats(deck("class")) == []


def test_the_check_finds_a_picture_drawn_twice():
    # the full lesson still repeats the distance probes (the CNN page's, path length's)
    stops = [Stop("cnn_receptive_field", "probes"), Stop("path_length", "probes")]
    assert _repeats(stops, path="full") == [tuple(stops)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_later_stop_links_back_to_the_picture_it_needs(lang):
    stops = deck("class")
    length = stops.index(Stop("bottleneck", "length")) + 1
    at = make_app("pages/path_length.py", lang=lang, present="0", part="problems").run(timeout=300)
    assert not at.exception
    assert translate("path_length.problems.state.seen", lang, slide=length) in main_text(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    titles = json.dumps(spec["layout"].get("annotations", []), ensure_ascii=False)
    assert translate("path_length.problems.fig.state", lang) not in titles  # not drawn again
    self_part = stops.index(Stop("attention", "self")) + 1
    at = make_app("pages/attention.py", lang=lang, present="0", part="score").run(timeout=300)
    assert not at.exception
    assert translate("attention.score.coref.seen", lang, slide=self_part) in main_text(at)
