"""charts.bottleneck: the builders check their input, build each figure in one go,
and send the encoder's states as float32."""

from __future__ import annotations

import numpy as np
import pytest

from charts import bottleneck as figs
from charts.common import Titles
from charts.screen import sizes
from core import corpus, lexicon
from core.analysis import bottleneck as bn
from tests.core.analysis.test_bottleneck import _model


def test_figures_merge_their_layout_into_one_build():
    """The builders make each figure in one go; the result is what the former separate
    update calls gave (fonts on the axes, the log axis, the category axis, the C frame)."""
    bars = figs.influence_bars(
        ["a", "b", "a"], [1.0, 0.1, 0.01], titles=Titles("t", "x", "y"), color="#123456"
    )
    assert bars.layout.yaxis.type is None and bars.layout.xaxis.type == "category"
    assert bars.layout.xaxis.title.text == "x" and bars.layout.xaxis.tickfont.size == 14
    assert bars.layout.yaxis.title.font.size == 16 and bars.layout.title.font.size == 17
    log = figs.influence_bars(
        ["a", "b"], [1.0, 0.1], titles=Titles("t", "x", "y"), color="#123", log_y=True
    )
    assert log.layout.yaxis.type == "log"
    big = figs.states_heatmap(
        np.zeros((3, 4)),
        ["a", "b", "<eos>"],
        titles=Titles("t", "x", "y"),
        context_label="C",
        presenter=True,
    )
    # dimension 1 on top, the range fixed (the frame and the C label cannot stretch it)
    assert tuple(big.layout.yaxis.range) == (4.5, 0.5) and big.layout.height == 520 + 80
    assert big.layout.shapes[0].x0 == 1.5 and big.layout.annotations[0].text == "<b>C</b>"
    assert big.layout.xaxis.tickfont.size == 22


def test_figures_build_and_check_their_input():
    h = np.zeros((4, 6))
    fig = figs.states_heatmap(
        h, ["a", "b", "a", "<eos>"], titles=Titles("t", "x", "y"), context_label="C"
    )
    assert fig.data[0].z.shape == (6, 4) and len(set(fig.data[0].x)) == 4
    with pytest.raises(ValueError, match="one word per state"):
        figs.states_heatmap(h, ["a"], titles=Titles("t", "x", "y"), context_label="C")
    both = figs.states_heatmap(
        h,
        ["a", "b", "a", "<eos>"],
        titles=Titles("t", "x", "y"),
        context_label="C",
        context=np.ones(6),
        strip_title="C: 6 numbers",
        strip_x_title="dim",
    )
    heat, strip = both.data
    assert strip.z.shape == (1, 6) and (strip.xaxis, strip.yaxis) == ("x2", "y2")
    # the strip sits under the heatmap, its title just above it, nothing overlapping
    assert both.layout.yaxis2.domain[1] < both.layout.yaxis.domain[0]
    assert both.layout.annotations[-1].text == "<b>C: 6 numbers</b>"
    assert both.layout.annotations[-1].y == both.layout.yaxis2.domain[1]
    assert heat.colorbar.len == pytest.approx(1 - both.layout.yaxis.domain[0])
    with pytest.raises(ValueError, match="context"):
        figs.states_heatmap(
            h,
            ["a"] * 4,
            titles=Titles("t", "x", "y"),
            context_label="C",
            context=np.array([np.nan]),
        )
    curves = {"gru_attention": [1.0] * 5, "cnn_s2s": [0.5] * 5}
    fig = figs.length_figure(
        corpus.BUCKETS, curves, focus=("gru_attention",), titles=Titles("t", "x", "y")
    )
    colors = {tr.name: tr.line.color for tr in fig.data}
    # one vocabulary: every model in its lexicon colour, the comparison ones paler
    assert colors == {n: lexicon.look(n).color for n in curves}
    assert {tr.name: tr.opacity for tr in fig.data}["cnn_s2s"] < 1
    named = figs.length_figure(
        corpus.BUCKETS,
        {"transformer": [1.0] * 5},
        focus=(),
        names={"transformer": "Transformer"},
        titles=Titles("t", "x", "y"),
    )
    assert named.data[0].name == "Transformer"
    assert named.data[0].line.color == lexicon.look("transformer").color
    with pytest.raises(ValueError, match="buckets"):
        figs.length_figure(corpus.BUCKETS, {"m": [1.0]}, focus=(), titles=Titles("t", "x", "y"))
    fig = figs.lines_by_position(
        [1, 2],
        {"gru_plain_32": [0.5, np.nan]},
        titles=Titles("t", "x", "y"),
        baseline=[0.1, 0.1],
        baseline_name="chance",
    )
    assert [tr.name for tr in fig.data] == ["gru_plain_32", "chance"]
    assert fig.data[0].line.color == lexicon.look("gru_plain_32").color
    with pytest.raises(ValueError):
        figs.influence_bars(["a"], [1.0, 2.0], titles=Titles("t", "x", "y"), color="#000")


