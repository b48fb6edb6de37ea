"""The home page: lesson map, model zoo (with and without a manifest), classroom notes."""

from __future__ import annotations

from core.i18n import translate
from core.zoo import MODEL_NAMES, PROBE_MODELS
from tests.conftest import make_app
from ui.nav import LESSON_MAP

HOME = "pages/home.py"


def _table(at) -> list[list[str]]:
    """The zoo table's body rows (the one Markdown table on the page), cells as source."""
    (src,) = [m.value for m in at.markdown if m.value.startswith("| ")]
    lines = src.splitlines()
    assert set(lines[1]) <= set("|:-")  # the alignment row
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:]]


def _rows(at) -> int:
    return len(_table(at))


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


def test_zoo_table_sizes_from_manifest(fake_manifest):
    at = make_app(HOME, lang="en").run()
    assert not at.exception and not at.warning
    rows = _table(at)
    assert [r[0].strip("`") for r in rows] == list(MODEL_NAMES)
    params = [fake_manifest["models"][n]["params"] for n in MODEL_NAMES]
    cells = [r[3] for r in rows]  # ":blue[███] 1,234"
    assert [c.split("] ")[1].replace(",", "") for c in cells] == [str(p) for p in params]
    bars = [len(c.split("[")[1].split("]")[0]) for c in cells]
    # log-scale bars: longer for bigger models, 1 block for the smallest, 12 for the largest
    assert min(bars) == 1 and max(bars) == 12
    for (p1, b1), (p2, b2) in zip(sorted(zip(params, bars)), sorted(zip(params, bars))[1:]):
        assert b1 <= b2, (p1, b1, p2, b2)
    # attention models in orange, the rest in blue
    assert {r[0].strip("`") for r in rows if r[3].startswith(":orange[")} == {
        "gru_attention",
        "cnn_s2s",
        "transformer",
        "probe_attention",
    }
    assert not at.get("plotly_chart")  # home needs no chart bundle (cold start)


def test_zoo_table_survives_odd_manifest_values(fake_manifest, monkeypatch):
    import core.zoo as zoo

    odd = dict(fake_manifest)
    odd["models"] = dict(fake_manifest["models"])
    odd["models"]["gru_plain_32"] = {"params": "many", "steps": None, "train_time_s": "x|y"}
    odd["models"]["lm_gru"] = "not a dict"
    monkeypatch.setattr(zoo, "load_manifest", lambda: odd)
    at = make_app(HOME, lang="zh").run()
    assert not at.exception
    rows = {r[0].strip("`"): r for r in _table(at)}
    assert len(rows) == len(MODEL_NAMES)
    assert rows["gru_plain_32"][3] == "—" and rows["lm_gru"][3] == "—"


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
