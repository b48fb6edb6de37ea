"""Part ``lm``: a language model writes one word at a time, each word fed back in."""

from __future__ import annotations

import streamlit as st

import ui
from charts import autoregressive as figures
from charts.common import Titles
from charts.screen.sizes import STEP_SLIDE_HEIGHT
from core import lexicon
from core import mdtable as md
from core.analysis import autoregressive as analysis
from core.corpus import lesson
from lessons.autoregressive import data
from lessons.autoregressive.common import (
    animate,
    big,
    chart_key,
    read_text,
    stepper,
)
from ui.models import get_vocabs, require
from ui.slide import Slide

DEFAULT_PREFIX = lesson.AUTOREGRESSION_PROMPT  # the lesson's first round
t = ui.t


def en(ids) -> list[str]:
    """English tokens of language-model ids; the start and end tokens, which a newcomer has
    never been told about, in plain words ("(start)", "(end)")."""
    sv, _ = get_vocabs()
    plain = {"<bos>": t("autoregressive.lm.start"), "<eos>": t("autoregressive.lm.end")}
    return [plain.get(tok) or lexicon.show_token(tok) for tok in (sv.tokens[i] for i in ids)]


def sampling_controls() -> tuple[str, float, int, int]:
    """Greedy or sampling, with temperature, top-k and seed (disabled for greedy), each tied
    to its URL parameter. Returns (mode, temperature, top-k, seed)."""
    mode = ui.params.get_choice("mode", analysis.MODES, "greedy")
    mode = st.segmented_control(
        t("autoregressive.lm.mode"),
        analysis.MODES,
        format_func=ui.labeler("autoregressive.lm.mode."),
        required=True,
        **ui.params.bound("mode", mode, key="ar_mode"),
    )
    temp = ui.params.get_float("temp", 0.1, 3.0, 1.0)
    topk = ui.params.get_int("topk", 0, 50, 5)
    seed = ui.params.get_int("seed", 0, 9999, 0)
    row = st.container(horizontal=True)  # one row, not columns: 3 blocks fewer at each click
    off = mode == "greedy"
    temp = row.slider(
        t("autoregressive.lm.temp"),
        0.1,
        3.0,
        step=0.1,
        disabled=off,
        help=t("autoregressive.lm.temp_help"),
        **ui.params.bound("temp", temp, key="ar_temp"),
    )
    topk = row.slider(
        t("autoregressive.lm.topk"),
        0,
        50,
        disabled=off,
        help=t("autoregressive.lm.topk_help"),
        **ui.params.bound("topk", topk, key="ar_topk"),
    )
    seed = row.number_input(
        t("autoregressive.lm.seed"),
        0,
        9999,
        disabled=off,
        help=t("autoregressive.lm.seed_help"),
        **ui.params.bound("seed", seed, key="ar_seed"),
    )
    return mode, temp, topk, seed


def show_table(header: list[str], rows: list[list[object]]) -> None:
    """A small Markdown table: no pandas on the server, no table bundle in the browser."""
    st.markdown(md.table(header, [[md.escape(cell) for cell in row] for row in rows]))


@ui.fragment  # the prompt reruns this part; the other controls only what they change (run_view)
def show() -> None:
    s = ui.slide(t("autoregressive.lm.lead", prompt=DEFAULT_PREFIX, sentence=lesson.WEAR_SHOES.en))
    if not require(data.LM):
        return
    with s.more:
        prefix = read_text(
            "prefix", DEFAULT_PREFIX, t("autoregressive.lm.prefix"), "ar_prefix", ("step",), s.chart
        )
        if prefix is None:
            return
        if not prefix:
            st.caption(t("autoregressive.input.empty_prefix"))
    run_view(s, tuple(prefix))
    ui.takeaway(t("autoregressive.lm.takeaway"))
    ui.try_this(t("autoregressive.lm.try"))
    model = ui.model_name(data.LM)
    expected = data.lm_recorded()
    with ui.curious():
        st.markdown(t("autoregressive.lm.curious", model=model))
        if expected:
            shown = " ".join(lexicon.show_tokens(expected))
            st.markdown(
                t("autoregressive.lm.recorded", tokens=shown, model=model, prompt=DEFAULT_PREFIX)
            )


