"""Compressing the past (lesson 1.6): the Markov window, and architectures as priors.

Two parts (``?part=``):

1. ``markov``: an n-gram model reads the last n−1 words only. Its table could hold Vⁿ
   entries, the corpus fills a vanishing share, most long n-grams of new sentences were
   never seen, and the count table cannot look past its window (against the neural
   language model on the same prompt). Main control: the order n.
2. ``priors``: an MLP reads a fixed window with one weight per (position, unit); CNN, RNN
   and attention add assumptions (priors) that share weights. Weights of one layer against
   the context length, from the formulas (checked against PyTorch's modules).
"""

from __future__ import annotations

import streamlit as st

import ui
from core import lexicon
from core import mdtable as md
from core.analysis import autoregressive as ar
from core.analysis import compression as cp
from core.analysis import ngram
from core.figures import compression as figs
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from ui.models import get_manifest, get_model, get_vocabs, require

SLUG = "compression"
ui.begin_page(SLUG)
t = ui.t
P = f"{SLUG}."
present = ui.presenter()

PARTS = ("markov", "priors")
LM = "lm_gru"
NGRAM_MAX = ngram.CORPUS_MAX_N  # n = 1..6 counted
ORDERS = (2, 3, 4, 5, 6)
DEFAULT_ORDER = cp.DEFAULT_ORDER
SEARCH_LENGTHS, SEARCH_CANDIDATES = cp.SEARCH_LENGTHS, cp.SEARCH_CANDIDATES  # see the fold
MAX_NEW = 12  # words each model may add
CTX_MAX, DEFAULT_CTX = 512, 64  # context length n of the priors part
D_CHOICES = (32, 64, 128, 256, 512, 1024)
K_MAX = 9
# where each prior is shown at work: (page, part)
LINKS = {
    "cnn": ("cnn_receptive_field", "theory"),
    "rnn": ("rnn_gradients", "fresh"),
    "attention": ("attention", "self"),
}


# --- cached computation ------------------------------------------------------------------------
def _corpus_seed() -> int:
    return int(get_manifest().get("corpus", {}).get("seed", 1234))


# The corpus, its n-gram table and counts and the default prompt are computed once per
# process (``core``'s own caches, shared with the server's warm-up, ``serve.warmup``): the first
# visitor of this page no longer counts them (~10 s on one core) while the class waits.
def _ngram_stats(seed: int) -> ngram.NGramStats:
    return ngram.corpus_stats(seed, NGRAM_MAX)


def _ngram_table(seed: int) -> ngram.Coded:
    return ngram.corpus_table(seed)


def _default_prompt(seed: int) -> str:
    """The held-out prompt on which the default n-gram model has to back off (searched)."""
    return " ".join(cp.corpus_window_example(seed).prompt)


@st.cache_data(show_spinner=False, max_entries=64)
def _neural(prefix: tuple[str, ...]) -> list[tuple[str, float]]:
    sv, _ = get_vocabs()
    steps = ar.lm_generate(get_model(LM), sv.encode(prefix), max_new=MAX_NEW, mode="greedy")
    return [(lexicon.show_token(sv.tokens[s.chosen]), s.chosen_prob) for s in steps]


@st.cache_data(show_spinner=False, max_entries=64)
def _counted(seed: int, prefix: tuple[str, ...], n: int) -> list[ngram.NGramStep]:
    return ngram.ngram_continue(_ngram_table(seed), prefix, n, MAX_NEW)


@st.cache_data(show_spinner=False, max_entries=64)
def _checked(n: int, d: int, k: int) -> dict[str, tuple[int, int]]:
    """(formula, PyTorch module) parameter counts of each layer, for the fold."""
    return {a: (cp.weights(a, n, d, k=k), cp.torch_params(a, n, d, k=k)) for a in cp.ARCHITECTURES}


# --- small helpers ---------------------------------------------------------------------------
def _on_text(name: str, key: str) -> None:
    st.query_params[name] = st.session_state[key]


def text_param(name: str, default: str, label: str, key: str) -> str:
    """A text box tied to the URL; an explicitly empty value stays empty (not the default)."""
    raw = st.query_params.get(name)
    value = "" if raw is not None and not raw.strip() else ui.params.get_text(name, default)
    st.session_state[key] = value
    st.text_input(label, key=key, on_change=_on_text, args=(name, key), max_chars=300)
    ui.params.set_params(**{name: value})
    return value


safe = ui.params.safe_value


