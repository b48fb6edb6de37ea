"""The class-poll questions: a fixed list of answers, and the answer computed at reveal time.

Each question belongs to a part (``slug``, ``part``); its texts are catalogue keys
(``poll.q.<id>.text``, ``.why``, answers ``.a<i>`` or literal labels that read the same in
both languages). ``solve()`` computes the answer from the shipped models or the page's
formula, never typed in, with its ``evidence`` (one bar per answer or model, drawn beside
the class's histogram). No streamlit here: the UI caches ``solve`` per question. A
``run_bound`` question (the live race's) is answered by the race the class watched:
``solve(run)`` reads that run's own result, never a shipped model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.analysis import arena_default
from core.corpus import BUCKETS, lesson

if TYPE_CHECKING:  # the poll's questions load with every page, numpy with a page's chart
    import numpy as np


@dataclass(frozen=True)
class Solution:
    correct: int  # index into the question's answers
    evidence: dict[str, float]  # label -> value: the chart that proves the answer
    evidence_key: str  # catalogue key of the evidence chart's title
    values: dict[str, object] = field(default_factory=dict)  # fills poll.q.<id>.why
    log_y: bool = False  # draw the evidence on a log scale
    story: str = ""  # a catalogue key said after .why with the same values (a race's own words)


@dataclass(frozen=True)
class Question:
    id: str
    slug: str  # the lesson page that asks it
    part: str | None  # its part (the deep link after the reveal)
    answers: tuple[str, ...]  # literal labels, or catalogue keys when ``keyed``
    solve: Callable[..., Solution]  # (): from the shipped models; (run): see run_bound
    keyed: bool = False  # answers are catalogue keys poll.q.<id>.a<i>
    run_bound: bool = False  # answered by the live race the class watched: solve(run)
    run_kind: str = "translation"  # which race answers it (poll.runs.KINDS)
    quotes: tuple[tuple[str, str], ...] = ()  # the lesson's words its .text and .why quote

    def text(self, translate: Callable[..., str]) -> str:
        """The question, its quotes filled in."""
        return translate(f"poll.q.{self.id}.text", **dict(self.quotes))

    def answer_labels(self, translate: Callable[[str], str]) -> list[str]:
        if self.keyed:
            return [translate(f"poll.q.{self.id}.a{i}") for i in range(len(self.answers))]
        return list(self.answers)


# --- formulas: what the pages draw -----------------------------------------------------------


def _cnn_layers() -> Solution:
    """Kernel 3, words 1 and 40: the stack's receptive field 1 + L(k-1) must reach 40."""
    from core.analysis import receptive_field as rf

    options = (5, 10, 20, 39)
    fields = {f"{layers}": float(rf.theoretical_field(layers, 3)) for layers in options}
    fewest = rf.first_shared_layer(0, 39, 3)  # the page's own reading: one window holds both
    return Solution(
        correct=min(i for i, layers in enumerate(options) if layers >= fewest),
        evidence=fields,
        evidence_key="poll.evidence.field",
        values={"layers": fewest, "field": rf.theoretical_field(fewest, 3)},
    )


def _path_rnn() -> Solution:
    """Maximum path length between word 1 and word 50 in each layer type (Vaswani Table 1)."""
    from core.analysis import path_length as pl

    n, k = 50, 3
    steps = {arch: pl.max_path(arch, n, k) for arch in pl.ARCHITECTURES}
    options = ("self_attention", "recurrent", "conv")
    values = [steps[a] for a in options]
    return Solution(
        correct=values.index(max(values)),
        evidence={a: float(steps[a]) for a in options},
        evidence_key="poll.evidence.steps",
        values={"n": n, "k": k, **{a: steps[a] for a in options}},
    )


# --- the shipped models: what they do, measured now ------------------------------------------
# Every definition a question depends on is a constant here, so a test can recompute the
# answer from the same inputs by another route.

# autoregressive / lm: the language model's next word after a prompt, greedy
LM_PROMPT: tuple[str, ...] = tuple(lesson.AUTOREGRESSION_PROMPT.split())
LM_WORDS: tuple[str, ...] = ("eat", "wear", "sleep", "buy")


