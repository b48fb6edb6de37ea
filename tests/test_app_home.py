"""The home page: lesson map, model zoo (with and without a manifest), classroom notes."""

from __future__ import annotations

from core.i18n import translate
from core.zoo import MODEL_NAMES, PROBE_MODELS
from tests.conftest import make_app
from ui.nav import LESSON_MAP

HOME = "pages/home.py"


def _rows(at) -> int:
    return len(at.table[0].value)


def test_lesson_map_lists_every_stop_with_its_claim(no_manifest):
    at = make_app(HOME, lang="zh").run()
    text = "\n".join(m.value for m in at.markdown)
    for stop in LESSON_MAP:
        assert translate(f"page.{stop.slug}.claim", "zh") in text


def test_missing_manifest_names_file_and_command_in_users_language(no_manifest):
    for lang, word in (("en", "Rebuild"), ("zh", "重新生成")):
        at = make_app(HOME, lang=lang).run()
        msg = next(w.value for w in at.warning if "manifest.json" in w.value)
        assert "python -m core.train --all" in msg and word in msg
        assert _rows(at) == len(MODEL_NAMES)  # descriptions still listed
        assert not at.get("plotly_chart")


def test_zoo_table_and_chart_from_manifest(fake_manifest):
    at = make_app(HOME, lang="en").run()
    assert not at.exception and not at.warning
    df = at.table[0].value
    assert list(df["Parameters"]) == [fake_manifest["models"][n]["params"] for n in MODEL_NAMES]
    assert len(at.get("plotly_chart")) == 1


def test_task_filter_changes_table_and_url(no_manifest):
    at = make_app(HOME, lang="en").run()
    assert _rows(at) == len(MODEL_NAMES)
    at.segmented_control[0].set_value("probe").run()
    assert not at.exception
    assert _rows(at) == len(PROBE_MODELS)
    assert at.query_params["task"] == "probe"


def test_task_deep_link_and_bad_value(no_manifest):
    at = make_app(HOME, lang="zh", task="lm").run()
    assert _rows(at) == 1 and at.segmented_control[0].value == "lm"
    at = make_app(HOME, lang="zh", task="bogus").run()
    assert any("bogus" in w.value for w in at.warning)
    assert _rows(at) == len(MODEL_NAMES) and at.query_params["task"] == "all"
