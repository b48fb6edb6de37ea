"""A chart's text alternative says its title, axes and the numbers its takeaway rests on,
computed from the figure's own data, in English and Chinese; its data reads as tables."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from charts import describe


def _sent(fig: go.Figure) -> dict:
    """The spec as Streamlit sends it (arrays as plotly's base64 ``bdata``)."""
    return json.loads(fig.to_json())


def heatmap() -> go.Figure:
    z = np.array([[0.1, 0.7, 0.2], [0.05, 0.15, 0.8]])
    return go.Figure(
        go.Heatmap(z=z, x=["the", "cat", "sat"], y=["猫", "坐"]),
        layout=dict(title=dict(text="Attention<br>weights"), xaxis_title="source"),
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_heatmap_says_its_size_its_maximum_and_each_rows_strongest_cell(lang):
    text = describe.describe(_sent(heatmap()), lang)
    assert "Attention weights" in text and "source" in text
    for number in ("2", "3", "0.05", "0.8"):  # rows, columns, minimum, maximum
        assert number in text
    assert "猫 → cat" in text and "坐 → sat" in text  # each row's strongest cell
    assert text.startswith("Chart" if lang == "en" else "图表")


def test_bars_say_every_value_and_the_highest():
    fig = go.Figure(go.Bar(x=["RNN", "CNN", "attention"], y=[0.31, 0.55, 0.99], name="accuracy"))
    text = describe.describe(_sent(fig), "en")
    assert "RNN: 0.31" in text and "CNN: 0.55" in text
    assert "Highest: attention (0.99)" in text


def test_a_line_says_its_start_end_and_extremes():
    fig = go.Figure(go.Scatter(x=[5, 10, 15, 20], y=[1.0, 0.2, 0.6, 0.4], name="RNN"))
    text = describe.describe(_sent(fig), "en")
    assert "“RNN”" in text
    assert "from 5 to 20" in text and "starts at 1, ends at 0.4" in text
    assert "lowest 0.2 at 10" in text and "highest 1 at 5" in text
    zh = describe.describe(_sent(fig), "zh")
    assert "起点 1" in zh and "终点 0.4" in zh


def test_a_share_on_a_percent_axis_is_said_and_tabled_in_percent():
    """The words under a chart read its numbers as its axis shows them: an accuracy drawn in
    percent is said in percent (a horizontal bar's values on its x axis)."""
    fig = go.Figure(
        go.Scatter(x=[5, 10], y=[0.91, 0.375], name="GRU"), layout=dict(yaxis_tickformat=".0%")
    )
    text = describe.describe(_sent(fig), "en")
    assert "starts at 91%, ends at 37.5%" in text
    assert describe.tables(_sent(fig), "en")[0][2][1] == ["GRU", "10", "37.5%"]
    bars = go.Figure(
        go.Bar(x=[0.5, 0.25], y=["a", "b"], orientation="h"), layout=dict(xaxis_tickformat=".0%")
    )
    assert "a: 50%" in describe.describe(_sent(bars), "en")


def test_invisible_helpers_are_not_described():
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[3, 4], name="shown"),
            go.Scatter(x=[0.5], y=[0], marker=dict(opacity=0), mode="markers", name="axis"),
        ]
    )
    text = describe.describe(_sent(fig), "en")
    assert "“shown”" in text and "“axis”" not in text


def test_the_tables_hold_the_data():
    ((caption, header, rows),) = describe.tables(_sent(heatmap()), "en")
    assert header == ["", "the", "cat", "sat"]
    assert rows[1] == ["坐", "0.05", "0.15", "0.8"]
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout=dict(yaxis_title="count"))
    assert describe.tables(_sent(fig), "zh")[0][1:] == (["x", "count"], [["a", "1"], ["b", "2"]])


def test_the_html_hides_the_text_visually_and_escapes_it():
    fig = go.Figure(go.Bar(x=["<b>x</b>"], y=[1]), layout=dict(title_text="a <i>title</i> & more"))
    out = describe.alternative_html(_sent(fig), "en")
    assert 'class="chart-alt"' in out and "clip:rect(0,0,0,0)" in out
    assert "a title &amp; more" in out and "<b>x</b>" not in out
    assert "<details" in out and "Chart data as a table" in out