def _lm_next() -> Solution:
    """What the GRU language model writes next after "you should" (greedy: the likeliest)."""
    import torch

    from core import evaluate, zoo

    src_vocab, _ = zoo.load_vocabs()
    lm = zoo.load_model("lm_gru")
    written = evaluate.greedy_continue(lm, src_vocab, LM_PROMPT, max_new=1)[0]
    with torch.inference_mode():
        logits, _, _ = lm(torch.tensor([src_vocab.encode(LM_PROMPT, bos=True)]))
        probs = torch.softmax(logits[0, -1].double(), -1)  # (V,)
    chance = {w: float(probs[src_vocab.id(w)]) for w in LM_WORDS}
    if written not in LM_WORDS:
        raise ValueError(f"the language model writes {written!r}, not one of {LM_WORDS}")
    return Solution(
        correct=LM_WORDS.index(written),
        evidence=chance,
        evidence_key="poll.evidence.next_word",
        values={"word": written, "p": f"{chance[written]:.0%}"},
    )


# bottleneck / length: exact match of the plain GRU (C = 256) by length, on the test split
BUCKET_MODEL = "gru_plain_256"
BUCKET_SAMPLE = 100  # the first sentences of each length bucket of the held-out test split
BUCKET_BELOW = 0.5


def bucket_sample(test) -> list:
    """The first ``BUCKET_SAMPLE`` test pairs of every length bucket, bucket by bucket."""
    from core import corpus

    out = []
    for bucket in corpus.BUCKETS:
        out += [p for p in test if corpus.length_bucket(len(p.src)) == bucket][:BUCKET_SAMPLE]
    return out


def _gru_bucket() -> Solution:
    """The first length bucket where the plain GRU with C = 256 gets under half exactly right."""
    from core import corpus, evaluate, zoo

    src_vocab, tgt_vocab = zoo.load_vocabs()
    seed = zoo.load_manifest()["corpus"]["seed"]
    pairs = bucket_sample(corpus.shared_splits(seed).test)  # warmed up by the server
    outputs = evaluate.translate(zoo.load_model(BUCKET_MODEL), pairs, src_vocab, tgt_vocab)
    exact = {b: s["exact"] for b, s in evaluate.by_length(pairs, outputs)["by_length"].items()}
    buckets = list(corpus.BUCKETS)
    first = next(i for i, b in enumerate(buckets) if exact[b] < BUCKET_BELOW)
    return Solution(
        correct=first,
        evidence=exact,
        evidence_key="poll.evidence.exact_by_length",
        values={
            "n": BUCKET_SAMPLE,
            "bucket": buckets[first],
            "exact": f"{exact[buckets[first]]:.0%}",
            "before": buckets[max(first - 1, 0)],
            "exact_before": f"{exact[buckets[max(first - 1, 0)]]:.0%}",
        },
    )


# compression / markov: how many 4-grams the training vocabulary could form
NGRAM_N = 4
POWERS: tuple[int, ...] = (4, 7, 10, 13)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_label(e: int) -> str:
    """10 to the power ``e`` as students write it: 10¹⁰, 10⁻³."""
    return "10" + str(e).translate(_SUPERSCRIPT).replace("-", "⁻")


def sci(x: float) -> str:
    """A number in scientific notation as students write it: 1.8 × 10¹⁰, 4.0 × 10⁻³."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa} × {power_label(int(exponent))}"


def _ngram_table() -> Solution:
    """V^4 for the English words of the training text, to the nearest power of ten."""
    import math

    from core import corpus, zoo
    from core.analysis import ngram

    seed = zoo.load_manifest()["corpus"]["seed"]
    coded = ngram.code([p.src for p in corpus.shared_splits(seed).train])
    v = coded.n_words
    possible = float(v) ** NGRAM_N
    tokens = int((coded.ids > ngram.EOS).sum())  # word tokens of the training text
    power = math.log10(possible)
    nearest = min(range(len(POWERS)), key=lambda i: abs(POWERS[i] - power))
    return Solution(
        correct=nearest,
        evidence={f"n = {n}": float(v) ** n for n in range(1, NGRAM_N + 1)},
        evidence_key="poll.evidence.ngrams",
        values={
            "v": v,
            "possible": sci(possible),
            "tokens": f"{tokens:,}",
            "ratio": f"{possible / tokens:,.0f}",
        },
        log_y=True,
    )


# cnn_receptive_field / probes: the smallest CNN probe that still finds a key d symbols back
CNN_PROBES: tuple[str, ...] = ("probe_cnn2", "probe_cnn4", "probe_cnn8")
CNN_DISTANCE = 20
CNN_SOLVED = 0.5  # the page's "solved" level (chance is 1 / 10)


def probe_accuracy(name: str, distance: int) -> float:
    """A distance probe's accuracy on the fixed held-out set at one distance."""
    import torch

    from core import probes_data, zoo

    x, y = probes_data.eval_set(distance)
    with torch.inference_mode():
        logits, _ = zoo.load_model(name)(x)
    return float((logits.argmax(-1) == y).float().mean())


