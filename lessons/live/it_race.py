"""The second race on "Train it yourself": a self-attention encoder learns which noun "it"
names while the room watches (``core.live_coref``). The same slot, queue, room, Start,
Cancel and time left as the translation race (``race``); a "which race" choice beside
Start. Every second: the last layer's weights from "it" over the lesson's pair as two bar
rows that sharpen, the loss and the held-out share; at the end the finished head beside the
shipped one and a sentence the run's numbers fill in."""

from __future__ import annotations

import os
from collections.abc import Callable

import streamlit as st

import ui
from charts import live as figures
from charts.common import Titles
from core import live_coref
from lessons.live import common
from poll import views
from poll.runs import KINDS, Run
from poll.training import Busy

t = ui.t
KIND = live_coref.KIND
WHICH = "live_which"  # session key: the race this visitor chose to look at
ROW_LABEL = {"hungry": "live.it.row.hungry", "sweet": "live.it.row.sweet"}


def chosen(run: Run | None) -> str:
    """The race this visitor's stop shows: the one training now; else the visitor's choice;
    else the kind of the last race here (a phone follows what the teacher ran)."""
    if run is not None and run.active:
        return run.kind
    picked = st.session_state.get(WHICH)
    if picked in KINDS:
        return picked
    return run.kind if run is not None else KINDS[0]


def which_control(run: Run | None) -> None:
    """Which race to look at (and start): translation or "it". A phone may switch its view
    too; while a race trains, every view follows it."""
    st.segmented_control(
        t("live.which"),
        KINDS,
        default=chosen(run),
        format_func=lambda k: t(f"live.which.{k}"),
        key="live_which_pick",
        on_change=_picked,
    )


def _picked() -> None:
    picked = st.session_state.get("live_which_pick")
    if picked in KINDS:  # a second tap on the chosen segment clears it: keep the choice
        st.session_state[WHICH] = picked


