"""Charts to images and the handout to PDF, offline, in the Chromium the tests use.

A figure is drawn by the page's own drawing code (``static/chart/road-chart.js``: the app's
theme and fonts merged in as the page does) with the app's own plotly.js build
(``static/vendor``), both loaded from disk into a blank page: no request leaves the machine.
Plotly then writes the drawn chart as SVG (vector: crisp on paper at any size), which the
handout embeds as a ``data:`` image. The PDF is Chromium's own print of the handout's HTML.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lessons.handout.chromium import CHROMIUM, CHROMIUM_ARGS
from ui import plot

WIDTH = 900  # px: a laptop's main column, the width the page's charts are laid out for
HEIGHT = 450  # px: plotly's (and the page's) height for a figure without one
_BLANK = "<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>"

# Draw one payload (ui.plot.payload's bytes as text) with road-chart.js in a box WIDTH wide,
# then plotly's SVG of what it drew.
_TO_SVG = """async ([payload, width]) => {
  const parent = document.createElement("div");
  parent.innerHTML = '<div class="stPlotlyChart"></div>';
  parent.style.width = width + "px";
  document.body.appendChild(parent);
  await window.RoadChart.draw(parent, payload);
  const gd = parent.querySelector(".stPlotlyChart").firstElementChild;
  const size = {format: "svg", width: gd._fullLayout.width, height: gd._fullLayout.height};
  const url = await window.Plotly.toImage(gd, size);
  window.Plotly.purge(gd);
  parent.remove();
  return [url, size.width, size.height];
}"""


def available() -> bool:
    """Whether Chromium and Playwright are here (else the handout draws its charts itself)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return CHROMIUM.exists()


@contextmanager
def browser() -> Iterator[object]:
    """A headless Chromium page that may fetch nothing from any network."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = chromium.new_context()
            # a data: or blank page needs nothing; anything else would be a network fetch
            context.route(re.compile(r"^(https?|wss?|ftp):"), lambda route: route.abort())
            yield context
        finally:
            chromium.close()


def chart_code() -> str:
    """The app's plotly.js build and its drawing code, as one script."""
    return "\n".join(
        (plot.STATIC / rel).read_text(encoding="utf-8") for rel in (plot.BUNDLE, plot.DRAW)
    )


@dataclass(frozen=True)
class Image:
    """A chart drawn as SVG: its ``data:`` URL and its size in px."""

    url: str
    width: float
    height: float

    def svg(self) -> str:
        """The SVG's text."""
        return base64.b64decode(self.url.partition(",")[2]).decode()


class Painter:
    """Turns charts into SVG ``data:`` URLs in one page of ``context`` (one per handout)."""

    def __init__(self, context) -> None:
        self.page = context.new_page()
        self.page.set_content(_BLANK)
        self.page.add_script_tag(content=chart_code())

    def svg(self, spec: str, config: str) -> Image:
        """The figure (plotly JSON ``spec`` and ``config``, as the page sent them) drawn as
        SVG: an image's ``data:`` URL, base64 (no XML namespace text shows in the handout)."""
        payload = '{"alt":"","spec":' + spec + ',"config":' + config + "}"
        url, width, height = self.page.evaluate(_TO_SVG, [payload, WIDTH])
        head, _, body = url.partition(",")
        svg = unquote(body) if ";base64" not in head else base64.b64decode(body).decode()
        data = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
        return Image(data, width, height)


def pdf(context, html: Path, out: Path) -> int:
    """``html`` printed to ``out`` (A4, the page sizes of the handout's CSS); its page count."""
    page = context.new_page()
    page.goto(html.resolve().as_uri(), wait_until="load")
    page.pdf(path=str(out), prefer_css_page_size=True, print_background=True)
    page.close()
    return page_count(out.read_bytes())


def page_count(data: bytes) -> int:
    """The pages of a PDF as Chromium writes it (one ``/Type /Page`` object each)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))


def payload_json(spec: str, config: str) -> str:
    """A chart's spec and config as one JSON text (for a handout that draws its own charts)."""
    return json.dumps({"spec": json.loads(spec), "config": json.loads(config)})