def _cnn_probe() -> Solution:
    from core import zoo
    from core.models.probes import ProbeConfig

    acc = {name: probe_accuracy(name, CNN_DISTANCE) for name in CNN_PROBES}
    ok = [i for i, name in enumerate(CNN_PROBES) if acc[name] >= CNN_SOLVED]
    fields = {n: ProbeConfig(**zoo.model_info(n)["config"]).receptive_field for n in CNN_PROBES}
    return Solution(
        correct=ok[0] if ok else len(CNN_PROBES),  # the last answer: none of them
        evidence=acc,
        evidence_key="poll.evidence.probe_at_20",
        values={
            "d": CNN_DISTANCE,
            **{f"acc{i}": f"{acc[n]:.0%}" for i, n in enumerate(CNN_PROBES)},
            **{f"field{i}": fields[n] for i, n in enumerate(CNN_PROBES)},
        },
    )


# rnn_gradients / fresh: the page's default view (plain RNN, H = 64, T = 60, inputs of
# standard deviation 0.1, seed 0), at rho = 0.9: what is left of the gradient 50 steps back
RNN_RADIUS = 0.9
RNN_DISTANCE = 50
RNN_HIDDEN, RNN_LENGTH, RNN_DRIVE, RNN_SEED = 64, 60, 0.1, 0
RNN_BINS: tuple[str, ...] = ("> 10⁻¹", "10⁻² … 10⁻¹", "< 10⁻²")


def rnn_norms() -> np.ndarray:
    """‖∂h_T/∂h_t‖ by distance T − t for the page's default fresh plain RNN. (L,)"""
    from core.analysis import rnn_gradients as rg

    cell = rg.fresh_cell("rnn", RNN_RADIUS, hidden=RNN_HIDDEN, seed=RNN_SEED)
    xs = rg.sequence_inputs(RNN_LENGTH, cell.w_ih.shape[1], RNN_SEED) * RNN_DRIVE
    return rg.state_jacobian_norms(cell, xs)


def _rnn_fade() -> Solution:
    norms = rnn_norms()
    left = float(norms[RNN_DISTANCE])
    correct = 0 if left > 1e-1 else 1 if left >= 1e-2 else 2
    return Solution(
        correct=correct,
        evidence={str(d): float(norms[d]) for d in range(0, RNN_DISTANCE + 1, 10)},
        evidence_key="poll.evidence.gradient_left",
        values={
            "power": f"{RNN_RADIUS}{str(RNN_DISTANCE).translate(_SUPERSCRIPT)}",  # 0.9⁵⁰
            "left": sci(left),
            "bound": sci(RNN_RADIUS**RNN_DISTANCE),
        },
        log_y=True,
    )


# path_length / probes: which probe recalls a key far back most often
FAR_PROBES: tuple[str, ...] = ("probe_rnn", "probe_cnn8", "probe_attention")
FAR_DISTANCE = 50


def _probe_far() -> Solution:
    acc = {name: probe_accuracy(name, FAR_DISTANCE) for name in FAR_PROBES}
    best = max(FAR_PROBES, key=lambda n: acc[n])
    return Solution(
        correct=FAR_PROBES.index(best),
        evidence=acc,
        evidence_key="poll.evidence.probe_at_50",
        values={
            "d": FAR_DISTANCE,
            **{f"acc{i}": f"{acc[n]:.0%}" for i, n in enumerate(FAR_PROBES)},
        },
    )


# attention / align and pairs: where GRU + attention looks while it writes the deciding word
ATTENTION_MODEL = "gru_attention"


