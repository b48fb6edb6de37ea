"""The class poll's questions: both catalogues, the lesson parts, and every answer recomputed.

Each model question's answer is recomputed here by a second route (other functions of the
code base, or the model called directly), never through ``solve()``, and must equal the
answer ``solve()`` reveals. The whole file takes about a minute on a quiet machine; the
held-out test split (built once per process, ~10-20 s) is the slowest part.
"""

from __future__ import annotations

import math
import re
import string

import numpy as np
import pytest
import torch

from core import corpus, evaluate, lexicon, zoo
from core.i18n import load_catalogue, translate
from poll import questions as pq
from ui.nav import PAGES

LANGS = ("en", "zh")
_SOLVED: dict[str, pq.Solution] = {}


def solved(qid: str) -> pq.Solution:
    """solve() once per question per test run (the UI caches it per server the same way)."""
    if qid not in _SOLVED:
        _SOLVED[qid] = pq.BY_ID[qid].solve()
    return _SOLVED[qid]


def revealed(qid: str) -> str:
    q = pq.BY_ID[qid]
    return q.answers[solved(qid).correct]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# --- the list itself ---------------------------------------------------------------------------


def test_at_least_ten_questions_one_per_lesson_page():
    assert len(pq.QUESTIONS) >= 10
    assert len(pq.BY_ID) == len(pq.ALL), "question ids must be unique"
    # the live race's question is answered by the run the class watches, not a shipped model
    lesson = [p.slug for p in PAGES if p.listed and p.parts and p.slug != "live"]
    assert len(lesson) == 8
    for slug in lesson:
        assert any(q.slug == slug for q in pq.QUESTIONS), f"no question on the page {slug}"
    assert not any(q.run_bound for q in pq.QUESTIONS)
    race = pq.for_part("live", "race")
    assert race and all(q.run_bound for q in race) and set(race) <= set(pq.ALL)
    assert len(pq.BY_ID) == len(pq.ALL)


@pytest.mark.parametrize("q", pq.ALL, ids=lambda q: q.id)
def test_question_is_well_formed(q):
    parts = {p.slug: p.parts for p in PAGES}
    assert q.part in parts.get(q.slug, ()), f"{q.slug}/{q.part} is not a part in ui.nav.PAGES"
    assert q in pq.for_part(q.slug, q.part)
    assert 2 <= len(q.answers) <= 5
    assert len(set(q.answers)) == len(q.answers)
    for lang in LANGS:
        cat = load_catalogue(lang)
        assert cat.get(f"poll.q.{q.id}.text"), f"{lang}: no text for {q.id}"
        assert cat.get(f"poll.q.{q.id}.why"), f"{lang}: no explanation for {q.id}"
        labels = q.answer_labels(lambda k, cat=cat: cat[k])  # KeyError: a missing answer
        assert len(set(labels)) == len(labels) and all(labels)
    # both languages fill in the same numbers
    assert fields(load_catalogue("en")[f"poll.q.{q.id}.why"]) == fields(
        load_catalogue("zh")[f"poll.q.{q.id}.why"]
    )


@pytest.mark.parametrize("q", [q for q in pq.QUESTIONS if q.keyed], ids=lambda q: q.id)
def test_keyed_model_answers_read_as_the_lexicon_names(q):
    for i, answer in enumerate(q.answers):
        if lexicon.known(answer):
            for lang in LANGS:
                assert load_catalogue(lang)[f"poll.q.{q.id}.a{i}"] == lexicon.name(answer, lang)


def _race(attention: float, plain: float):
    """A finished live race whose longest bucket ended at these token accuracies (%)."""
    from poll.runs import Run

    buckets = ["1-10", "11-20", "21-30"]
    acc = {
        "attention": {"token": dict(zip(buckets, (90.0, 80.0, attention), strict=True))},
        "plain": {"token": dict(zip(buckets, (88.0, 70.0, plain), strict=True))},
    }
    result = {
        "buckets": buckets,
        "final_acc": acc,
        "steps_done": 500,
        "elapsed": 41.0,
        "finished": 1.0,
    }
    return Run("ABCDEFGH", {"max_len": 30}, "done", [], result, False, 0.0, 0.0)


