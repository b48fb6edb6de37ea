"""Part "race": the teacher presses Start; the server trains a GRU with only C and a GRU with
attention from scratch on the same batches; every visitor watches both curves grow (read
from the store each second), and at the end both translate a long sentence and the words
say what happened in this run. Before it ends, each visitor predicts the winner."""

from __future__ import annotations

import time

import streamlit as st

import ui
from charts import live as figures
from charts.common import Titles
from core import live
from core.vocab import detokenize_zh
from lessons.live import common, it_race
from poll import views
from poll.runs import Place, Run
from poll.store import PollError
from poll.training import Busy
from ui.gate import fragment

t = ui.t
LOOKS = {"plain": "live_plain", "attention": "live_attention"}  # race name -> lexicon model
PICKS = live.VERDICTS
TAKEAWAY = {"alone": "far"}  # stories that share a takeaway
# the charts' height on the projector: the progress bar, the knob and Start stand under both
CHART_HEIGHT = common.CHART_HEIGHT
WATCH_S = 5  # s between two looks of an idle page for a change (idle_watch)
DRAWN = "live_drawn_kind"  # session key: which race (poll.runs.KINDS) the page drew


def show() -> None:
    """The panel refreshes every second while a run trains. Otherwise it is drawn once and
    redrawn by its own controls, and a watch that draws nothing looks every 5 s for what
    would change it (a run someone starts, the end of the quiet while, a class opened): the
    panel was sent whole every 5 s to every open tab, a class of phones on an idle page."""
    seen = common.look()
    run = seen.run
    kind = st.session_state[DRAWN] = it_race.chosen(run)
    if run is not None and run.active:
        live_panel(run.id)
    else:
        idle_panel(run.id if run else None)
        idle_watch(idle_state(seen))
    it = kind == it_race.KIND
    ui.takeaway(it_race.takeaway(run) if it else takeaway(run))
    ui.try_this(t("live.it.try" if it else "live.race.try"))


def finished(run: Run | None) -> bool:
    """Whether ``run`` ended with accuracies to speak of (a cancelled run has its last)."""
    return run is not None and not run.active and bool((run.result or {}).get("final_acc"))


def takeaway(run: Run | None) -> str:
    """What the shown run showed, in words its numbers chose (:func:`core.live.story`);
    before a run has ended, what to watch."""
    if not finished(run):
        return t("live.race.takeaway")
    said, _ = live.story(run.result)
    return t(f"live.race.takeaway.{TAKEAWAY.get(said, said)}")


def _panel(shown: str | None) -> None:
    seen = common.look()
    run = seen.run
    if (run.id if run else None) != shown or (run is not None and not run.active and _was_live()):
        st.rerun()  # a new run, or this one ended: redraw with the other refresh rate
    if run is not None and run.active and seen.owner:
        common.manager().runs.beat(run.id, views.browser_id())  # the teacher is still here
    if it_race.chosen(run) != st.session_state.get(DRAWN):
        st.rerun()  # the other race: its words under the panel too
    if st.session_state[DRAWN] == it_race.KIND:
        it_race.panel(seen, progress, controls)  # this stop's progress line and controls
        return
    s = ui.slide(t("live.race.lead"))
    with s.chart:
        charts(run)
        progress(run)
    with s.control:
        controls(seen)
    with s.words:
        if run is not None and run.result and "records" in run.result:
            ending(run)
        predict(run)


def _was_live() -> bool:
    return st.session_state.get("live_panel_rate") == 1


def _live(shown: str | None) -> None:
    st.session_state["live_panel_rate"] = 1
    _panel(shown)


def _idle(shown: str | None) -> None:
    st.session_state["live_panel_rate"] = 5
    _panel(shown)


def idle_state(seen: common.Look) -> tuple[str | None, str | None, bool]:
    """What of the idle panel another visitor or the clock can change: the run shown, its
    status, and whether this visitor may start the next."""
    run = seen.run
    return (run.id if run else None, run.status if run else None, seen.starts)


def _watch(drawn: tuple[str | None, str | None, bool]) -> None:
    if idle_state(common.look()) != drawn:
        st.rerun()  # the whole page: the idle panel, or the live one for a new run


live_panel = fragment(run_every=1)(_live)
idle_panel = fragment(_idle)
idle_watch = fragment(run_every=WATCH_S)(_watch)


