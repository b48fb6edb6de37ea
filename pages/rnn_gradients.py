"""RNN gradients (lesson 2.3): through a recurrence the gradient shrinks or grows with
every step of distance (vanishing / exploding gradients), so far words stop shaping what a
vanilla RNN learns; gates keep a road open, clipping stops one bad step."""

import numpy as np
import streamlit as st

import ui
from core import lexicon, probes_data
from core.analysis import explosion as ex
from core.analysis.bottleneck import early_late_ratio
from core.analysis.influence import verdict
from core.analysis.rnn_gradients import recorded_accuracy
from core.figures import rnn_gradients as fig
from serve import jobs
from ui.models import get_vocabs, require
from ui.rnn_gradients_data import (
    CELLS,
    FAR,
    N_SEQ,
    N_STATE,
    PROBES,
    clip_threshold,
    explosion_job,
    fresh_curves,
    influence,
    names,
    sci,
    trained_job,
    words_default,
)
from ui.rnn_gradients_parts import (
    QUANTITIES,
    choice,
    eigen_chart,
    explode_curious,
    fresh_chart,
    overlap_note,
    probe_records,
    quantity_picker,
    words_tokens,
)

ui.begin_page("rnn_gradients")
t = ui.t
P = ui.presenter()
# a phone's layout where ui.chart fits a phone (in presenter mode it fits the projector)
PHONE = ui.on_a_phone() and not P
R = "rnn_gradients."

PARTS = ("fresh", "trained", "learn", "words", "explode")
CURVES = ("loss", "acc")  # training curve shown: loss or accuracy
DRIVES = ("0.1", "0.3", "1.0")  # standard deviation of the random inputs
ENCODERS = ("gru_plain_32", "gru_plain_128", "gru_plain_256")

part = ui.part_selector(R, PARTS, key="rnn_gradients_part")


# --- 1. decay with distance, freshly initialised cells ------------------------------------


@ui.fragment  # quantity, length, drive and seed rerun the part; the radius only its section
def fresh_part() -> None:
    st.header(t(R + "fresh.header"))
    s = ui.slide(t(R + "fresh.lead"))
    quantity = ui.params.get_choice("q", QUANTITIES, default="state")
    length = ui.params.get_int("T", 20, 100, 60)
    drive = ui.params.get_choice("drive", DRIVES, default="0.1")
    seed = ui.params.get_int("seed", 0, 999, 0)
    with s.more:
        quantity = quantity_picker()
        left, middle, right = st.columns(3)
        length = left.slider(
            t(R + "fresh.length"), 20, 100, **ui.params.bound("T", length, key="rnng_T")
        )
        drive = middle.segmented_control(
            t(R + "fresh.drive"),
            DRIVES,
            required=True,
            help=t(R + "fresh.drive_help"),
            **ui.params.bound("drive", drive, key="rnng_drive"),
        )
        seed = right.number_input(
            t(R + "fresh.seed"),
            0,
            999,
            help=t(R + "fresh.seed_help"),
            **ui.params.bound("seed", seed, key="rnng_seed"),
        )
    ui.params.set_params(T=length, drive=drive, seed=seed)
    with s.chart:
        radius_section(int(length), str(drive), int(seed), quantity)
    ui.try_this(t(R + "try.radius") + " " + t(R + "try.drive"))
    with ui.curious():
        st.markdown(t(R + "fresh.intro"))


@ui.fragment  # the radius reruns only this: the figure, its slider, the caption, the takeaway
def radius_section(length: int, drive: str, seed: int, quantity: str) -> None:
    chart_place = st.container()
    radius = ui.params.get_float("rho", 0.5, 1.5, 0.9)
    radius = st.slider(
        t(R + "fresh.radius"),
        0.5,
        1.5,
        step=0.05,
        help=t(R + "fresh.radius_help"),
        **ui.params.bound("rho", radius, key="rnng_rho"),
    )
    ui.params.set_params(rho=radius)
    radius = round(float(radius), 2)
    fresh = fresh_curves(radius, length, float(drive), seed, quantity)
    with chart_place:
        fresh_chart(fresh, radius, length, quantity)
    far = length - 1
    st.caption(
        t(
            R + "fresh.caption",
            radius=radius,
            far=far,
            rnn=sci(float(fresh["rnn"][far])),
            bound=sci(radius**far),
            lstm=sci(float(fresh["lstm"][far])),
            gru=sci(float(fresh["gru"][far])),
            sigma=f"{fresh['sigma1']:.2f}",
            drive=drive,
        )
    )
    ui.takeaway(
        t(R + ("fresh.takeaway_vanish" if radius < 1 else "fresh.takeaway_grow"), radius=radius)
    )
    if P:  # on the projector the eigenvalues come after the decay, as a chart of their own
        eigen_chart(fresh, radius)