def read_prompt(default: str) -> list[str] | None:
    """The prompt's words ([] = start of a sentence), or None after saying what is wrong."""
    text = text_param("prefix", default, t(P + "markov.prefix"), "cmp_prefix")
    if not tokenize_en(text):
        st.caption(t(P + "input.empty_prefix"))
        return []
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        if err.reason == "unknown":
            lines = [
                t(P + "input.suggest", word=safe(o.word), options=" / ".join(o.suggestions))
                if o.suggestions
                else t(P + "input.no_suggest", word=safe(o.word))
                for o in err.unknown
            ]
            st.error(t(P + "input.unknown") + "\n\n" + "\n".join(f"- {x}" for x in lines))
        else:
            st.error(t(P + "input.too_long", limit=err.limit))
        return None


def words_line(prompt: list[str], added: list[str]) -> str:
    """The prompt plain and the added words bold (vocabulary words, escaped anyway)."""
    shown = [md.escape(w) for w in prompt] + [f"**{md.escape(w)}**" for w in added]
    return "### " + (" ".join(shown) if shown else "∅")


part = ui.part_selector(P, PARTS, key="cmp_part")


# --- 1. The Markov window ------------------------------------------------------------------
@ui.fragment  # the order n and the prompt rerun only this part
def markov_section(seed: int) -> None:
    s = ui.slide(t(P + "markov.lead"))
    with st.spinner(t(P + "markov.spinner")):
        stats = _ngram_stats(seed)
        default_prompt = _default_prompt(seed)
    n = ui.params.get_choice("n", ORDERS, DEFAULT_ORDER)
    with s.control:
        n = st.select_slider(t(P + "markov.order"), ORDERS, **ui.params.bound("n", n, key="cmp_n"))
    i = n - 1
    with s.chart:
        ui.chart(
            figs.growth_chart(
                stats.n,
                {
                    t(P + "markov.possible"): stats.possible,
                    t(P + "markov.seen"): stats.seen,
                    t(P + "markov.tokens"): [stats.train_tokens] * len(stats.n),
                },
                current_n=n,
                current_label=t(P + "markov.current", n=n),
                title=t(P + "markov.growth.title", v=stats.vocab),
                x_title=t(P + "markov.x"),
                y_title=t(P + "markov.growth.y"),
                presenter=present,
            ),
            key="cmp_growth",
        )
    with s.more:
        prompt = read_prompt(default_prompt)
    with s.words:
        st.caption(
            t(
                P + "markov.growth.caption",
                v=stats.vocab,
                tokens=f"{stats.train_tokens:,}",
                n=n,
                seen=f"{stats.seen[i]:,}",
                possible=f"{stats.possible[i]:.1e}",
                share=f"{stats.seen[i] / stats.possible[i]:.1e}",
            )
        )
        ui.chart(
            figs.unseen_chart(
                stats.n,
                stats.test_unseen,
                current_n=n,
                title=t(P + "markov.unseen.title", n=n, share=f"{stats.test_unseen[i]:.0%}"),
                x_title=t(P + "markov.x"),
                y_title=t(P + "markov.unseen.y"),
                presenter=present,
            ),
            key="cmp_unseen",
        )
        st.caption(t(P + "markov.unseen.caption", windows=f"{stats.test_windows[0]:,}"))
        if prompt is not None:
            compare(seed, prompt, n, stats.seen[i])


def compare(seed: int, prompt: list[str], n: int, entries: int) -> None:
    """The same prompt continued by the count table (order n) and by the neural model."""
    st.subheader(t(P + "markov.compare"))
    counted = _counted(seed, tuple(prompt), n)
    neural = _neural(tuple(prompt))
    shown = lexicon.show_tokens
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{t(P + 'markov.model', n=n)}**")
        st.markdown(words_line(prompt, shown([c.word for c in counted])))
        rows = [
            [
                md.escape(" ".join(shown(c.context)) or "∅"),
                md.escape(shown([c.word])[0]),
                md.escape(f"{c.count} / {c.total}"),
            ]
            for c in counted
        ]
        header = [t(P + f"markov.col.{c}") for c in ("context", "next", "count")]
        st.markdown(md.table(header, rows))
    with right:
        st.markdown(f"**{t(P + 'markov.neural', model=ui.model_name(LM))}**")
        st.markdown(words_line(prompt, [w for w, _ in neural]))
        rows = [[md.escape(w), md.escape(f"{p:.1%}")] for w, p in neural]
        st.markdown(md.table([t(P + "markov.col.next"), t(P + "markov.col.p")], rows))
    first = len(counted[0].context) if counted else 0
    if prompt and first < min(n - 1, len(prompt) + 1):
        st.caption(t(P + "markov.backoff", n=n, want=n - 1, used=first))
    params = get_manifest().get("models", {}).get(LM, {}).get("params")
    st.caption(
        t(
            P + "markov.size",
            n=n,
            entries=f"{entries:,}",
            params=f"{params:,}" if isinstance(params, int) else "?",
            model=ui.model_name(LM),
        )
    )