def names() -> dict[str, str]:
    return {look: ui.model_name(look) for look in LOOKS.values()}


def charts(run: Run | None) -> None:
    """Loss against step, and accuracy by length at the latest evaluation, side by side (on
    the projector lower than a slide's chart: the progress bar and Start or Cancel stand
    under them on the first screen)."""
    cfg = run.config if run else common.config(live.DEFAULT.max_len)
    records = run.progress if run else []
    buckets = live.buckets(cfg["max_len"])
    width = 0.5 if ui.presenter() else 1.0
    left, right = st.columns(2) if ui.presenter() else (st.container(), st.container())
    # the charts are kept per run and record for the whole server (ui.chart's memo): a
    # room's phones each look every second, and all but the first get the pair as sent
    shown = (run.id if run else None, cfg["steps"], cfg["max_len"])
    with left:
        ui.chart(
            lambda: loss_figure(records, cfg),
            key="live_loss",
            width=width,
            height=CHART_HEIGHT,
            memo=(*shown, len(records)),
            kept="live",
        )
    acc = latest_accuracy(records)
    with right:
        ui.chart(
            lambda: accuracy_figure(acc, buckets),
            key="live_acc",
            width=width,
            height=CHART_HEIGHT,
            memo=(*shown, acc["step"] if acc else None),  # new with each evaluation only
            kept="live",
        )


def loss_figure(records: list[dict], cfg: dict):
    """Both training losses against the step, on the budget's whole axis."""
    return figures.loss_curves(
        [r["step"] for r in records],
        {LOOKS[m]: [r["loss"][m] for r in records] for m in live.MODELS if records},
        total=cfg["steps"],
        titles=Titles(t("live.race.loss.title"), t("live.race.loss.x"), t("live.race.loss.y")),
        presenter=ui.presenter(),
        names=names(),
        legend=not ui.presenter(),  # side by side: the accuracy chart's legend names both
    )


def accuracy_figure(acc: dict | None, buckets):
    """Token accuracy by sentence length at the latest evaluation."""
    # no lines before the first evaluation (two flat zeros would lie on each other)
    series = {LOOKS[m]: [acc[m]["token"][b] / 100 for b in buckets] for m in acc_models(acc)}
    return figures.bucket_accuracy(
        buckets,
        series,
        titles=Titles(
            t("live.race.acc.title", step=acc["step"] if acc else 0),
            t("live.race.acc.x"),
            t("live.race.acc.y"),
        ),
        presenter=ui.presenter(),
        names=names(),
    )


def acc_models(acc: dict | None) -> tuple[str, ...]:
    return live.MODELS if acc else ()


def latest_accuracy(records: list[dict]) -> dict | None:
    """The last record's accuracies with its step, or ``None`` before the first evaluation."""
    for r in reversed(records):
        if "acc" in r:
            return {**r["acc"], "step": r["step"]}
    return None


def progress(run: Run | None, preparing: str = "live.race.preparing") -> None:
    """Bar, steps done of the budget, seconds so far and (while training) seconds left."""
    if run is None:
        st.progress(0.0, text=t("live.race.none"))
        return
    last = run.progress[-1] if run.progress else None
    steps = run.config["steps"]
    done = last["step"] if last else 0
    if run.status == "queued":
        text = queued_text(common.place(run))
    elif last is None and run.active:
        text = t(preparing)
    elif run.active:
        left = last["elapsed"] / max(1, done) * (steps - done)
        text = t(
            "live.race.running", done=done, steps=steps, s=round(last["elapsed"]), left=round(left)
        )
    else:
        took = round(last["elapsed"]) if last else 0  # 0: cancelled while still in line
        text = t(f"live.race.status.{run.status}", done=done, steps=steps, s=took)
    st.progress(min(1.0, done / steps), text=text)


def queued_text(where: Place | None) -> str:
    """A queued race's line: its place and, once races here have been measured, the wait."""
    if where is None:  # taken by a slot since the page looked
        return t("live.race.status.starting")
    if where.wait_s is None:
        return t("live.race.queued", place=where.place)
    return t("live.race.queued.wait", place=where.place, s=round(where.wait_s))