# --- 2. the same measurement inside trained models ---------------------------------------


@ui.fragment  # the quantity reruns only this part
def trained_part() -> None:
    st.header(t(R + "trained.header"))
    s = ui.slide(t(R + "trained.lead"))
    with s.control:
        quantity = quantity_picker()
    if not require(*PROBES.values(), vocabs=False):
        return
    with st.spinner(t(R + "computing")):
        trained = jobs.result_of(trained_job)
    dist_t = trained["rnn"]["distance"]
    n = N_STATE if quantity == "state" else N_SEQ
    with s.chart:
        ui.chart(
            fig.decay_figure(
                dist_t,
                {ui.model_name(PROBES[k]): trained[k][quantity] for k in CELLS},
                title=t(R + "trained.chart", n=n),
                x_title=t(R + "trained.distance_axis"),
                y_title=t(R + f"q.{quantity}.axis_trained"),
                presenter=P,
                looks=names(PROBES.values()),
            ),
            key="rnng_trained",
        )
    d = min(FAR, int(dist_t[-1]))
    vals = {k: sci(float(trained[k][quantity][d])) for k in CELLS}
    with s.words:
        st.caption(t(R + f"trained.caption_{quantity}", d=d, n=n, **vals))
    ui.takeaway(t(R + "trained.takeaway", d=d, **vals))
    with ui.curious():
        st.markdown(t(R + "trained.intro"))


# --- 3. what it does to learning ------------------------------------------------------------


@ui.fragment  # the loss/accuracy switch reruns only this part
def learn_part() -> None:
    st.header(t(R + "learn.header"))
    s = ui.slide(t(R + "learn.lead"))
    entries = probe_records()
    if not entries:
        return
    dist_keys = [str(d) for d in probes_data.EVAL_DISTANCES]
    acc = recorded_accuracy(entries, probes_data.EVAL_DISTANCES)
    chance = 1 / probes_data.N_KEYS
    if acc:
        with s.chart:
            ui.chart(
                fig.accuracy_figure(
                    list(probes_data.EVAL_DISTANCES),
                    {ui.model_name(n): v for n, v in acc.items()},
                    chance=chance,
                    chance_label=t(R + "learn.chance"),
                    title=t(R + "learn.acc_chart"),
                    x_title=t(R + "trained.distance_axis"),
                    y_title=t(R + "learn.acc_axis"),
                    presenter=P,
                    looks=names(acc),
                    note=overlap_note(acc),
                    phone=PHONE,
                ),
                key="rnng_acc",
            )
    with s.control:
        curve_col = choice(
            t(R + "learn.curve"),
            CURVES,
            param="curve",
            default="acc",
            key="rnng_curve",
            format_func=ui.labeler(R + "learn.curve."),
        )
    with s.words:
        ui.chart(
            fig.curves_figure(
                {ui.model_name(n): e["curve"] for n, e in entries.items()},
                column={"loss": 1, "acc": 2}[curve_col],
                title=t(R + "learn.curve_chart"),
                x_title=t(R + "learn.step_axis"),
                y_title=t(R + f"learn.curve.{curve_col}.axis"),
                presenter=P,
                looks=names(entries),
            ),
            key="rnng_curves",
        )
        steps = sorted({int(e.get("steps", 0)) for e in entries.values()})
        st.caption(
            t(
                R + "learn.caption",
                steps=" / ".join(str(x) for x in steps),
                d=dist_keys[-1],
                accs=", ".join(f"{ui.model_name(n)} {v[-1]:.0%}" for n, v in acc.items()),
                chance=f"{chance:.0%}",
            )
        )
    if "probe_rnn" in acc:
        far = {n: f"{v[-1]:.0%}" for n, v in acc.items()}
        ui.takeaway(
            t(
                R + "learn.takeaway",
                d=dist_keys[-1],
                near=f"{acc['probe_rnn'][0]:.0%}",
                d0=dist_keys[0],
                rnn=far["probe_rnn"],
                gated=" / ".join(far[n] for n in far if n != "probe_rnn") or "—",
            )
        )
    with ui.curious():
        st.markdown(t(R + "learn.intro"))


# --- 4. which words still reach the end ---------------------------------------------------


