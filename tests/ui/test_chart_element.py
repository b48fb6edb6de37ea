"""The one chart element (ui.plot): no page draws through st.plotly_chart, the vendored
plotly.js is the one the pinned plotly expects and holds every trace type the app draws,
and the browser gets each figure's JSON exactly as built."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import plotly
import plotly.graph_objects as go
import plotly.io as pio

from tests.conftest import APP_PACKAGES
from ui import plot

ROOT = Path(__file__).resolve().parents[2]
# What the app runs (bench/bare_app.py, the bare baseline, keeps st.plotly_chart on purpose)
APP_CODE = ["app.py", *APP_PACKAGES]


def _sources() -> list[Path]:
    out = []
    for name in APP_CODE:
        path = ROOT / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


def test_no_page_or_module_draws_through_st_plotly_chart():
    users = [
        str(p.relative_to(ROOT))
        for p in _sources()
        if re.search(r"\.plotly_chart\s*\(", p.read_text(encoding="utf-8"))
    ]
    assert len(_sources()) > 50, "the app's sources were not found"
    assert not users, f"draw charts with ui.chart (one element, static/vendor's plotly.js): {users}"


def _version(js: Path) -> str:
    head = js.read_text(encoding="utf-8")[:200]
    return re.search(r"plotly\.js .*?v(\d+\.\d+\.\d+)", head).group(1)


def test_the_bundle_is_the_plotly_js_the_pinned_plotly_expects():
    expected = _version(Path(plotly.__file__).parent / "package_data" / "plotly.min.js")
    bundle = plot.STATIC / plot.BUNDLE
    assert _version(bundle) == expected, f"refresh {bundle} (static/vendor/README.md)"
    assert f"-{expected}." in bundle.name  # the version in the name: cached for a year
    readme = (plot.STATIC / "vendor" / "README.md").read_text(encoding="utf-8")
    assert expected in readme and "MIT" in readme
    assert (plot.STATIC / "vendor" / "LICENSE-plotly.js.txt").is_file()


def test_the_bundle_is_the_one_its_build_wrote():
    """static/vendor/README.md gives the sha256 that tools/plotly-bundle's build writes (the
    same inputs give the same bytes): a hand-edited or stale bundle fails here."""
    readme = (plot.STATIC / "vendor" / "README.md").read_text(encoding="utf-8")
    recorded = re.findall(r"`([0-9a-f]{64})`", readme)
    digest = hashlib.sha256((plot.STATIC / plot.BUNDLE).read_bytes()).hexdigest()
    assert recorded == [digest], "rebuild it (static/vendor/README.md) and record its sha256"
    # exactly the app's trace types: plotly.js's core (which holds scatter) and the others
    entry = (ROOT / "tools" / "plotly-bundle" / "entry.js").read_text(encoding="utf-8")
    built = set(re.findall(r"plotly\.js/lib/(\w+)", entry))
    assert built == {"core"} | (_app_trace_types() - {"scatter"}), built


def _app_trace_types() -> set[str]:
    """Every plotly trace type the app's code builds (go.Heatmap(...), dict(type="bar"))."""
    code = "\n".join(p.read_text(encoding="utf-8") for p in _sources())
    every_trace_type = set(go.Figure()._data_validator.class_strs_map)  # noqa: SLF001
    named = {n.lower() for n in re.findall(r"\bgo\.([A-Z][A-Za-z0-9]+)\(", code)}
    typed = set(re.findall(r"""\btype=["']([a-z0-9]+)["']""", code))
    traces = (named | typed) & every_trace_type
    assert {"heatmap", "bar", "scatter"} <= traces, "the app's trace builders were not found"
    return traces


def test_every_trace_type_the_app_builds_is_in_the_bundle():
    js = (plot.STATIC / plot.BUNDLE).read_text(encoding="utf-8")
    in_bundle = set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', js))
    traces = _app_trace_types()
    assert traces <= in_bundle, f"trace types the bundle lacks: {sorted(traces - in_bundle)}"


def test_the_browser_gets_the_figure_json_as_built():
    fig = go.Figure(go.Heatmap(z=[[1.5, 2.0], [3.0, 4.25]], x=["a", "猫"]))
    config = {"displaylogo": False, "responsive": True}
    raw = plot.payload(fig, config)
    sent = json.loads(raw)
    assert sent["spec"] == json.loads(pio.to_json(fig, validate=False)) and sent["config"] == config
    read = plot.read(SimpleNamespace(bytes=raw, id="chart"))
    assert read.spec == pio.to_json(fig, validate=False) and read.config == json.dumps(config)


def test_bundle_urls_are_same_origin_and_versioned():
    for url in plot.urls("") + plot.urls("/course/"):
        assert url.startswith("/") and "://" not in url and re.search(r"\?v=[0-9a-f]{12}$", url)
    assert plot.urls("/course/")[0].startswith("/course/app/static/vendor/")


def test_a_chart_takes_the_figures_height_and_its_folds_line():
    """The room a chart takes in the page (the element's height before it draws): the
    figure's own height (Streamlit's 450 px without one, not the template's), and one line
    for the closed fold of its data table when it has one and the screen shows it."""
    fold = '<p class="chart-alt">x</p><details class="chart-data"><summary>t</summary></details>'
    tall = go.Figure(go.Bar(y=[1, 2]), layout={"height": 500})
    assert plot.room(tall, fold) == 526  # 500 + 25.6, up to a whole px
    assert plot.room(tall, fold, fold_shown=False) == 500  # presenter mode hides the fold
    assert plot.room(tall, '<p class="chart-alt">x</p>') == 500  # no table: no fold
    templated = go.Figure(go.Bar(y=[1]), layout={"template": {"layout": {"height": 300}}})
    assert plot.room(templated, fold) == 476  # road-chart.js draws it 450 px tall


def test_the_element_holds_the_charts_room_before_the_browser_draws(monkeypatch):
    """ui.chart sends its element with the room as a fixed height, so the browser keeps it
    from the first frame (road-chart.js lets it follow its content once drawn)."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
    from streamlit.testing.v1 import AppTest

    heights: list[int] = []
    enqueue = ForwardMsgQueue.enqueue

    def record(self, msg):
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            if el.WhichOneof("type") == "bidi_component":
                heights.append(el.height_config.pixel_height)
        return enqueue(self, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", record)

    def page():
        import plotly.graph_objects as go

        import ui

        ui.chart(go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"height": 320}), key="c")

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert heights == [346]  # 320 + the data table's fold (25.6), up to a whole px