def config() -> dict:
    """The "it" race's stored config: the search's default (the test budget if set)."""
    from dataclasses import replace

    cfg = live_coref.DEFAULT
    steps = os.environ.get(common.STEPS_ENV, "").strip()
    if steps.isdigit() and int(steps) >= 1:
        n = int(steps)
        cfg = replace(cfg, steps=n, eval_every=max(1, n // 5), log_every=max(1, n // 50))
    return live_coref.config_dict(cfg)


def start_button() -> None:
    st.button(t("live.race.start"), key="live_it_start", type="primary", on_click=_start)


def _start() -> None:
    common.forget()
    started = common.manager().start(views.browser_id(), config(), common.room())
    if isinstance(started, Busy):
        import time

        ago = round(time.time() - started.started)
        st.session_state["live_message"] = t("live.race.busy", ago=ago)
        return
    st.session_state[common.RUN] = started
    st.session_state[WHICH] = KIND


def panel(seen: common.Look, progress: Callable, controls: Callable) -> None:
    """The "it" race's panel, with the stop's own progress line and controls (``race``'s,
    passed in: that module draws this one)."""
    run = seen.run
    s = ui.slide(t("live.it.lead"))
    with s.chart:
        charts(run)
        progress(run, preparing="live.it.preparing")
    with s.control:
        controls(seen)
    with s.words:
        if run is not None and run.result and "records" in run.result:
            ending(run)
        predict(run)


def _rows(tokens_weights: dict[str, list[float]]) -> dict[str, dict]:
    cases = {c.predicate: c for c in _cases()}
    return {
        p: {"tokens": list(cases[p].tokens), "weights": w, "right": cases[p].antecedent}
        for p, w in tokens_weights.items()
    }


def _cases():
    from core import corpus

    return corpus.lesson_coref_cases()


def even() -> dict[str, list[float]]:
    """Before any step: an even spread over each sentence (what "it" reads knowing nothing)."""
    return {c.predicate: [round(1 / len(c.tokens), 3)] * len(c.tokens) for c in _cases()}


def shipped() -> dict[str, list[float]]:
    """The shipped encoder's head on the lesson's pair (the attention page's own numbers)."""
    from lessons.attention import data

    return {p: [float(w) for w in s.weights] for p, s in data.coref_pair().items()}


def charts(run: Run | None) -> None:
    """The two bar rows and the learning curves, side by side on the projector; kept per run
    and record for the whole server (``ui.chart``'s memo, as the translation race's): a
    room's phones each look every second, and all but the first get the pair as sent."""
    records = run.progress if run else []
    steps = run.config["steps"] if run else live_coref.DEFAULT.steps
    ended = run is not None and not run.active and bool(records)
    width = 0.5 if ui.presenter() else 1.0
    left, right = st.columns(2) if ui.presenter() else (st.container(), st.container())
    shown = (run.id if run else None, steps, len(records), ended)
    with left:
        ui.chart(
            lambda: bars_figure(records, ended),
            key="live_it_bars",
            width=width,
            height=common.CHART_HEIGHT,
            memo=shown,
            kept="live",
        )
    with right:
        ui.chart(
            lambda: curves_figure(run, records, steps),
            key="live_it_curves",
            width=width,
            height=common.CHART_HEIGHT,
            memo=shown,
            kept="live",
        )


def bars_figure(records: list[dict], ended: bool):
    """The last record's weights from "it" (an even spread before the first), and at the
    end the shipped head's beside them."""
    lesson = records[-1]["lesson"] if records else even()
    done = records[-1]["step"] if records else 0
    return figures.it_rows(
        _rows(lesson),
        titles=Titles(
            t("live.it.bars.title.end" if ended else "live.it.bars.title", step=done), "", ""
        ),
        labels={p: t(k) for p, k in ROW_LABEL.items()},
        presenter=ui.presenter(),
        beside=shipped() if ended else None,
        names=(t("live.it.bars.this"), t("live.it.bars.shipped")),
    )


def curves_figure(run: Run | None, records: list[dict], steps: int):
    held = [r for r in records if "held" in r]
    return figures.it_progress(
        [r["step"] for r in records],
        [r["loss"] for r in records],
        [r["step"] for r in held],
        [r["held"] for r in held],
        total=steps,
        titles=Titles(t("live.it.curves.title"), t("live.race.loss.x"), ""),
        loss_title=t("live.race.loss.title"),
        held_title=t("live.it.held.title", n=_held_n(run)),
        presenter=ui.presenter(),
    )


def _held_n(run: Run | None) -> int:
    from core.corpus import coref_frames

    per = (run.config if run else live_coref.config_dict(live_coref.DEFAULT))["held_per_frame"]
    return per * len(coref_frames.FRAMES)


def finished(run: Run | None) -> bool:
    return run is not None and not run.active and bool((run.result or {}).get("lesson"))


def takeaway(run: Run | None) -> str:
    if not finished(run):
        return t("live.it.takeaway")
    said, _ = live_coref.story(run.result)
    return t(f"live.it.takeaway.{said}")


def ending(run: Run) -> None:
    """This run's sentence, its numbers filled in (the class poll's Reveal says the same)."""
    if not run.result.get("lesson"):
        return
    said, values = live_coref.story(run.result)
    st.markdown(t(f"live.it.end.{said}", **values))
    if values["first_both"]:
        said = t("live.it.end.first", **values)
        if values["stare_step"]:  # the run looked at one noun for both before it chose
            said += " " + t("live.it.end.stare", **values)
        st.markdown(said)


def when_label(when: str) -> str:
    """The class poll's answers (the same question, asked alone)."""
    i = live_coref.WHEN.index(when)
    return t(f"poll.q.live_it.a{i}")


def predict(run: Run | None) -> None:
    """Predict, then check: the pick before the end; this run's answer after it."""
    box = st.container(border=True)
    box.markdown(t("live.it.predict.q"))
    pick = box.radio(
        t("live.race.predict.pick"),
        live_coref.WHEN,
        format_func=when_label,
        index=None,
        horizontal=True,
        key="live_it_pick",
    )
    if not finished(run):
        box.caption(t("live.race.predict.wait"))
        return
    won = when_label(live_coref.when(run.result))
    if pick is not None:
        key = (
            "live.race.predict.right"
            if pick == live_coref.when(run.result)
            else "live.race.predict.wrong"
        )
        box.markdown(t(key, won=won))
    else:
        box.markdown(t("live.race.predict.answer", won=won))