@ui.fragment  # the encoder choice and the sentence rerun only this part
def words_part() -> None:
    st.header(t(R + "words.header"))
    s = ui.slide(t(R + "words.lead"))
    if not require(*ENCODERS[-1:], vocabs=True):
        return
    with st.spinner(t(R + "computing")):
        example = words_default()
    if (st.query_params.get("text") or "x").strip():
        text = ui.params.get_text("text", example.text, max_len=300)
    else:
        text = ""  # the user cleared the box: say so below, do not bring the example back
    with s.control:
        text = st.text_area(
            t(R + "words.text"),
            max_chars=300,
            height=90,
            **ui.params.bound("text", text, key="rnng_text"),
        )
    with s.more:
        # the sentence joins the URL once it is edited; the model at once
        encoder = choice(
            t(R + "words.model"),
            ENCODERS,
            param="model",
            default="gru_plain_256",
            key="rnng_model",
            format_func=ui.model_name,
        )
    if not require(encoder, vocabs=False):
        return
    with s.words:
        tokens = words_tokens(text)
    if tokens is None:
        return
    ids = tuple(get_vocabs()[0].encode(tokens, eos=True))
    with st.spinner(t(R + "computing")):
        values = influence(encoder, ids)
    ratio = early_late_ratio(values)
    v = verdict(ratio)
    with s.chart:
        ui.chart(
            fig.influence_strip(
                lexicon.show_tokens([*tokens, "<eos>"]),
                values,
                title=t(R + "words.chart", model=ui.model_name(encoder), n=len(tokens)),
                colorbar_title=t(R + "words.colorbar"),
                presenter=P,
            ),
            key="rnng_words",
        )
    with s.words:
        st.caption(t(R + f"words.caption_{v}", model=ui.model_name(encoder), ratio=f"{ratio:.2f}"))
    ui.takeaway(t(R + f"words.takeaway_{v}"))
    ui.try_this(t(R + "try.words"))
    with ui.curious():
        st.markdown(
            t(
                R + "words.curious",
                n=len(example.ratios),
                k=example.n_majority,
                verdict=t(R + f"words.verdict.{example.majority}"),
                lo=f"{min(example.ratios):.2f}",
                hi=f"{max(example.ratios):.2f}",
            )
        )


# --- 5. exploding gradients: one training step, with and without clipping ----------------


@ui.fragment  # the learning rate reruns only this part
def explode_part() -> None:
    st.header(t(R + "explode.header"))
    s = ui.slide(t(R + "explode.lead"))
    if not require("probe_rnn", vocabs=False):
        return
    clip = clip_threshold()
    with st.spinner(t(R + "computing")):
        res = jobs.result_of(explosion_job, clip)
    default = ex.clearest_lr(res)
    with s.control:
        asked = ui.params.get_float("lr", min(res.lrs), max(res.lrs), default)
        lr = st.select_slider(
            t(R + "explode.lr"),
            options=list(res.lrs),
            **ui.params.bound(
                "lr", min(res.lrs, key=lambda x: abs(np.log(x / asked))), key="rnng_lr"
            ),
        )
        ui.params.set_params(lr=lr)
    i = res.at(lr)
    with s.chart:
        ui.chart(
            fig.step_figure(
                res.lrs,
                res.acc_before,
                res.acc_plain,
                res.acc_clipped,
                chosen=lr,
                chance=1 / probes_data.N_KEYS,
                labels={k: t(R + f"explode.{k}") for k in ("plain", "clipped", "before", "chance")},
                title=t(R + "explode.chart", model=ui.model_name("probe_rnn")),
                x_title=t(R + "explode.lr_axis"),
                y_title=t(R + "explode.acc_axis"),
                presenter=P,
            ),
            key="rnng_explode",
        )
    nums = dict(
        lr=lr,
        grad=sci(res.grad_norm),
        clip=clip,
        before=f"{res.acc_before:.0%}",
        plain=f"{res.acc_plain[i]:.0%}",
        clipped=f"{res.acc_clipped[i]:.0%}",
        step_plain=sci(res.step_plain(lr)),
        step_clipped=sci(res.step_clipped(lr)),
        weights=sci(res.weight_norm),
    )
    with s.words:
        st.caption(t(R + "explode.caption", **nums))
    ui.takeaway(t(R + f"explode.takeaway_{ex.outcome(res, lr)}", **nums))
    ui.try_this(t(R + "try.explode"))
    explode_curious(res, lr, clip)


# --- the chosen part ---------------------------------------------------------------------------
{
    "fresh": fresh_part,
    "trained": trained_part,
    "learn": learn_part,
    "words": words_part,
    "explode": explode_part,
}[part]()