# Greedy or sampling, its settings and the step redraw the chart, the stepper and the record
# in the places ``show`` made: a click does not send the prompt's box, the takeaway or the
# fold for the curious again (measured: ~3 ms a re-sent widget on one core).
@ui.fragment
def run_view(s: Slide, prefix: tuple[str, ...]) -> None:
    with s.more:
        mode, temp, topk, seed = sampling_controls()
    ui.params.set_params(mode=mode, temp=temp, topk=topk, seed=seed)
    steps = data.lm_run(prefix, mode, round(float(temp), 2), int(topk), int(seed))
    with s.control:
        step, play = stepper("step", len(steps))
    # Placeholders that Play redraws in place; otherwise plain containers, so a rerun
    # updates the chart instead of replacing the whole block (a remount costs the browser).
    slot = st.empty if play else st.container
    with s.chart:
        view = slot()
    with s.words:
        record = slot()
    settings = (mode, temp, topk, seed)

    def draw(n: int) -> None:
        # a placeholder holds one element: Play's frames go into a container in it
        with view.container() if play else view:
            draw_step(steps, n, len(prefix), settings, play)
        with record.container() if play else record:
            draw_record(steps, n, settings)

    if play:
        animate(draw, step, len(steps), "step")  # ends in a rerun
    draw(step)


def draw_step(steps: list, n: int, n_prefix: int, settings: tuple, play: bool) -> None:
    """Step ``n``: the model's next-word distribution, then the words read and chosen."""
    mode, temp, topk, _ = settings
    step = steps[n - 1]
    read = en(step.context)
    tokens = en(step.top_ids)
    idx = step.top_ids.index(step.chosen) if step.chosen in step.top_ids else None
    what = t(
        f"autoregressive.lm.dist.{mode}",
        temp=f"{temp:.1f}",
        topk=topk or t("autoregressive.lm.all"),
    )
    probs = tuple(float(p) for p in step.top_probs)
    ui.chart(
        lambda: figures.next_token_bars(
            tokens,
            step.top_probs,
            idx,
            titles=Titles(
                t(
                    "autoregressive.lm.chart.title",
                    model=ui.model_name(data.LM),
                    context=" ".join(read[-6:]),
                ),
                what,
                t("autoregressive.lm.chart.y", k=len(tokens)),
            ),
            presenter=ui.presenter(),
        ),
        key=chart_key("ar_lm_chart", play),
        height=STEP_SLIDE_HEIGHT,
        memo=(tuple(tokens), probs, idx, tuple(read[-6:]), mode, temp, topk),
    )
    big(
        t("autoregressive.lm.step_of", step=n, total=len(steps))
        + " · "
        + figures.marked([*read, en([step.chosen])[0]], n_prefix + 1, len(read))
    )


def draw_record(steps: list, n: int, settings: tuple) -> None:
    """The choice of step ``n`` in words, and the record of steps 1..n as a table."""
    mode, _, _, seed = settings
    step = steps[n - 1]
    header = [t(f"autoregressive.lm.col.{c}") for c in ("step", "read", "chose", "p")]
    rows = [
        [i, " ".join(en(r.context)), en([r.chosen])[0], f"{r.chosen_prob:.1%}"]
        for i, r in enumerate(steps[:n], 1)
    ]
    st.caption(
        t("autoregressive.lm.chose", token=en([step.chosen])[0], p=f"{step.chosen_prob:.1%}")
        + " "
        + t(f"autoregressive.lm.caption.{mode}", seed=seed, model=ui.model_name(data.LM))
    )
    st.markdown(f"**{t('autoregressive.lm.record')}**")
    show_table(header, rows)
