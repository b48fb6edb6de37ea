"""The distance probes' curves read from the manifest (``core.analysis.distance_probes``)."""

from __future__ import annotations

import pytest

from core import zoo
from core.analysis.distance_probes import SOLVED, overlaps, probe_curves, reach, wall
from core.models.probes import ProbeConfig
from core.probes_data import N_KEYS


def _entry(kind: str, layers: int, dist: dict[str, float] | None) -> dict:
    cfg = {"kind": kind, "n_symbols": 21, "n_keys": 10, "layers": layers, "kernel": 5}
    return {"config": cfg, "metrics": {"distance": dist} if dist is not None else {}}


def _label(name, cfg):
    return f"{cfg.get('kind', name)}{cfg.get('layers', '')}"


def test_curves_fields_and_missing():
    manifest = {
        "models": {
            "probe_cnn2": _entry("cnn", 2, {"10": 0.5, "5": 1.0}),
            "probe_gru": _entry("gru", 1, {"5": 0.9, "10": 0.8}),
            "probe_other": _entry("gru", 1, {"5": 0.9}),  # other distances
            "probe_none": _entry("gru", 1, None),  # not measured
        }
    }
    names = ("probe_none", "probe_cnn2", "probe_gru", "probe_other", "probe_absent")
    curves = probe_curves(manifest, names, _label)
    assert curves.distances == [5, 10]
    assert curves.series == {"cnn2": [1.0, 0.5], "gru1": [0.9, 0.8]}
    assert curves.fields == {"cnn2": 1 + 2 * 4}  # recurrences see everything: no field
    assert curves.missing == ["probe_none", "probe_other", "probe_absent"]


def test_label_none_leaves_a_probe_out_and_unknown_config_keeps_its_curve():
    manifest = {
        "models": {
            "a": {"config": {"kind": "cnn", "bogus": 1}, "metrics": {"distance": {"5": 0.2}}},
            "b": {"config": {"kind": "cnn"}, "metrics": {"distance": {"5": 0.3}}},
        }
    }
    curves = probe_curves(manifest, ("a", "b"), lambda n, _c: None if n == "b" else n)
    assert curves.series == {"a": [0.2]} and curves.fields == {}
    assert curves.missing == ["b"]


# --- the "measured reach" part: its default view proves its words (shipped weights) -------------


FADE = 0.5  # the plain RNN "fades": it loses at least this much accuracy from near to far
NEAR_CHANCE = 1 / N_KEYS + 0.1  # beyond its receptive field a CNN is within 10 points of chance

needs_manifest = pytest.mark.skipif(
    not zoo.MANIFEST_PATH.is_file(), reason="no trained models (run the training first)"
)


@pytest.fixture(scope="module")
def shipped():
    manifest = zoo.load_manifest()
    return probe_curves(manifest, zoo.PROBE_MODELS, lambda name, _cfg: name)


def test_overlaps_and_reach_on_small_curves():
    series = {"a": [1.0, 1.0], "b": [0.995, 1.0], "c": [1.0, 0.2], "d": [1.0, 0.2]}
    assert overlaps(series) == [["a", "b"], ["c", "d"]]
    assert overlaps({"a": [1.0], "b": [0.9]}) == []
    r = reach([5, 10, 15], [1.0, 0.96, 0.3])
    assert (r.near, r.far, r.lowest, r.solved_up_to) == (1.0, 0.3, 0.3, 10)
    assert reach([5], [0.5]).solved_up_to is None
    with pytest.raises(ValueError, match="one accuracy per distance"):
        reach([5, 10], [1.0])


