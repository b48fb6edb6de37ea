"""The one chart element: a plotly figure drawn in the page (no iframe) by plotly.js built with
the app's trace types only (static/vendor), through Streamlit's components v2.

The figure travels as plotly's JSON (built in Python, not re-validated); the component's
JavaScript (a few hundred bytes, sent with each chart) loads ``static/vendor``'s bundle and
``static/chart/road-chart.js`` once per page, from the app's own origin (Streamlit's static
serving, ``/app/static/``; the file names and ``?v=`` carry the version, so a proxy may cache
them for a year), then draws with Streamlit's theme (see road-chart.js).
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Hashable
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from charts.screen.margins import HEIGHT

NAME = "road_chart"  # the component's name (tests/conftest.py reads charts by it)
STATIC = Path(__file__).resolve().parent.parent / "static"
BUNDLE = "vendor/plotly-road-4.1.1.min.js"  # static/vendor/README.md: version, licence, build
DRAW = "chart/road-chart.js"

# Run as an ES module (Streamlit imports it from a blob: URL). Both scripts download in
# parallel and run in order (async = false); one promise per page, so a page of charts, and
# every rerun, loads them once.
_JS = """export default function ({ data, parentElement }) {
  const w = window;
  if (!w.__roadChart) {
    w.__roadChart = new Promise((resolve, reject) => {
      for (const src of %s) {
        const s = document.createElement("script");
        s.src = src;
        s.async = false;
        s.onload = () => w.RoadChart && resolve(w.RoadChart);
        s.onerror = () => {
          w.__roadChart = undefined;
          reject(new Error("chart code not loaded: " + src));
        };
        document.head.appendChild(s);
      }
    });
  }
  return void w.__roadChart.then((c) => c.draw(parentElement, data));
}
"""


# The chart's box, in the page as soon as the element is (before the bundle has loaded): the
# page and its tests can tell a chart still to draw from a page without charts.
_BOX = '<div class="stPlotlyChart" data-testid="stPlotlyChart"></div>'

# px: the closed fold of a chart's data table under it, one line of Streamlit's 16 px text at
# line height 1.6 (25.6 px in Chromium, English and Chinese, laptop and phone); presenter mode
# hides the fold (ui.style.PRESENTER_CSS), and the text alternative above it takes no room.
FOLD_LINE = 25.6


@cache
def urls(base: str = "") -> tuple[str, str]:
    """The bundle's and the drawing code's URLs, each with ``?v=`` its content's hash."""
    prefix = "/" + "/".join(p for p in (base.strip("/"), "app/static") if p) + "/"
    out = []
    for rel in (BUNDLE, DRAW):
        digest = hashlib.sha256((STATIC / rel).read_bytes()).hexdigest()[:12]
        out.append(f"{prefix}{rel}?v={digest}")
    return tuple(out)


@cache
def _component():
    base = st.get_option("server.baseUrlPath") or ""
    js = _JS % json.dumps(list(urls(base)))
    return st.components.v2.component(NAME, html=_BOX, js=js, isolate_styles=False)


def payload(fig: go.Figure, config: dict, alt: str = "") -> bytes:
    """What the browser gets: ``{"alt": <html>, "spec": <the figure's plotly JSON>, "config":
    <config>}``, UTF-8. The spec is the JSON ``st.plotly_chart`` sent (``plotly.io.to_json``
    without validation: the figure was built, and validated, by plotly's own objects);
    ``alt`` is the chart's text alternative and data table, every text in it escaped
    (``charts.describe.alternative_html``), put by road-chart.js under the chart."""
    spec = pio.to_json(fig, validate=False)
    head = '{"alt":' + json.dumps(alt) + ',"spec":'
    return (head + spec + ',"config":' + json.dumps(config) + "}").encode()


def room(fig: go.Figure, alt: str, *, fold_shown: bool = True) -> int:
    """The px a chart of ``fig`` with the text alternative ``alt`` takes in the page once drawn:
    the figure's height (plotly's 450 px without one, as road-chart.js draws it), and the data
    table's closed fold under it when ``alt`` has one and the screen shows it."""
    height = fig._layout.get("height")  # noqa: SLF001 - the figure's own, not its template's
    box = height if isinstance(height, int | float) and height >= 10 else HEIGHT
    fold = FOLD_LINE if fold_shown and "<details" in alt else 0.0
    return math.ceil(box + fold)


def draw_payload(data: bytes, *, key: str | None = None, height: int | None = None) -> None:
    """Show a chart from its :func:`payload`, full width; ``height``: its :func:`room`.

    The element takes ``height`` px from the moment it is in the page, before its code and
    plotly.js have loaded: nothing under it moves when it draws (a box that grew from nothing
    to the figure's height pushed the part's controls and words down, most of a page's layout
    shift). Drawing, road-chart.js lets the element follow its content again (a data table
    opened under the chart), exactly that tall."""
    _component()(data=data, key=key, width="stretch", height=height or "content")


class Drawn:
    """Charts as sent, kept for the whole server (``ui.chart(..., memo=...)``): the least
    recently used go first once there are ``max_items`` of them or their payloads pass
    ``max_bytes``, so no visitor can grow it without end (each key holds a page's own
    values, which a visitor chooses from a closed set or the URL). Thread-safe: every
    session's script thread reads and writes it."""

    def __init__(self, max_items: int, max_bytes: int) -> None:
        self.max_items, self.max_bytes = max_items, max_bytes
        self._items: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found[0]

    def put(self, key: Hashable, value: object, size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, size)
            self._bytes += size
            while len(self._items) > self.max_items or self._bytes > self.max_bytes:
                self._bytes -= self._items.popitem(last=False)[1][1]

    def __len__(self) -> int:
        return len(self._items)

    @property
    def size(self) -> int:
        """The payloads' bytes held."""
        return self._bytes


# 512 charts, 48 MB at most (the largest message the app sends is a chart of ~55 kB:
# .streamlit/config.toml); a lesson's default views in both languages, on laptops, the
# projector and phones, are a few hundred charts. The flood bench counts the bound.
DRAWN = Drawn(max_items=512, max_bytes=48 << 20)
# A live race's charts (``ui.chart(..., kept="live")``): a room's phones share each second's
# pair; a few rooms' last seconds on each kind of screen, in both languages, fit in 96.
LIVE = Drawn(max_items=96, max_bytes=8 << 20)


def read(proto) -> SimpleNamespace:
    """A drawn chart (the component's message) as ``st.plotly_chart``'s message held it:
    ``spec`` and ``config`` (the JSON texts sent), ``id``, and ``alt`` (its text alternative's
    html). For tests, which read what each chart shows."""
    text = proto.bytes.decode()
    # the first ',"spec":' outside a JSON string: a string holds its quotes escaped
    start = text.index(',"spec":')
    cut = text.rindex(',"config":')
    alt = json.loads(text[len('{"alt":') : start])
    spec, config = text[start + len(',"spec":') : cut], text[cut + len(',"config":') : -1]
    return SimpleNamespace(spec=spec, config=config, alt=alt, id=proto.id)