def controls(seen: common.Look) -> None:
    """The knob and Start for who may start; Cancel for the owner of a run queued or in
    progress (or its room's teacher); for everyone else, whose run it is."""
    msg = st.session_state.pop("live_message", None)
    if msg:
        st.warning(msg, icon=":material/hourglass_top:")
    run, here = seen.run, seen.here
    if here is not None:  # whose race this is: the room's code, as the poll shows it
        st.caption(t("live.race.room", code=f"{here[:4]} {here[4:]}"))
    if run is not None and run.active:
        if seen.cancels:
            st.button(t("live.race.cancel"), key="live_cancel", on_click=_cancel, args=(run.id,))
        else:
            st.caption(watching(run))
        return
    if not seen.starts:
        it_race.which_control(run)
        st.caption(t("live.race.teacher_starts"))
        return
    which, left, right = st.columns([2, 2, 1], vertical_alignment="bottom")
    with which:
        it_race.which_control(run)
    if it_race.chosen(run) == it_race.KIND:
        with right:
            it_race.start_button()
        return
    with left:
        max_len = st.segmented_control(
            t("live.race.knob"),
            common.LENGTHS,
            default=live.DEFAULT.max_len,
            format_func=lambda n: t("live.race.knob.words", n=n),
            key="live_max_len",
        )
    with right:
        st.button(
            t("live.race.start"),
            key="live_start",
            type="primary",
            on_click=_start,
            args=(max_len or live.DEFAULT.max_len,),
        )


def watching(run: Run) -> str:
    """A student's line under a race in progress: how long it has trained, or, while it
    waits for a slot, how long ago it was asked for."""
    if run.status == "queued" or run.started is None:
        return t("live.race.watching.queued", ago=round(time.time() - run.created))
    return t("live.race.watching", ago=round(time.time() - run.started))


def _start(max_len: int) -> None:
    common.forget()
    started = common.manager().start(views.browser_id(), common.config(max_len), common.room())
    if isinstance(started, Busy):
        ago = round(time.time() - started.started)
        st.session_state["live_message"] = t("live.race.busy", ago=ago)
        return
    st.session_state[common.RUN] = started
    st.session_state.pop("live_pick_checked", None)


def _cancel(run_id: str) -> None:
    common.forget()
    try:
        common.manager().cancel(run_id, views.browser_id())
    except PollError:
        st.session_state["live_message"] = t("live.race.not_owner")


def ending(run: Run) -> None:
    """This run's story in numbers (the class poll's Reveal says the same), then both
    translations of the long sentence and how much of the reference each has."""
    result = run.result
    if not result.get("final_acc"):
        return
    said, values = live.story(result)
    st.markdown(t(f"live.race.end.{said}", **values))
    tr = result["translation"]
    edit = tr.get("edit", {})  # a run stored before the score was kept has none
    who, text, has = t("live.race.col.who"), t("live.race.col.text"), t("live.race.col.edit")
    rows = [
        {who: t("live.race.col.src"), text: " ".join(tr["src"]), has: ""},
        {who: t("live.race.col.ref"), text: detokenize_zh(tr["ref"]), has: ""},
    ]
    for m in live.MODELS:
        score = f"{edit[m]:.0f}%" if m in edit else ""
        rows.append({who: names()[LOOKS[m]], text: detokenize_zh(tr[m]), has: score})
    st.table(rows)


def verdict_label(verdict: str) -> str:
    """The words for a verdict: the class poll's answers (the same question, asked alone)."""
    return t(f"poll.q.live_winner.a{PICKS.index(verdict)}")


def predict(run: Run | None) -> None:
    """Predict, then check: the pick before the end; this run's verdict after it."""
    box = st.container(border=True)
    box.markdown(t("live.race.predict.q", n=(run.config if run else common.config(30))["max_len"]))
    pick = box.radio(
        t("live.race.predict.pick"),
        PICKS,
        format_func=verdict_label,
        index=None,
        horizontal=True,
        key="live_pick",
    )
    if run is None or run.active or not run.result or not run.result.get("final_acc"):
        box.caption(t("live.race.predict.wait"))
        return
    won = live.verdict(run.result)
    said = verdict_label(won)
    if pick is not None:
        key = "live.race.predict.right" if pick == won else "live.race.predict.wrong"
        box.markdown(t(key, won=said))
    else:
        box.markdown(t("live.race.predict.answer", won=said))
