"""The RNN-gradient figures: the decay on a log axis and the eigenvalues, built with what
they need and no more (circles of 61 points, decay lines without an x array), the influence
strip, the accuracy and step figures' checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from charts import rnn_gradients as figures
from charts.common import Titles
from charts.rnn_gradients.learning import _wrappings
from core.analysis import rnn_gradients as analysis


def test_decay_figure_is_log_and_refuses_non_positive_values():
    d = np.arange(5)
    f = figures.decay_figure(d, {"a": 0.5**d}, titles=Titles("t", "x", "y"), bound=("b", 0.5**d))
    assert f.layout.yaxis.type == "log" and len(f.data) == 2
    with pytest.raises(ValueError, match="positive"):
        figures.decay_figure(d, {"a": d.astype(float)}, titles=Titles("t", "x", "y"))
    with pytest.raises(ValueError, match="values but distance"):  # longer than the axis
        figures.decay_figure(d, {"a": [1.0] * 6}, titles=Titles("t", "x", "y"))
    with pytest.raises(ValueError, match="values but distance"):  # the bound is whole
        figures.decay_figure(
            d, {"a": 0.5**d}, titles=Titles("t", "x", "y"), bound=("b", [1.0, 2.0])
        )
    # a model measured on shorter sequences stops where they end
    short = figures.decay_figure(d, {"a": [1.0, 0.5]}, titles=Titles("t", "x", "y"))
    assert list(short.data[0].y) == [1.0, 0.5] and short.data[0].x0 == 0


def test_influence_strip_checks_lengths():
    with pytest.raises(ValueError, match="one value per word"):
        figures.influence_strip(["a", "b"], [1.0], title="t", colorbar_title="c")
    f = figures.influence_strip(["a", "a", "b"], [1e-3, 1e-1, 1.0], title="t", colorbar_title="c")
    assert len(set(f.data[0].x)) == 3  # repeated words stay separate cells


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("radius", [0.5, 1.0, 1.45])
def test_circles_are_closed_61_gons_on_their_radius(radius, presenter):
    assert 60 <= figures.CIRCLE_POINTS <= 90
    f = figures.eigen_figure(
        analysis.eigenvalues(analysis.recurrent_matrix(64, radius, seed=0)),
        radius=radius,
        titles=Titles("t", "x", "y"),
        eig_label="λ",
        unit_label="unit",
        radius_label="ρ",
        presenter=presenter,
    )
    circles = {tr.name: tr for tr in f.data if tr.mode == "lines" and tr.name in ("unit", "ρ")}
    assert set(circles) == {"unit", "ρ"}
    for name, r in (("unit", 1.0), ("ρ", radius)):
        x, y = np.asarray(circles[name].x), np.asarray(circles[name].y)
        assert x.size == y.size == figures.CIRCLE_POINTS
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
    f = figures.decay_figure(d, {"a": 0.5**d}, titles=Titles("t", "x", "y"), bound=("b", 0.5**d))
    lines = [tr for tr in f.data if tr.xaxis in (None, "x")]
    assert len(lines) in (2, 4)
    for tr in lines:
        assert tr.x is None and (tr.x0, tr.dx) == (0, 1), tr.name
        assert len(tr.y) == 60
    spec = json.loads(f.to_json())
    assert all("x" not in tr for tr in spec["data"][:4])
    # distances that are not evenly spaced still get their array
    odd = figures.decay_figure([1, 2, 4], {"a": [1.0, 0.5, 0.25]}, titles=Titles("t", "x", "y"))
    assert list(odd.data[0].x) == [1, 2, 4] and odd.data[0].x0 is None
    shifted = figures.decay_figure([3, 5, 7], {"a": [1.0, 0.5, 0.25]}, titles=Titles("t", "", ""))
    assert (shifted.data[0].x0, shifted.data[0].dx) == (3, 2)


def test_fade_words_figure_draws_one_line_per_model_over_the_words():
    words = ["the", "cat", "the", "end"]  # a repeated word keeps its own point
    fig = figures.fade_words_figure(
        words,
        {"Plain RNN": [0.2, 0.3, 0.5, 1.0], "GRU": [0.9, 0.4, 1.0, 0.7]},
        titles=Titles("t", "x", "y"),
        looks={"Plain RNN": "rnn_plain_256", "GRU": "gru_plain_256"},
    )
    assert [tr.name for tr in fig.data] == ["Plain RNN", "GRU"]
    assert len(set(fig.data[0].x)) == 4 and fig.layout.yaxis.range == (0, 1.05)
    with pytest.raises(ValueError, match="values for 4 words"):
        figures.fade_words_figure(words, {"A": [1.0, 1.0]}, titles=Titles("", "", ""))
    with pytest.raises(ValueError, match="empty"):
        figures.fade_words_figure(words, {}, titles=Titles("", "", ""))


# ---- the accuracy chart's note: inside the plot where no line runs through it ------------

NOTE = "LSTM / GRU: the same accuracy at every distance (the lines overlap)"
NOTE_ZH = "LSTM / GRU：每个距离上的准确率都相同（两条线重合）"
DISTANCES = np.arange(5, 65, 5, dtype=float)
TOP = np.ones(DISTANCES.size)  # the gated cells' lines, on top of each other at 100 %


def _note(lines, presenter, note=NOTE, chance=0.1):
    return figures.note_place(note, DISTANCES, lines, chance, presenter)


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("note", [NOTE, NOTE_ZH])
def test_the_note_keeps_its_words_on_one_to_three_lines(presenter, note):
    texts = _wrappings(note, 22 if presenter else 12)
    assert [t.count("<br>") + 1 for t in texts] == [1, 2, 3]
    glue = "" if note is NOTE_ZH else " "
    assert all(glue.join(t.split("<br>")) == note for t in texts)


@pytest.mark.parametrize("presenter", [False, True])
def test_a_clear_plot_puts_the_note_on_one_line_under_the_top_lines(presenter):
    low = np.full(DISTANCES.size, 0.3)
    place = _note([low, TOP, TOP], presenter)
    assert "<br>" not in place["text"]
    assert (place["xref"], place["x"], place["xanchor"]) == ("x domain", 1, "right")
    assert place["yanchor"] == "top" and 0.9 < place["y"] < 1.0  # right under the 100 % lines


@pytest.mark.parametrize("presenter", [False, True])
def test_a_line_across_the_top_pushes_the_note_under_it(presenter):
    high = np.full(DISTANCES.size, 0.92)  # too little room between it and 100 % for a line
    place = _note([high, TOP, TOP], presenter)
    assert place["y"] < 0.9
    assert "<br>" not in place["text"]  # nothing else in the way: still one line


def test_a_falling_line_wraps_the_note_into_the_free_corner_on_the_projector():
    # the shipped Plain RNN's held-out accuracy (2026-12 probes): the one-line note, 690 px
    # on the projector, would reach back to distance ~20 where the line is still at 93 %
    rnn = np.array([0.975, 0.95, 0.95, 0.935, 0.885, 0.83, 0.735, 0.54, 0.39, 0.24, 0.17, 0.11])
    place = _note([rnn, TOP, TOP], presenter=True)
    assert place["text"].count("<br>") == 1
    assert place["y"] > 0.85  # still right under the lines it is about
    # on the laptop (12 px text in a 740-px plot) one line clears it
    assert "<br>" not in _note([rnn, TOP, TOP], presenter=False)["text"]


@pytest.mark.parametrize("presenter", [False, True])
def test_a_plot_full_of_lines_sends_the_note_under_it(presenter):
    lines = [np.full(DISTANCES.size, y) for y in np.arange(0.15, 1.0, 0.08)]
    assert _note([*lines, TOP], presenter) is None
    fig = figures.accuracy_figure(
        DISTANCES,
        {f"m{i}": v for i, v in enumerate([*lines, TOP])},
        chance=0.1,
        chance_label="chance",
        titles=Titles("accuracy", "distance", "accuracy"),
        presenter=presenter,
        note=NOTE,
    ).to_dict()
    below = fig["layout"]["annotations"][-1]
    assert below["yref"] == "paper" and below["y"] == 0 and below["yanchor"] == "top"
    assert below["text"].replace("<br>", " ") == NOTE
    assert fig["layout"]["margin"]["b"] > -below["yshift"]  # the margin holds it