@pytest.mark.parametrize(
    "attention, plain, verdict",
    [(40.0, 22.5, "attention"), (30.0, 36.0, "plain"), (31.0, 27.0, "tie"), (25.0, 25.0, "tie")],
)
def test_the_live_question_is_answered_by_the_race_itself(attention, plain, verdict):
    from core import live

    q = pq.BY_ID["live_winner"]
    assert q.run_bound and q.answers == live.VERDICTS
    sol = q.solve(_race(attention, plain))
    # the verdict by its own rule: more than TIE points ahead on the longest bucket wins
    lead = attention - plain
    expected = "attention" if lead > live.TIE else "plain" if lead < -live.TIE else "tie"
    assert expected == verdict and q.answers[sol.correct] == verdict
    # the bars show the numbers the words say (whole percentages)
    assert sol.evidence == {"live_plain": round(plain), "live_attention": round(attention)}
    assert all(lexicon.known(name) for name in sol.evidence)
    assert sol.values["bucket"] == "21-30" and sol.values["d"] == abs(
        round(attention) - round(plain)
    )
    # the reveal says what the race's own page said at its end: the same words, same numbers
    said, values = live.story(_race(attention, plain).result)
    assert sol.story == f"live.race.end.{said}" and sol.values == values
    for lang in LANGS:
        text = load_catalogue(lang)[sol.story].format(**sol.values)
        assert f"{attention:.0f}%" in text and f"{plain:.0f}%" in text and "21-30" in text


def test_question_texts_state_the_numbers_solve_uses():
    en = load_catalogue("en")
    length, _ = pq.arena_sentence()
    assert "{words}-word" in en["poll.q.arena_exact.text"]  # filled from the arena's default
    assert f"{length}-word" in pq.BY_ID["arena_exact"].text(lambda k, **q: translate(k, "en", **q))
    assert f"d = {pq.CNN_DISTANCE}" in en["poll.q.cnn_probe.text"]
    assert f"{pq.CNN_DISTANCE} steps back" in en["poll.evidence.probe_at_20"]
    assert f"{pq.FAR_DISTANCE} steps" in en["poll.q.probe_far.text"]
    assert f"{pq.FAR_DISTANCE} steps back" in en["poll.evidence.probe_at_50"]
    assert f"set to {pq.RNN_RADIUS}" in en["poll.q.rnn_fade.text"]
    assert f"{pq.RNN_DISTANCE} steps back" in en["poll.q.rnn_fade.text"]
    text = {q.id: q.text(lambda key, **quotes: en[key].format(**quotes)) for q in pq.QUESTIONS}
    assert f"“{' '.join(pq.LM_PROMPT)}”" in text["lm_next"]
    assert f"“{pq.HUNGRY}”" in text["attention_cat"] and "因为 猫 饿 了" in text["attention_cat"]
    assert f"“{pq.SWEET}”" in text["attention_milk"] and "因为 牛奶 很 甜" in text["attention_milk"]


# --- every solve() gives a valid answer whose explanation formats ---------------------------


# The first question here that reads the held-out split builds it (~10-20 s).
@pytest.mark.parametrize("q", pq.QUESTIONS, ids=lambda q: q.id)
def test_solve_gives_an_answer_and_its_evidence(q):
    sol = solved(q.id)
    assert isinstance(sol.correct, int) and 0 <= sol.correct < len(q.answers)
    assert sol.evidence and all(math.isfinite(v) for v in sol.evidence.values())
    if sol.log_y:
        assert all(v > 0 for v in sol.evidence.values())
    for lang in LANGS:
        cat = load_catalogue(lang)
        assert cat.get(sol.evidence_key), f"{lang}: no evidence title {sol.evidence_key}"
        text = cat[f"poll.q.{q.id}.why"].format(**dict(q.quotes), **sol.values)
        assert not re.search(r"[{}]", text), text
        text = cat[f"poll.q.{q.id}.text"].format(**dict(q.quotes))
        assert not re.search(r"[{}]", text), text
    # evidence bars named by model are answers of a keyed question (shown by their names)
    # or models of the lexicon (shown by lexicon.name)
    for label in sol.evidence:
        assert not label.startswith(("probe_", "gru_", "lm_")) or lexicon.known(label)