def attention_row(english: str, token: str) -> tuple[dict[str, float], bool]:
    """GRU + attention's weights over the English words ({word: weight}, repeated words
    summed) at the step that writes ``token`` in its greedy translation of ``english``
    (the corpus' own step for it when the model writes it there), and whether it wrote it."""
    from core import zoo
    from core.analysis import attention as A

    src_vocab, tgt_vocab = zoo.load_vocabs()
    words = english.split()
    run = A.run_attention(
        zoo.load_model(ATTENTION_MODEL), src_vocab.encode(words, eos=True), words, tgt_vocab.tokens
    )
    pair = A.corpus_pair(english)
    hint = next((i for i, tok in pair.check if tok == token), None) if pair else None
    step = A.token_step(run.output, token, hint)
    if step is None:
        return {}, False
    weights: dict[str, float] = {}
    for word, w in zip(run.source, A.select_heads(run.cross, 0, None)[step], strict=True):
        weights[word] = weights.get(word, 0.0) + float(w)
    return weights, True


def _attention_looks(english: str, token: str, options: tuple[str, ...]) -> Solution:
    weights, wrote = attention_row(english, token)
    if not wrote:
        raise ValueError(f"{ATTENTION_MODEL} does not write {token} for {english!r}")
    best = max(options, key=lambda w: weights.get(w, 0.0))
    return Solution(
        correct=options.index(best),
        evidence=weights,
        evidence_key="poll.evidence.attention_row",
        values={
            "word": best,
            "w": f"{weights[best]:.0%}",
            "it": f"{weights.get('it', 0.0):.0%}",
        },
    )


HUNGRY = lesson.CAT_HUNGRY.en
SWEET = lesson.CAT_SWEET.en
CAT_OPTIONS: tuple[str, ...] = ("it", "cat", "hungry", "because")
MILK_OPTIONS: tuple[str, ...] = ("it", "milk", "sweet", "because")


def _reference_quotes(sentence: lesson.LessonSentence) -> tuple[tuple[str, str], ...]:
    """The sentence and its reference translation from 因为 on, where "it" is resolved."""
    words = sentence.zh_words
    return (("sentence", sentence.en), ("reference_tail", " ".join(words[words.index("因为") :])))


def _attention_cat() -> Solution:
    return _attention_looks(HUNGRY, "猫", CAT_OPTIONS)


def _attention_milk() -> Solution:
    return _attention_looks(SWEET, "牛奶", MILK_OPTIONS)


# arena / sentence: how many of the seven models translate the arena's long sentence exactly
def arena_sentence() -> tuple[int, int]:
    """(length, seed) of the grammar sentence the arena opens with (its search found it)."""
    return arena_default.DEFAULT_LENGTH, arena_default.DEFAULT_SEED


ARENA_COUNTS: tuple[str, ...] = ("0", "1–2", "3", "4–5", "6–7")  # zoo.TRANSLATION_MODELS: 7
A_PLAIN: tuple[str, ...] = ("gru_plain_32", "gru_plain_128", "gru_plain_256")


def count_label(n: int) -> int:
    """The index of the answer (:data:`ARENA_COUNTS`) that holds ``n`` exact models."""
    for i, label in enumerate(ARENA_COUNTS):
        lo, _, hi = label.partition("–")
        if int(lo) <= n <= int(hi or lo):
            return i
    raise ValueError(f"no answer holds {n} models; ARENA_COUNTS is {ARENA_COUNTS}")


def _arena_exact() -> Solution:
    from core import zoo
    from core.analysis import arena as A
    from core.translate import translate_tokens

    src_vocab, tgt_vocab = zoo.load_vocabs()
    length, seed = arena_sentence()
    pair = A.grammar_pair(seed, length)
    scores = {}
    for name in zoo.TRANSLATION_MODELS:
        out = translate_tokens(zoo.load_model(name), pair.src, src_vocab, tgt_vocab).output
        scores[name] = A.sentence_scores(out, pair.tgt)
    n_exact = sum(s["exact"] == 1 for s in scores.values())
    return Solution(
        correct=count_label(n_exact),
        evidence={name: s["edit_acc"] for name, s in scores.items()},
        evidence_key="poll.evidence.edit_acc",
        values={
            "n": n_exact,
            "total": len(scores),
            "length": length,
            "best_plain": f"{max(scores[m]['edit_acc'] for m in A_PLAIN):.0%}",
        },
    )


# --- the live race: the run itself answers ---------------------------------------------------


