"""A page run without a browser (Streamlit's ``AppTest``), read as the browser would get it.

The app draws every chart through one components-v2 element (:mod:`ui.plot`) and server-
escaped html through another (:mod:`ui.markup`); ``AppTest`` knows neither and would list
each as an unknown ``bidi_component``. :func:`read_our_elements` makes it read a chart as the
``plotly_chart`` it replaces (its ``proto`` holding ``spec`` and ``config``, the JSON texts
exactly as sent, ``alt`` and ``id``) and our html as the ``html`` it replaces
(``proto.body``). The tests, the figure oracle and the handout (``lessons.handout``) read
what a view draws through here, so the handout's charts are the page's, spec for spec.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from ui import markup, plot

APP = Path(__file__).resolve().parent.parent / "app.py"


def read_our_elements() -> None:
    """Teach ``AppTest`` our chart and html elements (see the module docstring); once per
    process, idempotent."""
    from streamlit.testing.v1 import element_tree

    init = element_tree.UnknownElement.__init__
    if getattr(init, "road_chart", False):
        return

    def read_chart(self, proto, root) -> None:
        init(self, proto, root)
        if self.type == "bidi_component" and self.proto.component_name == plot.NAME:
            self.type, self.proto = "plotly_chart", plot.read(self.proto)
        elif self.type == "bidi_component" and self.proto.component_name == markup.NAME:
            # the server's escaped html (ui.markup), read as the st.html it replaces
            self.type = "html"
            self.proto = SimpleNamespace(body=self.proto.bytes.decode(), id=self.proto.id)

    read_chart.road_chart = True
    element_tree.UnknownElement.__init__ = read_chart


def make_app(
    page: str | None = None,
    *,
    lang: str | None = None,
    present: str | None = None,
    locale: str | None = None,
    **params: str,
) -> AppTest:
    """An AppTest of ``app.py`` (optionally on ``page``), with URL parameters, not yet run."""
    read_our_elements()
    at = AppTest.from_file(str(APP), default_timeout=60)
    if lang is not None:
        at.query_params["lang"] = lang
    if present is not None:
        at.query_params["present"] = present
    for key, value in params.items():
        at.query_params[key] = value
    if locale is not None:
        at.context = {"locale": locale}
    if page is not None:
        at.switch_page(page)
    return at


def run_view(page: str, part: str | None, lang: str, present: str = "0") -> AppTest:
    """The view ``(page, part)`` run once; raises with the page's message if the page raised."""
    params = {"part": part} if part else {}
    at = make_app(f"pages/{page}.py", lang=lang, present=present, **params)
    at.run(timeout=180)
    if at.exception:
        where = f"{page}/{part}/{lang}/present={present}"
        raise RuntimeError(f"{where}: {at.exception[0].message}")
    return at