def markov_part() -> None:
    if not require(LM):
        return
    markov_section(_corpus_seed())
    ui.takeaway(t(P + "markov.takeaway"))
    ui.try_this(t(P + "markov.try"))
    with ui.curious():
        lo, hi = SEARCH_LENGTHS
        fold = dict(count=SEARCH_CANDIDATES, lo=lo, hi=hi, want=DEFAULT_ORDER - 1)
        st.markdown(t(P + "markov.curious", order=DEFAULT_ORDER, **fold))


# --- 2. Priors on an MLP -----------------------------------------------------------------------
def arch_names() -> dict[str, str]:
    return {a: t(P + f"arch.{a}") for a in cp.ARCHITECTURES}


@ui.fragment  # n, d and k rerun only this part
def priors_section() -> None:
    s = ui.slide(t(P + "priors.lead"))
    n = ui.params.get_int("ctx", 1, CTX_MAX, DEFAULT_CTX)
    d = ui.params.get_choice("d", D_CHOICES, 256)
    k = ui.params.get_int("k", 2, K_MAX, 3)
    with s.control:
        n = st.slider(t(P + "priors.n"), 1, CTX_MAX, **ui.params.bound("ctx", n, key="cmp_ctx"))
    with s.more:
        c1, c2 = st.columns(2)
        d = c1.select_slider(t(P + "priors.d"), D_CHOICES, **ui.params.bound("d", d, key="cmp_d"))
        k = c2.slider(t(P + "priors.k"), 2, K_MAX, **ui.params.bound("k", k, key="cmp_k"))
    names = arch_names()
    ns = sorted({1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, n})
    with s.chart:
        ui.chart(
            figs.weights_chart(
                ns,
                cp.curves(ns, d, k=k),
                names,
                current_n=n,
                current_label=t(P + "priors.current", n=n),
                title=t(P + "priors.title", d=d, k=k),
                x_title=t(P + "priors.x"),
                y_title=t(P + "priors.y"),
                presenter=present,
            ),
            key="cmp_weights",
        )
    with s.words:
        factor = cp.mlp_factor(n, d, k=k)
        key = "priors.caption.more" if factor > 1 else "priors.caption.less"
        shown = f"{factor:.1f}" if factor > 1 else f"{1 / factor:.1f}"
        st.caption(t(P + key, n=n, d=d, factor=shown))
        header = [t(P + f"priors.col.{c}") for c in ("layer", "assumes", "weights", "reach")]
        rows = [
            [
                md.escape(names[a]),
                md.escape(t(P + f"priors.assumes.{a}", k=k)),
                md.escape(f"{cp.weights(a, n, d, k=k):,}"),
                md.escape(t(P + f"priors.reach.{a}", steps=cp.reach(a, n, k), n=n, k=k)),
            ]
            for a in cp.ARCHITECTURES
        ]
        st.markdown(md.table(header, rows))
        for arch, (page, to) in LINKS.items():  # one per line: whole labels on a phone too
            ui.page_link(
                f"pages/{page}.py",
                label=t(P + f"priors.link.{arch}"),
                icon=":material/arrow_forward:",
                query_params={"part": to},
            )
        checked = _checked(n, d, k)
    ui.takeaway(t(P + "priors.takeaway"))
    ui.try_this(t(P + "priors.try"))
    with ui.curious():
        st.markdown(t(P + "priors.curious", d=d))
        st.markdown(
            md.table(
                [t(P + f"priors.check.{c}") for c in ("layer", "formula", "value", "torch")],
                [
                    [
                        md.escape(names[a]),
                        md.code(cp.FORMULAS[a]),
                        md.escape(f"{checked[a][0]:,}"),
                        md.escape(f"{checked[a][1]:,}"),
                    ]
                    for a in cp.ARCHITECTURES
                ],
            )
        )
        agree = all(a == b for a, b in checked.values())
        st.caption(t(P + ("priors.check.ok" if agree else "priors.check.bad"), n=n, d=d, k=k))


def priors_part() -> None:
    priors_section()  # its takeaway, try-this and fold too: the fold shows this n, d, k


{"markov": markov_part, "priors": priors_part}[part]()