def test_solve_is_deterministic():
    for qid in ("attention_cat", "rnn_fade", "probe_far"):
        again = pq.BY_ID[qid].solve()
        assert again == solved(qid)


# --- each answer recomputed by another route ----------------------------------------------


def test_formula_answers():
    # kernel 3: L layers span 1 + 2L words; words 1 and 40 share a window from 1 + 2L >= 40
    assert revealed("cnn_layers") == "20"
    assert solved("cnn_layers").values["layers"] == math.ceil(39 / 2)
    # between words 1 and 50: 49 recurrent steps, ceil(49 / 2) = 25 conv layers, 1 attention
    assert revealed("path_longest") == "recurrent"


def test_lm_next_word_recomputed():
    from core.analysis.autoregressive import lm_generate

    src_vocab, _ = zoo.load_vocabs()
    steps = lm_generate(zoo.load_model("lm_gru"), src_vocab.encode(pq.LM_PROMPT), max_new=1)
    word = src_vocab.tokens[steps[0].chosen]
    assert word == revealed("lm_next") == "wear"
    # the wrong answers are words the model knows (it could have written them)
    assert all(w in src_vocab for w in pq.LM_WORDS)


# Builds the held-out split if no earlier test did (~10-20 s), then decodes 500 sentences.
def test_gru_bucket_recomputed():
    src_vocab, tgt_vocab = zoo.load_vocabs()
    model = zoo.load_model(pq.BUCKET_MODEL)
    test = corpus.shared_splits(zoo.load_manifest()["corpus"]["seed"]).test
    first = None
    for bucket in corpus.BUCKETS:
        pairs = [p for p in test if corpus.length_bucket(len(p.src)) == bucket]
        pairs = pairs[: pq.BUCKET_SAMPLE]
        assert len(pairs) == pq.BUCKET_SAMPLE
        outs = evaluate.decode_ids(model, [src_vocab.encode(p.src, eos=True) for p in pairs])
        exact = np.mean([o == tgt_vocab.encode(p.tgt) for o, p in zip(outs, pairs)])
        if first is None and exact < pq.BUCKET_BELOW:
            first = bucket
    assert first == revealed("gru_bucket") == "11-20"
    # the sample agrees with the whole test split (the manifest's held-out numbers)
    full = zoo.model_info(pq.BUCKET_MODEL)["metrics"]["by_length"]
    full_first = next(b for b in corpus.BUCKETS if full[b]["exact"] < pq.BUCKET_BELOW)
    assert full_first == first


def test_ngram_table_recomputed():
    src_vocab, _ = zoo.load_vocabs()
    v = len(src_vocab) - 4  # the models' English vocabulary, without pad/bos/eos/unk
    assert solved("ngram_table").values["v"] == v
    power = round(pq.NGRAM_N * math.log10(v))
    assert revealed("ngram_table") == pq.power_label(power) == "10¹⁰"


def test_cnn_probe_recomputed():
    acc = {n: evaluate.distance_accuracy(zoo.load_model(n)) for n in pq.CNN_PROBES}
    at = {n: a[str(pq.CNN_DISTANCE)] for n, a in acc.items()}
    smallest = next(n for n in pq.CNN_PROBES if at[n] >= pq.CNN_SOLVED)
    assert smallest == revealed("cnn_probe") == "probe_cnn8"
    # a plausible wrong answer: the 4-layer CNN still solves distance 10
    assert acc["probe_cnn4"]["10"] >= pq.CNN_SOLVED


