"""Speed work on the autoregressive page: each screen is a fragment (its controls rerun only
that screen) and its tables are Markdown (no pandas on the server, no table bundle in the
browser). These tests pin the behaviour that must not change."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.test_app_autoregressive import _need, md_tables, record, run

PAGE = ROOT / "pages/autoregressive.py"


def test_every_screen_is_a_fragment():
    text = PAGE.read_text(encoding="utf-8")
    for name in ("lm_part", "translate_part", "wrong_part", "cost_part"):
        assert "@ui.fragment" in text.split(f"def {name}()")[0].rsplit("\n\n", 1)[-1], name


def test_mode_change_keeps_the_link_and_the_record_in_step():
    _need("lm_gru")
    at = run()
    assert not at.table  # Markdown tables only
    greedy = record(at)
    at.segmented_control(key="ar_mode").set_value("sample").run()
    assert not at.exception
    assert at.query_params["mode"] == "sample"
    assert not at.slider(key="ar_temp").disabled
    header = md_tables(at)[0][0]
    assert header == ["Step", "The model read", "and chose", "Probability"]
    at.segmented_control(key="ar_mode").set_value("greedy").run()
    assert at.query_params["mode"] == "greedy" and record(at) == greedy
