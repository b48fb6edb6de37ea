"""Speed work on the RNN-gradients page (issue #10): a click on ρ reruns only the radius
section (its slider, the figure, the caption, the takeaway), the secondary controls rerun
the section around it, and the figure is built with what it needs and no more (circles of
61 points, decay lines without an x array). These tests pin the behaviour.

The fragment tests record what a run sends to the browser (every delta carries the id of
the fragment that drew it) and replay a click as the browser does: a rerun of the widget's
fragment only, which AppTest does not offer by itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from core.analysis import rnn_gradients as rg
from core.figures import rnn_gradients as figs
from tests.conftest import fragment_rerun, make_app
from tests.test_app_rnn_gradients import arr, fake_zoo  # noqa: F401 (fixture)

PAGE = "pages/rnn_gradients.py"
SECONDARY = ("rnng_T", "rnng_drive", "rnng_seed")


@dataclass(frozen=True)
class Sent:
    """One element a run sent: where it goes, the fragment that drew it, what it is."""

    path: tuple[int, ...]
    fragment: str
    type: str
    key: str  # a widget's or chart's key ("" for text)
    body: str


@pytest.fixture
def sent(monkeypatch) -> list[Sent]:
    """Every element the runs of the test send, in order (cleared by the test as needed)."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    log: list[Sent] = []
    enqueue = ForwardMsgQueue.enqueue

    def record(self, msg):
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            kind = el.WhichOneof("type")
            proto = getattr(el, kind)
            ident = getattr(proto, "id", "") or ""
            key = next((k for k in KEYS if ident.endswith("-" + k)), "")
            body = getattr(proto, "body", "") if kind in ("markdown", "alert") else ""
            log.append(Sent(tuple(msg.metadata.delta_path), msg.delta.fragment_id, kind, key, body))
        return enqueue(self, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", record)
    return log


KEYS = ("rnng_rho", "rnng_q", *SECONDARY, "rnng_fresh", "rnng_decay", "rnng_eig")


def fragment_of(log: list[Sent], key: str) -> str:
    return next(s.fragment for s in log if s.key == key)


def what(log: list[Sent]) -> list[str]:
    """The elements sent, by key (widgets, charts) or type (text)."""
    return [s.key or s.type for s in log]


@pytest.mark.parametrize("present", ["0", "1"])
def test_a_radius_click_reruns_only_its_slider_figure_caption_and_takeaway(
    fake_zoo,  # noqa: F811
    sent,
    present,
):
    link = {"rho": "0.6", "T": "30", "drive": "1.0", "seed": "5"}
    at = make_app(PAGE, lang="en", present=present, **link).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    inner = fragment_of(sent, "rnng_rho")
    outer = fragment_of(sent, "rnng_T")
    assert inner and outer and inner != outer == fragment_of(sent, "rnng_q")
    assert {fragment_of(sent, k) for k in SECONDARY} == {outer}
    # the slide's order: the radius section (chart, radius) before the secondary controls
    rho = next(s for s in sent if s.key == "rnng_rho")
    section = next(s for s in sent if s.key == "rnng_T")
    assert rho.path < section.path

    sent.clear()
    with fragment_rerun(inner):
        at.slider(key="rnng_rho").set_value(1.2).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    eig = ["rnng_eig"] if present == "1" else []
    chart = "rnng_decay" if present == "1" else "rnng_fresh"
    # sent in the order the code runs (the radius first: the chart needs its value) ...
    assert what(sent) == ["rnng_rho", chart, "markdown", "alert", *eig], what(sent)
    # ... and placed in the slide's order: the chart above the radius
    place = {s.key: s.path for s in sent if s.key}
    assert place[chart] < place["rnng_rho"]
    assert {s.fragment for s in sent} == {inner}
    texts = [s.body for s in sent if s.type in ("markdown", "alert")]
    assert "29 steps back" in texts[0] and "ρ = 1.2 ≥ 1" in texts[1]
    # the secondary controls were not redrawn and kept their values
    for key, value in (("rnng_T", 30), ("rnng_drive", "1.0"), ("rnng_seed", 5)):
        assert at.session_state[key] == value, key
    assert {k: at.query_params[k] for k in link} == {**link, "rho": "1.2"}
    title = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    assert "ρ = 1.2" in title and "T = 30" in title


def test_a_secondary_control_reruns_the_radius_section_with_it(fake_zoo, sent):  # noqa: F811
    at = make_app(PAGE, lang="en", rho="1.3").run(timeout=300)
    outer = fragment_of(sent, "rnng_T")
    sent.clear()
    with fragment_rerun(outer):
        at.slider(key="rnng_T").set_value(40).run(timeout=300)
    assert not at.exception, [e.value for e in at.exception]
    shown = what(sent)
    # the part reruns (its one fragment: the quantity and the secondary controls), the radius
    # section inside it: on screen the chart, then the radius, then the secondary controls
    place = {s.key: s.path for s in sent if s.key}
    assert place["rnng_fresh"] < place["rnng_rho"] < place["rnng_T"]
    assert all(k in shown for k in ("rnng_q", *SECONDARY))
    assert at.session_state["rnng_rho"] == pytest.approx(1.3)
    assert at.query_params["rho"] == "1.3" and at.query_params["T"] == "40"
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "ρ = 1.3" in spec["layout"]["title"]["text"]
    assert len(arr(spec["data"][0]["y"])) == 40


# --- the figure -------------------------------------------------------------------------------


def _fresh(d: np.ndarray, radius: float = 0.9, presenter: bool = False):
    ev = rg.eigenvalues(rg.recurrent_matrix(64, radius, seed=0))
    return figs.fresh_figure(
        d,
        {"rnn": 0.7**d, "lstm": 0.8**d, "gru": 0.9**d},
        ev,
        radius=radius,
        bound=("b", radius ** d.astype(float)),
        titles=("decay", "eig"),
        decay_axes=("x", "y"),
        eig_axes=("re", "im"),
        eig_labels=("λ", "unit", "ρ"),
        presenter=presenter,
    )


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("radius", [0.5, 1.0, 1.45])
def test_circles_are_closed_61_gons_on_their_radius(radius, presenter):
    assert 60 <= figs.CIRCLE_POINTS <= 90
    fresh = _fresh(np.arange(20), radius, presenter)
    eig = figs.eigen_figure(
        rg.eigenvalues(rg.recurrent_matrix(64, radius, seed=0)),
        radius=radius,
        title="t",
        x_title="x",
        y_title="y",
        eig_label="λ",
        unit_label="unit",
        radius_label="ρ",
        presenter=presenter,
    )
    for f in (fresh, eig):
        circles = {tr.name: tr for tr in f.data if tr.mode == "lines" and tr.name in ("unit", "ρ")}
        assert set(circles) == {"unit", "ρ"}
        for name, r in (("unit", 1.0), ("ρ", radius)):
            x, y = np.asarray(circles[name].x), np.asarray(circles[name].y)
            assert x.size == y.size == figs.CIRCLE_POINTS
            np.testing.assert_allclose(np.hypot(x, y), r, rtol=1e-12)  # every point on it
            np.testing.assert_allclose([x[-1], y[-1]], [x[0], y[0]], atol=1e-12)  # closed
            # the chords stay within 0.2 % of the radius: round at any size on screen
            mid = np.hypot((x[1:] + x[:-1]) / 2, (y[1:] + y[:-1]) / 2)
            assert mid.min() > r * 0.998
        markers = next(tr for tr in f.data if tr.mode == "markers")
        assert len(markers.x) == 64 and len(markers.customdata) == 64  # the content: kept


@pytest.mark.parametrize("presenter", [False, True])
def test_decay_lines_carry_no_x_array(presenter):
    d = np.arange(60)
    fresh = _fresh(d, presenter=presenter)
    decay = figs.decay_figure(
        d, {"a": 0.5**d}, title="t", x_title="x", y_title="y", bound=("b", 0.5**d)
    )
    for f in (fresh, decay):
        lines = [tr for tr in f.data if tr.xaxis in (None, "x")]
        assert len(lines) in (2, 4)
        for tr in lines:
            assert tr.x is None and (tr.x0, tr.dx) == (0, 1), tr.name
            assert len(tr.y) == 60
    spec = json.loads(fresh.to_json())
    assert all("x" not in tr for tr in spec["data"][:4])
    # distances that are not evenly spaced still get their array
    odd = figs.decay_figure([1, 2, 4], {"a": [1.0, 0.5, 0.25]}, title="t", x_title="x", y_title="y")
    assert list(odd.data[0].x) == [1, 2, 4] and odd.data[0].x0 is None
    shifted = figs.decay_figure(
        [3, 5, 7], {"a": [1.0, 0.5, 0.25]}, title="t", x_title="", y_title=""
    )
    assert (shifted.data[0].x0, shifted.data[0].dx) == (3, 2)


def test_the_figure_keeps_its_panels_legend_and_hover():
    f = _fresh(np.arange(30), radius=1.2)
    assert [tr.name for tr in f.data] == ["rnn", "lstm", "gru", "b", "unit", "ρ", "λ"]
    assert all(tr.hovertemplate.startswith("T−t=%{x}") for tr in f.data[:4])
    assert [tr.hoverinfo for tr in f.data[4:6]] == ["skip", "skip"]
    assert "|λ|=%{customdata" in f.data[6].hovertemplate
    assert f.layout.yaxis2.scaleanchor == "x2" and f.layout.yaxis.type == "log"
    lim = 1.1 * max(1.2, float(np.max(np.abs(f.data[6].x + 1j * np.asarray(f.data[6].y)))))
    assert tuple(f.layout.xaxis2.range) == pytest.approx((-lim, lim))