def test_rnn_fade_recomputed():
    from core.analysis import rnn_gradients as rg

    cell = rg.fresh_cell("rnn", pq.RNN_RADIUS, hidden=pq.RNN_HIDDEN, seed=pq.RNN_SEED)
    xs = rg.sequence_inputs(pq.RNN_LENGTH, cell.w_ih.shape[1], pq.RNN_SEED) * pq.RNN_DRIVE
    states = rg.unroll(cell, xs)  # (L+1, H): position t is the state after input t
    start = pq.RNN_LENGTH - pq.RNN_DISTANCE

    def forward(s):
        for t in range(start, pq.RNN_LENGTH):
            s = rg.step(cell, s, xs[t])
        return s

    jac = torch.autograd.functional.jacobian(forward, states[start])  # (H, H) by autograd
    left = float(np.linalg.norm(jac.numpy(), 2))
    assert 0 < left < 1e-2 <= 0.1
    assert revealed("rnn_fade") == pq.RNN_BINS[2]
    assert solved("rnn_fade").evidence[str(pq.RNN_DISTANCE)] == pytest.approx(left, rel=1e-6)


def test_probe_far_recomputed():
    acc = {n: evaluate.distance_accuracy(zoo.load_model(n)) for n in pq.FAR_PROBES}
    at = {n: a[str(pq.FAR_DISTANCE)] for n, a in acc.items()}
    best = max(at, key=at.get)
    assert best == revealed("probe_far") == "probe_attention"
    assert at["probe_attention"] > 0.9 > max(at["probe_rnn"], at["probe_cnn8"])


@pytest.mark.parametrize(
    ("qid", "english", "token", "expected"),
    [("attention_cat", pq.HUNGRY, "猫", "cat"), ("attention_milk", pq.SWEET, "牛奶", "milk")],
)
def test_attention_word_recomputed(qid, english, token, expected):
    from core.translate import translate_tokens

    src_vocab, tgt_vocab = zoo.load_vocabs()
    model = zoo.load_model(pq.ATTENTION_MODEL)
    run = translate_tokens(model, english.split(), src_vocab, tgt_vocab)
    ref = next(p for p in corpus.LESSON_PAIRS if " ".join(p.src) == english)
    (step, want), *_ = ref.check
    assert want == token and run.output[step] == token  # the model writes it where it should
    row = run.attention[step]  # over the English words + EOS
    options = pq.BY_ID[qid].answers
    looks = {w: sum(a for s, a in zip(run.source, row) if s == w) for w in options}
    assert max(options, key=looks.get) == revealed(qid) == expected
    # "it" itself is a plausible guess, and clearly not where the model looks
    assert looks["it"] < looks[expected] / 2


def test_arena_exact_recomputed():
    from core.analysis.arena import grammar_pair

    src_vocab, tgt_vocab = zoo.load_vocabs()
    length, seed = pq.arena_sentence()
    pair = grammar_pair(seed, length)
    assert len(pair.src) == length
    exact = [
        name
        for name in zoo.TRANSLATION_MODELS
        if evaluate.translate(zoo.load_model(name), [pair], src_vocab, tgt_vocab)[0]
        == list(pair.tgt)
    ]
    assert sorted(exact) == sorted(("gru_attention", "cnn_s2s", "transformer"))
    assert revealed("arena_exact") == pq.ARENA_COUNTS[pq.count_label(len(exact))] == "3"


def test_count_labels_cover_zero_to_every_model():
    total = len(zoo.TRANSLATION_MODELS)
    for n in range(total + 1):
        label = pq.ARENA_COUNTS[pq.count_label(n)]
        lo, _, hi = label.partition("–")
        assert int(lo) <= n <= int(hi or lo)
    assert pq.ARENA_COUNTS[-1].endswith(str(total))  # the last answer is "all of them"
    with pytest.raises(ValueError, match="no answer"):
        pq.count_label(total + 1)
    # the question names how many models there are, in words, in both languages
    words = {"en": {6: "all six", 7: "all seven"}, "zh": {6: "全部六个", 7: "全部七个"}}
    for lang in LANGS:
        assert words[lang][total] in load_catalogue(lang)["poll.q.arena_exact.text"]
