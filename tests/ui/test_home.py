"""The home page: lesson map, model zoo (with and without a manifest), classroom notes."""

from __future__ import annotations

from core import lexicon
from core import mdtable as md
from core.i18n import translate
from core.zoo import MODEL_NAMES, PROBE_MODELS
from tests.conftest import make_app
from ui.nav import LESSON_MAP

HOME = "pages/home.py"


def _table(at) -> list[list[str]]:
    """The zoo table's body rows (the one Markdown table on the page), cells as source."""
    src = [m.value for m in at.markdown if m.value.startswith("| ")][0]  # [1]: the details
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
    # display names from core.lexicon, not identifiers (those wait in "for the curious")
    shown = [md.escape(lexicon.name(n, "en")) for n in MODEL_NAMES]
    assert [r[0].rsplit(" :", 1)[0] for r in rows] == shown
    assert not any("gru_plain" in c for r in rows for c in r)
    details = [m.value for m in at.markdown if m.value.startswith("| ")][1]
    assert all(f"`{n}`" in details for n in MODEL_NAMES)
    params = [fake_manifest["models"][n]["params"] for n in MODEL_NAMES]
    cells = [":" + r[0].rsplit(" :", 1)[1] for r in rows]  # "name :blue[███] 1,234"
    assert [c.split("] ")[1].replace(",", "") for c in cells] == [str(p) for p in params]
    bars = [len(c.split("[")[1].split("]")[0]) for c in cells]
    # log-scale bars: longer for bigger models, 1 block for the smallest, 6 for the largest
    assert min(bars) == 1 and max(bars) == 6
    for (p1, b1), (p2, b2) in zip(sorted(zip(params, bars)), sorted(zip(params, bars))[1:]):
        assert b1 <= b2, (p1, b1, p2, b2)
    # attention models in orange, the rest in blue
    orange = {"gru_attention", "cnn_s2s", "transformer", "probe_attention", "coref_encoder"}
    assert {n for n, c in zip(MODEL_NAMES, cells) if c.startswith(":orange[")} == orange
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
    rows = dict(zip(MODEL_NAMES, _table(at)))
    assert len(rows) == len(MODEL_NAMES)
    assert rows["gru_plain_32"][0].endswith(" —") and rows["lm_gru"][0].endswith(" —")


def test_task_filter_changes_table_and_url(no_manifest):
    at = make_app(HOME, lang="en").run()
    assert _rows(at) == len(MODEL_NAMES)
    at.segmented_control[0].set_value("probe").run()
    assert not at.exception
    assert _rows(at) == len(PROBE_MODELS)
    assert at.query_params["task"] == "probe"


def test_encoder_task_lists_the_coreference_encoder_with_its_score(fake_manifest, monkeypatch):
    """The self-attention encoder has a task of its own and a score read from its metrics."""
    import core.zoo as zoo

    man = dict(fake_manifest)
    man["models"] = dict(fake_manifest["models"])
    metrics = {"named_acc": 0.97, "held_out_n": 321, "min_margin": 0.2345}
    man["models"]["coref_encoder"] = {**man["models"]["coref_encoder"], "metrics": metrics}
    monkeypatch.setattr(zoo, "load_manifest", lambda: man)
    at = make_app(HOME, lang="en", task="encoder").run()
    assert not at.exception and _rows(at) == len(zoo.ENCODER_MODELS)
    row = " ".join(_table(at)[0])
    assert md.escape(lexicon.name("coref_encoder", "en")) in row
    assert "97%" in row and "321" in row and md.escape("0.23") in row
    at = make_app(HOME, lang="zh", task="encoder").run()
    assert not at.exception and "97%" in " ".join(_table(at)[0])


def test_task_deep_link_and_bad_value(no_manifest):
    at = make_app(HOME, lang="zh", task="lm").run()
    assert _rows(at) == 1 and at.segmented_control[0].value == "lm"
    at = make_app(HOME, lang="zh", task="bogus").run()
    assert any("bogus" in w.value for w in at.warning)
    assert _rows(at) == len(MODEL_NAMES) and at.query_params["task"] == "all"


def test_lesson_map_sections_follow_the_page_order(no_manifest):
    """The map lists the pages in the deck's order, each with its lesson sections."""
    from ui.nav import PAGES

    at = make_app(HOME, lang="en").run()
    text = "\n".join(m.value for m in at.markdown)
    titles = [translate(f"page.{stop.slug}.title", "en") for stop in LESSON_MAP]
    places = [text.index(f"**{title}**") for title in titles]
    assert places == sorted(places)
    assert [s.slug for s in LESSON_MAP] == [p.slug for p in PAGES if p.parts]  # lesson pages
    for stop in LESSON_MAP:
        assert f"§ {stop.sections}" in text
    assert "top to bottom" in translate("home.class.order", "en")