def _decoded(array_spec: dict) -> np.ndarray:
    """An array of a figure's JSON as plotly.js reads it (a typed array in base64)."""
    import base64

    flat = np.frombuffer(base64.b64decode(array_spec["bdata"]), dtype="<" + array_spec["dtype"])
    return flat.reshape([int(n) for n in array_spec["shape"].split(",")])


def test_states_heatmap_sends_float32_and_the_same_values():
    """h_t goes to the browser as float32, the encoder's own precision: the values arrive bit
    for bit (so the colours and the 2-decimal hover are unchanged) in half the bytes."""
    import json

    import plotly.io as pio

    hidden, context = bn.encoder_states(
        _model(False, hidden=256), [3 + i % 27 for i in range(32)] + [2]
    )
    assert hidden.dtype == np.float32 and hidden.shape == (33, 256)
    words = [f"w{i}" for i in range(32)] + ["<eos>"]
    kwargs = dict(titles=Titles("t", "x", "y"), context_label="C", context=context)
    for h, c in ((hidden, context), (hidden.astype(np.float64), context.astype(np.float64))):
        fig = figs.states_heatmap(h, words, **{**kwargs, "context": c})
        spec = pio.to_json(fig, validate=False)
        heat, strip = json.loads(spec)["data"]
        assert heat["z"]["dtype"] == "f4" and heat["z"]["shape"] == "256, 33"
        np.testing.assert_array_equal(_decoded(heat["z"]), hidden.T)
        np.testing.assert_array_equal(_decoded(strip["z"]), context[None, :])
        hover = [f"{v:.2f}" for v in _decoded(heat["z"]).astype(np.float64).ravel()]
        assert hover == [f"{v:.2f}" for v in hidden.T.astype(np.float64).ravel()]
        assert heat["hovertemplate"].endswith("%{z:.2f}<extra></extra>")
        # the dimensions 1..H as a start and a step, not as arrays
        assert (heat["y0"], heat["dy"], strip["x0"], strip["dx"]) == (1, 1, 1, 1)
        assert "y" not in heat and "x" not in strip
        # 33 words x 256 dimensions: was 115 KB with float64 values and index arrays
        assert len(spec) < 65_000, len(spec)
    with pytest.raises(ValueError, match="NaN or infinity"):
        figs.states_heatmap(np.full((2, 3), np.inf), ["a", "<eos>"], **kwargs)


def test_dimension_labels_are_a_quarter_apart_and_padded_to_one_width():
    from charts.bottleneck import FIGURE_SPACE, dimension_ticks
    from charts.screen.text import text_width

    assert dimension_ticks(32) == {"tickvals": [8, 16, 24, 32], "ticktext": ["8", "16", "24", "32"]}
    assert dimension_ticks(256, 3)["tickvals"] == [64, 128, 192, 256]
    assert dimension_ticks(3)["tickvals"] == [1, 2, 3]  # fewer than four: every one
    assert dimension_ticks(32, 3)["ticktext"][0] == FIGURE_SPACE * 2 + "8"
    # the three plain models' labels take one width once padded to the widest model's
    widest = {
        n: max(text_width(t, 12) for t in dimension_ticks(n, 3)["ticktext"]) for n in (32, 128, 256)
    }
    assert len(set(widest.values())) == 1, widest
    assert (
        len({max(text_width(t, 12) for t in dimension_ticks(n)["ticktext"]) for n in (32, 256)})
        == 2
    )


def test_on_a_phone_the_guesses_stand_on_two_lines_at_a_readable_size():
    from charts.bottleneck import latent_figure

    states = np.zeros((3, 8), dtype=np.float32)
    kw = dict(titles=Titles("t", "x", "y"), bar_title="guess")
    args = (states, ["<bos>", "you", "should"], ["you", "should", "wear"], [0.2, 0.5, 0.95])
    wide = latent_figure(*args, **kw).to_dict()
    phone = latent_figure(*args, phone=True, **kw).to_dict()
    bars = [t for t in wide["data"] if t["type"] == "bar"][0]
    small = [t for t in phone["data"] if t["type"] == "bar"][0]
    assert bars["text"] == ["→ you 20%", "→ should 50%", "→ wear 95%"]
    assert small["text"] == ["you<br>20%", "should<br>50%", "wear<br>95%"]
    # kept at a phone's least size, never shrunk to the bar's width
    assert small["constraintext"] == "none" and small["textfont"]["size"] >= sizes.MIN_PHONE_FONT
    # room above the bars for two lines; the axis never says more than 100 %
    for fig, top in ((wide, 1.35), (phone, 1.6)):
        axis = fig["layout"]["yaxis2"]
        assert axis["range"] == [0, top] and max(axis["tickvals"]) == 1