def _live_winner(run) -> Solution:
    """Who was ahead on the longest sentences when ``run`` (a finished
    :class:`poll.runs.Run` of the live race) ended: its own held-out accuracies, and the
    words its page says about them (:func:`core.live.story`)."""
    from core import live

    said, values = live.story(run.result)
    return Solution(
        correct=live.VERDICTS.index(live.verdict(run.result)),
        evidence={"live_plain": values["p"], "live_attention": values["a"]},
        evidence_key="poll.evidence.live_long",
        values=values,
        story=f"live.race.end.{said}",
    )


LIVE_VERDICTS = ("plain", "attention", "tie")  # core.live.VERDICTS (no torch import here)
LIVE_WHEN = ("early", "middle", "late", "never")  # core.live_coref.WHEN
IT_EARLY, IT_LATE = 100, 200  # core.live_coref.EARLY, LATE: the answers' steps (a test)


def _live_it(run) -> Solution:
    """When the "it" race (a finished :class:`poll.runs.Run` of kind ``coref``) first had
    its head choose the right noun in both lesson sentences ("cat" when hungry, "milk" when
    sweet, by the resolving margin), read from the run's own check after every step; the
    evidence: the
    weight "it" put on the right noun in each lesson sentence when the run ended."""
    from core import live_coref

    said, values = live_coref.story(run.result)
    rows = run.result["lesson"]
    names = {"hungry": "hungry → cat", "sweet": "sweet → milk"}
    return Solution(
        correct=live_coref.WHEN.index(live_coref.when(run.result)),
        evidence={names[p]: rows[p]["right"] for p in names},
        evidence_key="poll.evidence.live_it",
        values=values,
        story=f"live.it.end.{said}",
    )


RACE_QUESTIONS: tuple[Question, ...] = (
    Question(
        "live_winner", "live", "race", LIVE_VERDICTS, _live_winner, keyed=True, run_bound=True
    ),
    Question(
        "live_it",
        "live",
        "race",
        LIVE_WHEN,
        _live_it,
        keyed=True,
        run_bound=True,
        run_kind="coref",
        quotes=(("pair", f"{HUNGRY} / {SWEET.split()[-1]}"),),  # the lesson's pair, as one
    ),
)

QUESTIONS: tuple[Question, ...] = (
    Question(
        "lm_next",
        "autoregressive",
        "lm",
        LM_WORDS,
        _lm_next,
        quotes=(("prompt", lesson.AUTOREGRESSION_PROMPT), ("sentence", lesson.WEAR_SHOES.en)),
    ),
    Question("gru_bucket", "bottleneck", "length", tuple(BUCKETS), _gru_bucket),
    Question("ngram_table", "compression", "markov", tuple(map(power_label, POWERS)), _ngram_table),
    Question("cnn_layers", "cnn_receptive_field", "theory", ("5", "10", "20", "39"), _cnn_layers),
    Question(
        "cnn_probe", "cnn_receptive_field", "probes", (*CNN_PROBES, "none"), _cnn_probe, keyed=True
    ),
    Question("rnn_fade", "rnn_gradients", "fresh", RNN_BINS, _rnn_fade),
    Question(
        "path_longest",
        "path_length",
        "table",
        ("self_attention", "recurrent", "conv"),
        _path_rnn,
        keyed=True,
    ),
    Question("probe_far", "path_length", "probes", FAR_PROBES, _probe_far, keyed=True),
    Question(
        "attention_cat",
        "attention",
        "align",
        CAT_OPTIONS,
        _attention_cat,
        quotes=_reference_quotes(lesson.CAT_HUNGRY),
    ),
    Question(
        "attention_milk",
        "attention",
        "pairs",
        MILK_OPTIONS,
        _attention_milk,
        quotes=_reference_quotes(lesson.CAT_SWEET),
    ),
    Question(
        "arena_exact",
        "arena",
        "sentence",
        ARENA_COUNTS,
        _arena_exact,
        quotes=(("words", str(arena_sentence()[0])),),
    ),
)

ALL: tuple[Question, ...] = QUESTIONS + RACE_QUESTIONS  # the models' answers, then the race's
BY_ID: dict[str, Question] = {q.id: q for q in ALL}


def for_part(slug: str, part: str | None) -> list[Question]:
    """The questions a teacher can ask on this part of the lesson."""
    return [q for q in ALL if q.slug == slug and q.part == part]
