"""The path-length page: Table 1 controls, the word-pair paths, probes, deep links, bad input."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from core.analysis import path_length as pl
from core.analysis import receptive_field as rf
from tests.conftest import make_app, md_tables
from tests.test_app_cnn_receptive_field import fake_zoo  # noqa: F401 (fixture)

PAGE = "pages/path_length.py"


def _chart(at, key: str) -> dict:
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return json.loads(el.proto.spec)
    raise AssertionError(f"no chart {key}")


def _array(values) -> np.ndarray:
    """A plotly JSON array: a list, or numpy's bytes as {"dtype", "bdata"}."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values)


def _metrics(at) -> list[str]:
    return [str(m.value) for m in at.main.metric]


def test_three_charts_and_the_table(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    keys = [el.proto.id for el in at.get("plotly_chart")]
    for key in ("path_table_chart", "path_pair_chart", "path_probes_chart"):
        assert any(key in k for k in keys), keys
    assert not at.table  # a Markdown table: no pandas, no table bundle
    rows = md_tables(at)[0][1:]
    assert [r[0] for r in rows] == [
        "Self-attention",
        "Recurrent",
        "Convolution",
        "Dilated convolution",
    ]
    # n = 50, k = 3: recurrent 49 hops, convolution 25 layers, dilated ceil(log3 50) = 4
    assert rows[1][3] == "O(n) = 49" and rows[2][3] == "O(n/k) = 25"
    assert rows[3][3] == "O(log_k(n)) = 4" and rows[0][3] == "O(1) = 1"
    assert rows[0][1] == "O(n²·d) = 1,280,000"  # 50² · 512


def test_table_sliders_change_the_numbers_and_the_url(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    at.slider(key="path_n").set_value(200).run()
    at.slider(key="path_k").set_value(5).run()
    assert at.query_params["n"] == "200" and at.query_params["k"] == "5"
    assert md_tables(at)[0][3][3] == f"O(n/k) = {pl.costs(200, 512, 5)['conv']['path']}"
    at.segmented_control(key="path_metric").set_value("complexity").run()
    fig = _chart(at, "path_table_chart")
    assert fig["layout"]["yaxis"]["type"] == "log"
    ys = {tr["name"]: _array(tr["y"]) for tr in fig["data"]}
    assert ys["Self-attention"][0] == pytest.approx(2 * 2 * 512)  # n = 2: n^2 d
    assert ys["Recurrent"][0] == pytest.approx(2 * 512 * 512)  # n d^2
    assert at.query_params["metric"] == "complexity"


def test_pair_steps_for_the_lessons_words(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="zh").run(timeout=120)
    assert not at.exception
    assert at.query_params["sent"] == "zh"
    # 秋蝉 (0) and 它们 (26), k = 3: 1 step, 26 steps, 13 layers, 3 dilated layers
    assert _metrics(at) == ["1", "26", "13", "3"]
    fig = _chart(at, "path_pair_chart")
    assert fig["layout"]["xaxis"]["ticktext"][0] == "秋蝉"


def test_pair_deep_link_and_change(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", sent="en", a="2", b="6", k="2", n="100", d="64")
    at.run(timeout=120)
    assert not at.exception
    assert at.selectbox(key="path_a").value == 2 and at.select_slider(key="path_d").value == 64
    # k = 2: 4 layers of one more word each; dilated 1, 2, 4: 2^3 = 8 >= 5 positions
    assert _metrics(at) == ["1", "4", "4", "3"]
    at.selectbox(key="path_b").set_value(3).run()
    assert at.query_params["b"] == "3"
    assert _metrics(at) == ["1", "1", "1", "1"]
    at.selectbox(key="path_b").set_value(2).run()
    assert any("two different words" in i.value for i in at.info)


def test_bad_params_fall_back_with_a_notice(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en", n="0", d="7", k="x", metric="speed", a="999")
    at.run(timeout=120)
    assert not at.exception
    shown = "\n".join(w.value for w in at.warning)
    for raw in ("speed", "999"):
        assert raw in shown
    assert at.query_params["n"] == "50" and at.query_params["d"] == "512"
    assert at.query_params["k"] == "3" and at.query_params["metric"] == "path"


@pytest.mark.parametrize(
    ("text", "expect"),
    [("🎉 ??", "no words to draw"), ("hello", "needs two words")],
)
def test_bad_own_text(fake_zoo, text, expect):  # noqa: F811
    at = make_app(PAGE, lang="en", sent="own", text=text).run(timeout=120)
    assert not at.exception
    assert any(expect in w.value for w in at.warning)
    assert len(at.get("plotly_chart")) == 3


def test_own_text_is_plain_and_capped(fake_zoo):  # noqa: F811
    text = "<img src=x onerror=alert(1)> " + "word " * 80
    at = make_app(PAGE, lang="en", sent="own", text=text[:300]).run(timeout=120)
    assert not at.exception
    assert any(str(rf.MAX_TOKENS) in i.value for i in at.info)
    assert not any("<img" in str(m.value) for m in at.main.markdown)
    fig = _chart(at, "path_pair_chart")
    assert len(fig["layout"]["xaxis"]["ticktext"]) == rf.MAX_TOKENS


def test_all_probes_on_one_chart(fake_zoo):  # noqa: F811
    at = make_app(PAGE, lang="en").run(timeout=120)
    fig = _chart(at, "path_probes_chart")
    names = [tr["name"] for tr in fig["data"]]
    assert names == [
        "Vanilla RNN",
        "LSTM",
        "GRU",
        "CNN, 2 layers",
        "CNN, 4 layers",
        "CNN, 8 layers",
        "Self-attention",
    ]
    caption = "\n".join(c.value for c in at.main.caption)
    # computed from the manifest, best first
    assert "distance, 60: LSTM 99% · GRU 99% · Self-attention 99% · Vanilla RNN 10%" in caption


def test_without_manifest_the_formulas_still_work(no_zoo):
    at = make_app(PAGE, lang="en").run(timeout=120)
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2
    assert any("manifest.json" in e.value for e in at.main.error)