@needs_manifest
def test_measured_reach_default_shows_its_takeaway_and_its_mixed_evidence(shipped):
    d, s = shipped.distances, shipped.series
    assert not shipped.missing and d[-1] >= 60
    r = {m: reach(d, s[m]) for m in s}
    # takeaway: self-attention recalls at every distance ...
    assert r["probe_attention"].lowest >= SOLVED
    # ... the plain RNN fades with distance ...
    assert r["probe_rnn"].near >= SOLVED and r["probe_rnn"].near - r["probe_rnn"].far >= FADE
    # ... and each CNN stops where its receptive field ends
    for name in ("probe_cnn2", "probe_cnn4", "probe_cnn8"):
        field_end = shipped.fields[name] - 1
        assert r[name].solved_up_to is not None and r[name].solved_up_to <= field_end
        beyond = [a for x, a in zip(d, s[name], strict=True) if x > field_end]
        assert beyond and max(beyond) <= NEAR_CHANCE
    # the mixed evidence the page states: gated RNNs hold one fact over every distance,
    # on the very line of self-attention, and the chart must say they lie on top of it
    for name in ("probe_lstm", "probe_gru"):
        assert r[name].lowest >= SOLVED
    groups = overlaps(s)
    assert ["probe_lstm", "probe_gru", "probe_attention"] in groups
    assert ProbeConfig(**zoo.load_manifest()["models"]["probe_cnn2"]["config"]).receptive_field


def test_wall_is_placed_between_two_samples():
    d = [5, 10, 15, 20, 25]
    w = wall(d, [1.0, 1.0, 0.6, 0.1, 0.12], field=17, chance=0.1)
    # solved up to 10; 15 is neither solved nor at chance; at chance from 20 (< 2 x chance)
    assert (w.solved_up_to, w.at_chance_from, w.sees_up_to, w.blind_at_chance) == (
        10,
        20,
        16,
        True,
    )
    assert not wall(d, [1.0, 1.0, 1.0, 0.3, 0.1], field=17, chance=0.1).blind_at_chance
    assert wall(d, [1.0] * 5, field=33, chance=0.1).at_chance_from is None
    assert wall(d, [0.1] * 5, field=9, chance=0.1).solved_up_to is None
    with pytest.raises(ValueError, match="receptive field"):
        wall(d, [1.0] * 5, field=0, chance=0.1)


@needs_manifest
def test_the_probes_try_this_is_true_of_the_chart(shipped):
    """The page's "Try this" on the probes (path_length) says, per CNN, where it is right and
    where at chance, as sampled; that none recalls beyond its dashed line; and names the
    stacks that fail before it. Checked here on the shipped curves, and on the page."""
    from core import lexicon
    from core.i18n import translate
    from tests.conftest import make_app

    d, s, chance = shipped.distances, shipped.series, 1 / N_KEYS
    walls = {m: wall(d, s[m], shipped.fields[m], chance) for m in shipped.fields}
    assert set(walls) == {"probe_cnn2", "probe_cnn4", "probe_cnn8"}
    for m, w in walls.items():
        assert w.blind_at_chance, m  # "no CNN recalls anything beyond its dashed line"
        # the drop happens between two neighbouring samples: nothing in between to see
        assert d.index(w.at_chance_from) == d.index(w.solved_up_to) + 1, m
    early = [m for m, w in walls.items() if w.at_chance_from <= w.sees_up_to]
    assert early  # the text the chart contradicted ("exactly where its field ends")
    for lang in ("en", "zh"):
        at = make_app("pages/path_length.py", lang=lang, part="probes").run(timeout=120)
        assert not at.exception
        start = f"**{translate('shell.try', lang)}**"
        (text,) = [str(i.value) for i in at.info if str(i.value).startswith(start)]
        assert translate("path_length.probes.blind", lang) in text
        for m, w in walls.items():
            item = translate(
                "path_length.probes.wall",
                lang,
                name=lexicon.name(m, lang),
                acc=f"{min(s[m][: d.index(w.solved_up_to) + 1]):.0%}",
                solved=w.solved_up_to,
                lost=w.at_chance_from,
                sees=w.sees_up_to,
            )
            assert item in text, (item, text)
        joiner = "、" if lang == "zh" else " and "
        names = joiner.join(lexicon.name(m, lang) for m in early)
        assert translate("path_length.probes.early", lang, names=names) in text
        assert "exactly where" not in text and "恰好" not in text
