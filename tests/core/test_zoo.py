"""The shipped model zoo: files, checksums, clear errors, and the manifest's own numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from core import corpus, zoo
from core import evaluate as ev
from core.analysis.sensible import sensible

ROOT = Path(__file__).resolve().parents[2]
needs_zoo = pytest.mark.skipif(
    not zoo.MANIFEST_PATH.is_file(), reason="no trained zoo: run python -m core.train --all"
)


@pytest.fixture(scope="module")
def manifest():
    return zoo.load_manifest()


@pytest.fixture(scope="module")
def vocabs():
    return zoo.load_vocabs()


@needs_zoo
def test_every_model_is_shipped_with_a_complete_manifest_entry(manifest):
    assert set(manifest["models"]) == set(zoo.SHIPPED_MODELS)
    total = 0
    for name, entry in manifest["models"].items():
        for key in ("family", "task", "file", "sha256", "params", "config", "data_seed", "steps"):
            assert key in entry, (name, key)
        assert entry["metrics"], name
        assert entry["curve"] and entry["curve"][-1][0] == entry["steps"], name
        path = zoo.ASSETS_DIR / entry["file"]
        assert zoo.sha256_of(path) == entry["sha256"], name
        total += path.stat().st_size
    assert total < 40 * 2**20, f"weights take {total / 2**20:.1f} MiB (limit 40)"


@needs_zoo
@pytest.mark.parametrize("name", zoo.SHIPPED_MODELS)
def test_every_model_loads_ready_for_inference(name, manifest):
    model = zoo.load_model(name)
    assert not model.training
    assert sum(p.numel() for p in model.parameters()) == manifest["models"][name]["params"]


def _copy_zoo(tmp_path: Path) -> Path:
    out = tmp_path / "models"
    shutil.copytree(zoo.ASSETS_DIR, out)
    return out


@needs_zoo
def test_a_corrupted_weight_file_names_the_file_and_the_rebuild_command(tmp_path):
    models = _copy_zoo(tmp_path)
    target = models / "gru_attention.pt"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_model("gru_attention", models_dir=models)
    assert info.value.reason == "checksum"
    assert "gru_attention.pt" in str(info.value)
    assert "python -m core.train --model gru_attention" in str(info.value)


@needs_zoo
def test_a_truncated_file_with_a_matching_checksum_is_reported_corrupt(tmp_path):
    models = _copy_zoo(tmp_path)
    target = models / "transformer.pt"
    target.write_bytes(target.read_bytes()[:1000])
    manifest = json.loads((models / "manifest.json").read_text(encoding="utf-8"))
    manifest["models"]["transformer"]["sha256"] = zoo.sha256_of(target)
    (models / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_model("transformer", models_dir=models)
    assert info.value.reason == "corrupt" and "transformer.pt" in str(info.value)


@needs_zoo
def test_missing_weights_and_missing_or_broken_manifest(tmp_path):
    models = _copy_zoo(tmp_path)
    (models / "cnn_s2s.pt").unlink()
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_model("cnn_s2s", models_dir=models)
    assert info.value.reason == "missing" and "cnn_s2s.pt" in str(info.value)
    (models / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_model("gru_attention", models_dir=models)
    assert info.value.reason == "corrupt" and "manifest.json" in str(info.value)
    (models / "manifest.json").unlink()
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_vocabs(models_dir=models)
    assert info.value.reason == "missing" and info.value.command == "python -m core.train --all"


def test_unknown_model_name_is_a_zoo_error(tmp_path):
    (tmp_path / "manifest.json").write_text('{"models": {}}', encoding="utf-8")
    with pytest.raises(zoo.ZooError) as info:
        zoo.load_model("gpt5", models_dir=tmp_path)
    assert info.value.reason == "unknown_model"


@needs_zoo
@pytest.mark.parametrize("name", zoo.TRANSLATION_MODELS + zoo.EXAMPLE_TRANSLATION_MODELS)
def test_shipped_weights_reproduce_their_manifest_metrics_on_a_fixed_slice(name, manifest, vocabs):
    splits = corpus.shared_splits(manifest["corpus"]["seed"])
    test_slice = list(splits.test[: ev.SLICE_SIZE])
    outputs = ev.translate(zoo.load_model(name), test_slice, *vocabs)
    got = ev.score(outputs, [p.tgt for p in test_slice])
    want = manifest["models"][name]["metrics"]["slice"]
    assert got["n"] == want["n"] == ev.SLICE_SIZE
    assert got["exact"] == pytest.approx(want["exact"], abs=0.011)
    assert got["token_acc"] == pytest.approx(want["token_acc"], abs=0.011)


@needs_zoo
@pytest.mark.parametrize("name", zoo.PROBE_MODELS)
def test_probes_reproduce_their_manifest_distance_curve(name, manifest):
    got = ev.distance_accuracy(zoo.load_model(name))
    want = manifest["models"][name]["metrics"]["distance"]
    assert got.keys() == want.keys()
    for d in got:
        assert got[d] == pytest.approx(want[d], abs=0.011), d


@needs_zoo
@pytest.mark.parametrize("name", ["gru_attention", "transformer"])
def test_the_lessons_sentences_translate_exactly(name, vocabs):
    model = zoo.load_model(name)
    pairs = list(corpus.LESSON_PAIRS)
    outputs = ev.translate(model, pairs, *vocabs)
    for p, out in zip(pairs, outputs):
        assert tuple(out) == p.tgt, (" ".join(p.src), out)


@needs_zoo
def test_the_language_model_continues_you_should(vocabs):
    lm = zoo.load_model("lm_gru")
    assert ev.greedy_continue(lm, vocabs[0], ["you", "should"]) == ["wear", "shoes", "<eos>"]


def _metrics(manifest) -> dict:
    return {k: v["metrics"] for k, v in manifest["models"].items()}


# The measured behaviour the lesson's argument rests on, as recorded at training time
# (test_shipped_weights_reproduce_... checks that the weights still give these numbers).


@needs_zoo
def test_claim_attention_holds_up_at_every_length(manifest):
    m = _metrics(manifest)
    for bucket in corpus.BUCKETS:
        assert m["gru_attention"]["by_length"][bucket]["exact"] >= 0.97, bucket


@needs_zoo
def test_claim_the_plain_bottleneck_breaks_on_long_sentences(manifest):
    m = _metrics(manifest)
    assert m["gru_plain_256"]["by_length"]["1-10"]["exact"] >= 0.90
    assert m["gru_plain_256"]["by_length"]["31-40"]["exact"] <= 0.30
    for bucket in ("1-10", "11-20"):  # a smaller C falls earlier
        small = [m[f"gru_plain_{h}"]["by_length"][bucket]["exact"] for h in (32, 128, 256)]
        assert small == sorted(small) and small[0] < small[-1], (bucket, small)


@needs_zoo
def test_claim_the_transformer_holds_up_on_long_sentences(manifest):
    # what the pages say of it: with no recurrence at all it keeps long sentences whole, as
    # GRU + attention does, where the plain bottleneck fails (the two attention models are
    # not tied: on 41+ words they differ by about 2 points, 11 of 500 sentences)
    m = _metrics(manifest)
    for bucket in corpus.BUCKETS:
        assert m["transformer"]["by_length"][bucket]["exact"] >= 0.95, bucket
    for bucket in ("31-40", "41+"):
        plain = m["gru_plain_256"]["by_length"][bucket]["exact"]
        assert m["transformer"]["by_length"][bucket]["exact"] >= plain + 0.9, bucket


@needs_zoo
def test_claim_coreference_and_word_sense_are_resolved(manifest):
    m = _metrics(manifest)
    for name in ("gru_attention", "transformer"):
        assert m[name]["coref"] >= 0.95 and m[name]["sense"] >= 0.95, name


@needs_zoo
def test_claim_distance_probes(manifest):
    m = _metrics(manifest)
    dist = {k: m[k]["distance"] for k in zoo.PROBE_MODELS}
    assert min(dist["probe_attention"].values()) >= 0.95

    def reach(curve):  # the largest distance still at 0.9 or above
        return max((int(d) for d, a in curve.items() if a >= 0.9), default=0)

    assert reach(dist["probe_cnn2"]) < reach(dist["probe_cnn4"]) < reach(dist["probe_cnn8"])
    for name in ("probe_cnn2", "probe_cnn4", "probe_cnn8"):  # nothing beyond the field
        field = manifest["models"][name]["config"]["layers"] * 4 + 1
        beyond = [a for d, a in dist[name].items() if int(d) >= field]
        assert beyond and max(beyond) < 0.2, name
    longest = str(max(int(d) for d in dist["probe_gru"]))
    assert dist["probe_rnn"][longest] <= dist["probe_gru"][longest] - 0.2


@needs_zoo
def test_translate_cli_prints_json_and_refuses_unknown_words():
    run = [sys.executable, "-m", "core.translate", "--model", "gru_attention"]
    ok = subprocess.run(
        run + ["How are you?"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out == {"source": ["how", "are", "you"], "output": ["你", "好", "吗"], "text": "你好吗"}
    bad = subprocess.run(
        run + ["you should wear shoez"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert bad.returncode == 2
    assert "shoez" in bad.stderr and "shoes" in bad.stderr


def test_translation_scores_are_what_they_say():
    assert ev.score([["a", "b"]], [["a", "b"]]) == {
        "token_acc": 1.0,
        "exact": 1.0,
        "edit_acc": 1.0,
        "n": 1,
    }
    # one inserted token: position-wise accuracy collapses, edit accuracy does not
    s = ev.score([["x", "a", "b", "c"]], [["a", "b", "c"]])
    assert s["exact"] == 0.0 and s["token_acc"] == 0.0 and s["edit_acc"] == 0.75
    assert ev.edit_distance("kitten", "sitting") == 3


def test_probe_task_places_the_key_at_the_requested_distance():
    from core import probes_data as pd

    x, y = pd.eval_set(17, n=50)
    assert x.shape == (50, pd.SEQ_LEN)
    keys = x < pd.N_KEYS
    assert bool((keys.sum(1) == 1).all())
    assert bool((keys[:, pd.SEQ_LEN - 1 - 17]).all())
    assert bool((x[torch.arange(50), pd.SEQ_LEN - 1 - 17] == y).all())
    assert bool((x[:, -1] == pd.QUERY_ID).all())


# The lesson's own examples, re-derived from the shipped weights (a retrain that loses one
# of them fails here).


@needs_zoo
def test_claim_self_attention_resolves_it_in_held_out_frames_and_nouns(manifest, vocabs):
    from core.analysis import coref
    from core.corpus import coref_frames

    model = zoo.load_model("coref_encoder")
    recorded = manifest["models"]["coref_encoder"]["metrics"]
    assert (recorded["layer"], recorded["head"]) == (coref.LAYER, coref.HEAD)
    held = coref.evaluate_cases(model, vocabs[0], coref_frames.held_out_frame_cases())
    assert held.share_resolved(coref.MARGIN) >= coref.RESOLVED_MIN
    assert held.named_ok.mean() >= coref.NAMED_MIN
    assert held.share_resolved(coref.MARGIN) == pytest.approx(recorded["resolved"], abs=0.011)
    assert held.named_ok.mean() == pytest.approx(recorded["named_acc"], abs=0.011)
    # sentences the manifest never measured, from the held-out frame alone
    fresh = coref_frames.held_out_frame_cases(seed=99)
    fresh = [c for c in fresh if c.frame in coref_frames.HELD_OUT_FRAMES]
    got = coref.evaluate_cases(model, vocabs[0], fresh)
    assert got.share_resolved(coref.MARGIN) >= coref.RESOLVED_MIN - 0.05
    assert got.named_ok.mean() >= coref.NAMED_MIN - 0.05
    # the old one-frame test (held-out noun/predicate pairs) still holds
    pairs = coref.evaluate_cases(model, vocabs[0], corpus.coref_cases(2, 400, held_out=True))
    assert pairs.share_resolved(coref.MARGIN) >= 0.95 and pairs.named_ok.mean() >= 0.95


TRANSLATION_RIGHT_NOUN_MIN = 0.95  # the Transformer's noun after 因为 on held-out frames


@needs_zoo
def test_claim_the_transformer_writes_the_right_noun_after_because_in_held_out_frames(
    manifest, vocabs
):
    got = ev.coref_frame_accuracy(zoo.load_model("transformer"), *vocabs)
    recorded = manifest["models"]["transformer"]["metrics"]["coref_frames"]
    assert got == recorded
    assert got["right_noun"] >= TRANSLATION_RIGHT_NOUN_MIN


@needs_zoo
def test_the_gru_with_attention_is_measured_on_the_same_held_out_frames(manifest, vocabs):
    from core.corpus import coref_frames

    got = ev.coref_frame_accuracy(zoo.load_model("gru_attention"), *vocabs)
    assert got == manifest["models"]["gru_attention"]["metrics"]["coref_frames"]
    assert got["n"] == 400 and set(got["by_frame"]) == set(coref_frames.FRAMES)


def test_the_noun_after_because_is_read_from_the_output():
    assert ev.noun_after_because(["猫", "喝", "了", "牛奶", "因为", "猫", "饿", "了"]) == "猫"
    assert ev.noun_after_because(["猫", "喝", "了", "牛奶"]) is None
    assert ev.noun_after_because(["猫", "因为"]) is None


@needs_zoo
def test_claim_the_lessons_it_reads_cat_when_hungry_and_milk_when_sweet(vocabs):
    from core.analysis import coref

    pair = coref.lesson_pair(zoo.load_model("coref_encoder"), vocabs[0])
    for pred, right, wrong in (("hungry", 1, 4), ("sweet", 4, 1)):
        r = pair[pred]
        assert r.named == r.tokens[right]
        assert r.weights[right] - r.weights[wrong] >= 0.1, pred
        assert int(r.weights.argmax()) == right and int(r.scores.argmax()) == right


@needs_zoo
@pytest.mark.timeout(900)  # the search forces every plausible slip: ~30 s on an idle core
def test_claim_one_slip_derails_a_grammatical_sentence_in_the_plain_gru(vocabs):
    from core.analysis import slips

    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    found = slips.derailing_slip(zoo.load_model("gru_plain_256"), *vocabs, test)
    pair = next(p for p in test if " ".join(p.src) == found.text)
    assert pair.kind != "question" and found.own == pair.tgt  # grammatical, right on its own
    assert sensible(pair.src)  # a sentence a person would say
    assert found.prob >= 0.05  # a word the model itself found plausible there
    assert found.edits >= 4 and found.edits >= found.rest / 2  # most of the rest changes


@needs_zoo
def test_claim_the_lessons_you_should_wear_shoes_derails_with_one_forced_word(vocabs):
    """The language model writes the lesson's "wear shoes" after "you should"; with "buy"
    forced in place of "wear" it writes on by itself, and at least half of what follows
    changes (the study's "derailed"): nothing pulls it back to "shoes"."""
    from core.analysis import slips
    from core.corpus import lesson
    from lessons.autoregressive.data import LM_FORCED

    sv, _ = vocabs
    lm = zoo.load_model("lm_gru")
    prompt = sv.encode(lesson.AUTOREGRESSION_PROMPT.split())
    r = slips.lm_slip(lm, prompt, 0, sv.encode([LM_FORCED])[0])
    assert sv.decode(r.own) == list(lesson.WEAR_SHOES.en_words[2:])  # "wear shoes", then EOS
    assert r.changed_share >= slips.DERAIL_SHARE and r.edits >= 2
    assert r.next_forced < r.next_own  # "shoes" is less likely after the slip


@needs_zoo
@pytest.mark.timeout(900)
def test_claim_slips_carry_in_free_generation_and_fade_with_attention(vocabs):
    from core.analysis import slips

    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    pairs = slips.sample_sentences(test, 150, seed=0)
    names = ("gru_plain_256", "gru_attention")
    rows = slips.slip_table(
        {n: zoo.load_model(n) for n in names},
        {"lm_gru": zoo.load_model("lm_gru")},
        vocabs[0],
        pairs,
    )
    s = {r["model"]: r for r in rows}
    assert s["lm_gru"]["derailed"] >= 0.5  # nothing pulls free text back
    assert s["gru_attention"]["recovered"] >= s["gru_plain_256"]["recovered"] + 0.2
    assert s["gru_plain_256"]["derailed"] > s["gru_attention"]["derailed"]


def _long_rows(vocab, n: int = 20) -> list[list[int]]:
    """Source ids of ``n`` seeded declarative test sentences of 40 words or more."""
    import random

    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    pool = [p for p in test if p.kind != "question" and len(p.src) >= 40]
    return [vocab.encode(p.src, eos=True) for p in random.Random(0).sample(pool, n)]


@needs_zoo
@pytest.mark.timeout(900)
def test_claim_the_plain_rnn_translation_model_fades_and_the_gru_does_not(vocabs):
    from core.analysis import influence

    rows = _long_rows(vocabs[0])
    rnn, gru = zoo.load_model("rnn_plain_256"), zoo.load_model("gru_plain_256")
    rnn_ev, gru_ev = influence.fade_evidence(rnn, rows), influence.fade_evidence(gru, rows)
    # the last three words move C this many times more than the first three (median)
    assert rnn_ev.median_fade >= 3.0
    assert gru_ev.median_fade <= 1.5
    rnn_curve, gru_curve = rnn_ev.curve, gru_ev.curve
    assert rnn_curve[30:].max() <= 0.3  # 30+ words back: under a third of the last word's
    assert gru_curve[30:].mean() >= 2 * rnn_curve[30:].mean()


@needs_zoo
def test_claim_the_lessons_sentence_fades_in_the_plain_rnn_only(vocabs):
    from core.analysis import influence

    names = ("rnn_plain_256", "gru_plain_256")
    cmp = influence.compare_fade({n: zoo.load_model(n) for n in names}, vocabs[0])
    assert cmp.choices["rnn_plain_256"].verdict == "fade"  # what the RNN usually does
    assert cmp.choices["gru_plain_256"].verdict == "even"
    assert cmp.curves["rnn_plain_256"]["verdict"] == "fade"
    assert cmp.curves["gru_plain_256"]["verdict"] == "even"
    assert cmp.curves["rnn_plain_256"]["ratio"] < influence.FADE_BELOW
