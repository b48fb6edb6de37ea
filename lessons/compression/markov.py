"""Part ``markov``: an n-gram model reads the last n−1 words only. Its table could hold Vⁿ
entries, the corpus fills a vanishing share, most long n-grams of new sentences were never
seen, and it cannot look past its window (against the neural model on the same prompt).
Main control: the order n."""

from __future__ import annotations

import streamlit as st

import ui
from charts import compression as figures
from charts.common import Titles
from core import lexicon
from core import mdtable as md
from core.analysis import compression as analysis
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from lessons.compression import data
from ui.models import get_manifest, get_vocabs, require
from ui.slide import Slide

ORDERS = (2, 3, 4, 5, 6)
t = ui.t
safe = ui.params.safe_value


def show() -> None:
    if not require(data.LM):
        return
    section(data.corpus_seed())
    ui.takeaway(t("compression.markov.takeaway"))
    ui.try_this(t("compression.markov.try"))
    with ui.curious():
        lo, hi = analysis.SEARCH_LENGTHS
        order = analysis.DEFAULT_ORDER
        fold = dict(count=analysis.SEARCH_CANDIDATES, lo=lo, hi=hi, want=order - 1)
        st.markdown(t("compression.markov.curious", order=order, **fold))


@ui.fragment  # the prompt reruns this part; the order n only what it changes (order_view)
def section(seed: int) -> None:
    s = ui.slide(t("compression.markov.lead"))
    with st.spinner(t("compression.markov.spinner")):
        stats = data.ngram_stats(seed)
        default_prompt = data.default_prompt(seed)
    with s.more:
        prompt = read_prompt(default_prompt)
    order_view(s, seed, stats, prompt)


# The order n redraws its chart and words in the places ``section`` made: a click sends
# neither the prompt's box nor the spinner around the (cached) corpus counts again.
@ui.fragment
def order_view(s: Slide, seed: int, stats, prompt: list[str] | None) -> None:
    n = ui.params.get_choice("n", ORDERS, analysis.DEFAULT_ORDER)
    with s.control:
        n = st.select_slider(
            t("compression.markov.order"), ORDERS, **ui.params.bound("n", n, key="cmp_n")
        )
    with s.chart:
        # the same seed and order: the same chart, built once for the whole server
        ui.chart(lambda: growth_figure(stats, n), key="cmp_growth", memo=(seed, n))
    with s.words:
        unseen_words(stats, n, seed)
        if prompt is not None:
            compare(seed, prompt, n, stats.seen[n - 1])


def growth_figure(stats, n: int):
    """Possible against seen n-grams by order, the chosen order marked."""
    return figures.growth_chart(
        stats.n,
        {
            t("compression.markov.possible"): stats.possible,
            t("compression.markov.seen"): stats.seen,
            t("compression.markov.tokens"): [stats.train_tokens] * len(stats.n),
        },
        current_n=n,
        current_label=t("compression.markov.current", n=n),
        titles=Titles(
            t("compression.markov.growth.title", v=stats.vocab),
            t("compression.markov.x"),
            t("compression.markov.growth.y"),
        ),
        presenter=ui.presenter(),
    )


def unseen_words(stats, n: int, seed: int) -> None:
    """The growth chart's caption, then the share of held-out n-grams never seen (``stats``:
    the corpus ``seed``'s)."""
    i = n - 1
    st.caption(
        t(
            "compression.markov.growth.caption",
            v=stats.vocab,
            tokens=f"{stats.train_tokens:,}",
            n=n,
            seen=f"{stats.seen[i]:,}",
            possible=f"{stats.possible[i]:.1e}",
            share=f"{stats.seen[i] / stats.possible[i]:.1e}",
        )
    )
    # every order's share, the same for every n: a click on n leaves this chart as it is
    ui.chart(
        lambda: figures.unseen_chart(
            stats.n,
            stats.test_unseen,
            titles=Titles(
                t("compression.markov.unseen.title"),
                t("compression.markov.x"),
                t("compression.markov.unseen.y"),
            ),
            presenter=ui.presenter(),
        ),
        key="cmp_unseen",
        memo=(seed,),
    )
    st.caption(
        t(
            "compression.markov.unseen.caption",
            n=n,
            share=f"{stats.test_unseen[i]:.0%}",
            windows=f"{stats.test_windows[0]:,}",
        )
    )


# --- the prompt --------------------------------------------------------------------------------


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


def read_prompt(default: str) -> list[str] | None:
    """The prompt's words ([] = start of a sentence), or None after saying what is wrong."""
    text = text_param("prefix", default, t("compression.markov.prefix"), "cmp_prefix")
    if not tokenize_en(text):
        st.caption(t("compression.input.empty_prefix"))
        return []
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        if err.reason == "unknown":
            lines = [
                t("compression.input.suggest", word=safe(o.word), options=" / ".join(o.suggestions))
                if o.suggestions
                else t("compression.input.no_suggest", word=safe(o.word))
                for o in err.unknown
            ]
            st.error(t("compression.input.unknown") + "\n\n" + "\n".join(f"- {x}" for x in lines))
        else:
            st.error(t("compression.input.too_long", limit=err.limit))
        return None


# --- the count table against the neural model ---------------------------------------------------


def words_line(prompt: list[str], added: list[str]) -> str:
    """The prompt plain and the added words bold (vocabulary words, escaped anyway)."""
    shown = [md.escape(w) for w in prompt] + [f"**{md.escape(w)}**" for w in added]
    return "### " + (" ".join(shown) if shown else "∅")


def compare(seed: int, prompt: list[str], n: int, entries: int) -> None:
    """The same prompt continued by the count table (order n) and by the neural model."""
    st.subheader(t("compression.markov.compare"))
    counted = data.counted(seed, tuple(prompt), n)
    neural = data.neural(tuple(prompt))
    shown = lexicon.show_tokens
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{t('compression.markov.model', n=n)}**")
        st.markdown(words_line(prompt, shown([c.word for c in counted])))
        rows = [
            [
                md.escape(" ".join(shown(c.context)) or "∅"),
                md.escape(shown([c.word])[0]),
                md.escape(f"{c.count} / {c.total}"),
            ]
            for c in counted
        ]
        header = [t(f"compression.markov.col.{c}") for c in ("context", "next", "count")]
        st.markdown(md.table(header, rows))
    with right:
        st.markdown(f"**{t('compression.markov.neural', model=ui.model_name(data.LM))}**")
        st.markdown(words_line(prompt, [w for w, _ in neural]))
        rows = [[md.escape(w), md.escape(f"{p:.1%}")] for w, p in neural]
        st.markdown(
            md.table([t("compression.markov.col.next"), t("compression.markov.col.p")], rows)
        )
    first = len(counted[0].context) if counted else 0
    if prompt and first < min(n - 1, len(prompt) + 1):
        st.caption(t("compression.markov.backoff", n=n, want=n - 1, used=first))
    params = get_manifest().get("models", {}).get(data.LM, {}).get("params")
    st.caption(
        t(
            "compression.markov.size",
            n=n,
            entries=f"{entries:,}",
            params=f"{params:,}" if isinstance(params, int) else "?",
            model=ui.model_name(data.LM),
        )
    )
