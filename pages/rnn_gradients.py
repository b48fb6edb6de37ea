"""RNN gradients (lesson 2.3): through a recurrence the gradient shrinks or grows with
every step of distance, so far words stop shaping what the network learns."""

from concurrent.futures import Future

import numpy as np
import streamlit as st
import torch

import ui
from core import probes_data, zoo
from core.analysis import rnn_gradients as rg
from core.analysis.influence import context_influence
from core.figures import rnn_gradients as fig
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from ui import jobs
from ui.models import get_manifest, get_model, get_vocabs, require, show_zoo_error
from ui.params import safe_value

ui.begin_page("rnn_gradients")
t = ui.t
P = ui.presenter()

PARTS = ("fresh", "trained", "learn", "words", "explode")
CELLS = rg.KINDS  # vanilla tanh RNN, LSTM, GRU
PROBES = {"rnn": "probe_rnn", "lstm": "probe_lstm", "gru": "probe_gru"}
QUANTITIES = ("state", "input")
CURVES = ("loss", "acc")  # training curve shown: loss or accuracy
DRIVES = ("0.1", "0.3", "1.0")  # standard deviation of the random inputs
ENCODERS = ("gru_plain_32", "gru_plain_128", "gru_plain_256")
DEFAULT_TEXT = (
    "the trees are full of autumn cicadas because the bread that a tiger ate is sour "
    "every day so you see their shade"
)
HIDDEN = 64  # hidden size of the fresh cells (the probes' size)
N_SEQ = 32  # task sequences averaged for the trained probes (input gradients)
N_STATE = 8  # of which the first 8 for the state Jacobians (a Jacobian per position each)
SWEEP = tuple(np.round(np.arange(0.5, 5.01, 0.5), 2))  # W_hh scales for the explosion sweep
LR = 0.1  # plain SGD: the update is lr times the (clipped) gradient
TRY = {"fresh": ("radius", "drive"), "words": ("words",), "explode": ("explode",)}

part = ui.part_selector("rnn_gradients.", PARTS, key="rnn_gradients_part")


def clip_threshold() -> float:
    """The gradient-norm clipping every shipped model was trained with (core.train)."""
    from core.train import SPECS

    return float(SPECS["probe_rnn"].clip)


# --- cached computations (plain keys) ----------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=64)
def fresh_curves(radius: float, length: int, drive: float, seed: int, quantity: str) -> dict:
    """The shown quantity ("state" or "input") of each fresh cell, and W_hh's spectrum."""
    measure = rg.state_jacobian_norms if quantity == "state" else rg.input_gradient_norms
    out = {}
    for kind in CELLS:
        cell = rg.fresh_cell(kind, radius, hidden=HIDDEN, seed=seed)
        xs = rg.sequence_inputs(length, cell.w_ih.shape[1], seed) * drive
        out[kind] = measure(cell, xs)
    w = rg.recurrent_matrix(HIDDEN, radius, seed * 10)  # the vanilla RNN's W_hh
    out["eig"] = rg.eigenvalues(w)
    out["sigma1"] = rg.largest_singular_value(w)
    return out


def _trained_curves(loaded: dict) -> dict:
    """The decay measured in each trained probe, on the same N_SEQ task sequences. No
    Streamlit call here: it runs in a thread of its own."""
    x, y, _ = probes_data.make_batch(torch.Generator().manual_seed(7), N_SEQ)
    return {k: rg.probe_decay(model, x, y, n_state=N_STATE) for k, model in loaded.items()}


@st.cache_resource(show_spinner=False)
def trained_job() -> Future:
    """Part 2's measurements, once per server, in a thread of their own, started when part 2
    is shown, after its text has been sent (raises zoo.ZooError, not cached)."""
    loaded = {k: get_model(PROBES[k]) for k in CELLS}  # here, in the script thread
    return jobs.in_thread("rnn-gradients-probes", _trained_curves, loaded)


@st.cache_data(show_spinner=False, max_entries=64)
def influence(name: str, ids: tuple[int, ...]) -> np.ndarray:
    return context_influence(get_model(name), ids)


def _sweep(clip: float) -> list[rg.TrainingStep]:
    return [rg.training_step(float(r), clip=clip, lr=LR) for r in SWEEP]


@st.cache_resource(show_spinner=False)
def sweep_job(clip: float) -> Future:
    """Part 5's training steps, once per server, in a thread of their own, started when part
    5 is shown (as trained_job)."""
    return jobs.in_thread("rnn-gradients-sweep", _sweep, clip)


def sci(x: float) -> str:
    return f"{x:.2g}" if 1e-2 <= abs(x) < 1e4 else f"{x:.1e}"


# --- 1. decay with distance, freshly initialised cells ------------------------------------


@st.fragment  # length, drive and seed rerun this section; the radius only radius_section
def fresh_section(quantity: str) -> None:
    """Part 1 under the quantity picker. The radius is the knob a class moves most, so it sits
    first, in a fragment of its own with what it changes (figure, caption, takeaway). A
    fragment's widgets cannot go into a container drawn by its caller, so the secondary
    controls come after it: their values are read from the URL (where a change has already
    been written by the widget's callback) before the radius section is called."""
    length = ui.params.get_int("T", 20, 100, 60)
    drive = ui.params.get_choice("drive", DRIVES, default="0.1")
    seed = ui.params.get_int("seed", 0, 999, 0)
    radius_section(int(length), str(drive), int(seed), quantity)
    with ui.secondary():
        left, middle, right = st.columns(3)
        length = left.slider(
            t("rnn_gradients.fresh.length"), 20, 100, **ui.params.bound("T", length, key="rnng_T")
        )
        drive = middle.segmented_control(
            t("rnn_gradients.fresh.drive"),
            DRIVES,
            required=True,
            help=t("rnn_gradients.fresh.drive_help"),
            **ui.params.bound("drive", drive, key="rnng_drive"),
        )
        seed = right.number_input(
            t("rnn_gradients.fresh.seed"),
            0,
            999,
            help=t("rnn_gradients.fresh.seed_help"),
            **ui.params.bound("seed", seed, key="rnng_seed"),
        )
    ui.params.set_params(T=length, drive=drive, seed=seed)


@st.fragment  # the radius reruns only this: its slider, the figure, the caption, the takeaway
def radius_section(length: int, drive: str, seed: int, quantity: str) -> None:
    radius = ui.params.get_float("rho", 0.5, 1.5, 0.9)
    radius = st.slider(
        t("rnn_gradients.fresh.radius"),
        0.5,
        1.5,
        step=0.05,
        help=t("rnn_gradients.fresh.radius_help"),
        **ui.params.bound("rho", radius, key="rnng_rho"),
    )
    ui.params.set_params(rho=radius)

    radius = round(float(radius), 2)
    # no spinner: a new radius takes well under its 0.5 s delay (~50-80 ms), and it would
    # add a placeholder and a timer thread to every step of the slider
    fresh = fresh_curves(radius, length, float(drive), seed, quantity)
    distance = np.arange(length)
    names = {k: t(f"rnn_gradients.cell.{k}") for k in CELLS}
    series = {names[k]: fresh[k] for k in CELLS}
    bound = (t("rnn_gradients.bound", radius=radius), radius ** distance.astype(float))
    titles = (
        t("rnn_gradients.fresh.chart", radius=radius, hidden=HIDDEN, length=length),
        t("rnn_gradients.eig.chart", hidden=HIDDEN),
    )
    decay_axes = (t("rnn_gradients.distance_axis"), t(f"rnn_gradients.q.{quantity}.axis"))
    eig_axes = (t("rnn_gradients.eig.re"), t("rnn_gradients.eig.im"))
    eig_labels = (
        t("rnn_gradients.eig.points"),
        t("rnn_gradients.eig.unit"),
        t("rnn_gradients.eig.radius", radius=radius),
    )
    if P:  # stacked, each chart at the presenter's size
        ui.chart(
            fig.decay_figure(
                distance,
                series,
                title=titles[0],
                x_title=decay_axes[0],
                y_title=decay_axes[1],
                bound=bound,
                presenter=True,
            ),
            key="rnng_decay",
        )
        ui.chart(
            fig.eigen_figure(
                fresh["eig"],
                radius=radius,
                title=titles[1],
                x_title=eig_axes[0],
                y_title=eig_axes[1],
                eig_label=eig_labels[0],
                unit_label=eig_labels[1],
                radius_label=eig_labels[2],
                presenter=True,
            ),
            key="rnng_eig",
        )
    else:  # side by side in one figure: one chart for the browser to redraw per step of ρ
        ui.chart(
            fig.fresh_figure(
                distance,
                series,
                fresh["eig"],
                radius=radius,
                bound=bound,
                titles=titles,
                decay_axes=decay_axes,
                eig_axes=eig_axes,
                eig_labels=eig_labels,
            ),
            key="rnng_fresh",
        )
    far = length - 1
    rnn_far = float(fresh["rnn"][far])
    st.caption(
        t(
            "rnn_gradients.fresh.caption",
            radius=radius,
            far=far,
            rnn=sci(rnn_far),
            bound=sci(radius**far),
            lstm=sci(float(fresh["lstm"][far])),
            gru=sci(float(fresh["gru"][far])),
            sigma=f"{fresh['sigma1']:.2f}",
            drive=drive,
        )
    )
    st.info(
        t(
            "rnn_gradients.fresh.takeaway_vanish"
            if radius < 1
            else "rnn_gradients.fresh.takeaway_grow",
            radius=radius,
        ),
        icon=":material/lightbulb:",
    )


def quantity_picker() -> str:
    """What parts 1 and 2 measure (one URL parameter, the same control in both parts)."""
    quantity = ui.params.get_choice("q", QUANTITIES, default="state")
    quantity = st.segmented_control(
        t("rnn_gradients.fresh.quantity"),
        QUANTITIES,
        format_func=ui.labeler("rnn_gradients.q."),
        required=True,
        **ui.params.bound("q", quantity, key="rnng_q"),
    )
    ui.params.set_params(q=quantity)
    return quantity


@st.fragment  # the quantity reruns this part; the radius, length, drive, seed less of it
def fresh_part() -> None:
    st.header(t("rnn_gradients.fresh.header"))
    st.markdown(t("rnn_gradients.fresh.intro"))
    fresh_section(quantity_picker())


# --- 2. the same measurement inside trained models ---------------------------------------


@st.fragment  # the quantity reruns only this part
def trained_part() -> None:
    st.header(t("rnn_gradients.trained.header"))
    st.markdown(t("rnn_gradients.trained.intro"))
    quantity = quantity_picker()
    if not require(*PROBES.values(), vocabs=False):
        return
    # the probes are measured in a thread of their own, started here (not at the top of the
    # page): the text and the control above are already on their way to the browser
    with st.spinner(t("rnn_gradients.computing")):
        trained = jobs.result_of(trained_job)
    dist_t = trained["rnn"]["distance"]
    ui.chart(
        fig.decay_figure(
            dist_t,
            {PROBES[k]: trained[k][quantity] for k in CELLS},
            title=t("rnn_gradients.trained.chart", n=N_STATE if quantity == "state" else N_SEQ),
            x_title=t("rnn_gradients.trained.distance_axis"),
            y_title=t(f"rnn_gradients.q.{quantity}.axis_trained"),
            presenter=P,
        ),
        key="rnng_trained",
    )
    d_show = min(40, int(dist_t[-1]))
    st.caption(
        t(
            f"rnn_gradients.trained.caption_{quantity}",
            d=d_show,
            rnn=sci(float(trained["rnn"][quantity][d_show])),
            lstm=sci(float(trained["lstm"][quantity][d_show])),
            gru=sci(float(trained["gru"][quantity][d_show])),
            n=N_STATE if quantity == "state" else N_SEQ,
        )
    )


# --- 3. what it does to learning ------------------------------------------------------------


@st.fragment  # the loss/accuracy switch reruns only this section
def learn_section() -> None:
    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        manifest = None
        show_zoo_error(err)
    entries = {}
    if manifest is not None:
        entries = {n: manifest["models"].get(n) for n in PROBES.values()}
        missing = [n for n, e in entries.items() if not e or not e.get("curve")]
        if missing:
            st.warning(
                t("rnn_gradients.learn.missing", models=", ".join(missing)),
                icon=":material/inventory_2:",
            )
        entries = {n: e for n, e in entries.items() if n not in missing}
    curve_col = ui.params.get_choice("curve", CURVES, default="acc")
    curve_col = st.segmented_control(
        t("rnn_gradients.learn.curve"),
        CURVES,
        format_func=ui.labeler("rnn_gradients.learn.curve."),
        required=True,
        **ui.params.bound("curve", curve_col, key="rnng_curve"),
    )
    ui.params.set_params(curve=curve_col)
    if entries:
        col = {"loss": 1, "acc": 2}[curve_col]
        steps = sorted({int(e.get("steps", 0)) for e in entries.values()})
        curves_fig = fig.curves_figure(
            {n: e["curve"] for n, e in entries.items()},
            column=col,
            title=t("rnn_gradients.learn.curve_chart"),
            x_title=t("rnn_gradients.learn.step_axis"),
            y_title=t(f"rnn_gradients.learn.curve.{curve_col}.axis"),
            presenter=P,
        )
        dist_keys = [str(d) for d in probes_data.EVAL_DISTANCES]
        acc_series = {
            n: [float(e.get("metrics", {}).get("distance", {}).get(k, np.nan)) for k in dist_keys]
            for n, e in entries.items()
        }
        acc_series = {n: v for n, v in acc_series.items() if np.all(np.isfinite(v))}
        if P:
            ui.chart(curves_fig, key="rnng_curves")
        else:
            left, right = st.columns(2)
            with left:
                ui.chart(curves_fig, key="rnng_curves")
        if acc_series:
            acc_fig = fig.accuracy_figure(
                list(probes_data.EVAL_DISTANCES),
                acc_series,
                chance=1 / probes_data.N_KEYS,
                chance_label=t("rnn_gradients.learn.chance"),
                title=t("rnn_gradients.learn.acc_chart"),
                x_title=t("rnn_gradients.trained.distance_axis"),
                y_title=t("rnn_gradients.learn.acc_axis"),
                presenter=P,
            )
            if P:
                ui.chart(acc_fig, key="rnng_acc")
            else:
                with right:
                    ui.chart(acc_fig, key="rnng_acc")
            far_d = dist_keys[-1]
            st.caption(
                t(
                    "rnn_gradients.learn.caption",
                    steps=" / ".join(str(s) for s in steps),
                    d=far_d,
                    accs=", ".join(f"{n} {acc_series[n][-1]:.0%}" for n in acc_series),
                    chance=f"{1 / probes_data.N_KEYS:.0%}",
                )
            )


def learn_part() -> None:
    st.header(t("rnn_gradients.learn.header"))
    st.markdown(t("rnn_gradients.learn.intro"))
    learn_section()


# --- 4. which words still reach the end ---------------------------------------------------


@st.fragment  # the encoder choice and the sentence rerun only this section
def words_section() -> None:
    encoder = ui.params.get_choice("model", ENCODERS, default="gru_plain_256")
    if (st.query_params.get("text") or "x").strip():
        text = ui.params.get_text("text", DEFAULT_TEXT, max_len=300)
    else:
        text = ""  # the user cleared the box: say so below, do not bring the example back
    encoder = st.segmented_control(
        t("rnn_gradients.words.model"),
        ENCODERS,
        required=True,
        **ui.params.bound("model", encoder, key="rnng_model"),
    )
    ui.params.set_params(model=encoder)  # the sentence joins the URL once it is edited
    text = st.text_area(
        t("rnn_gradients.words.text"),
        max_chars=300,
        height=90,
        **ui.params.bound("text", text, key="rnng_text"),
    )
    if require(encoder, vocabs=False):
        try:
            src_vocab, _ = get_vocabs()
            tokens = prepare(text, src_vocab)
        except zoo.ZooError as err:
            tokens = None
            show_zoo_error(err)
        except InputError as err:
            tokens = None
            if err.reason == "unknown":
                words = "; ".join(
                    t(
                        "rnn_gradients.words.unknown_one",
                        word=safe_value(o.word),
                        options=", ".join(f"`{safe_value(s)}`" for s in o.suggestions) or "—",
                    )
                    for o in err.unknown
                )
                st.warning(
                    t("rnn_gradients.words.unknown", words=words), icon=":material/spellcheck:"
                )
            elif err.reason == "too_long":
                n = len(tokenize_en(text))
                st.warning(
                    t("rnn_gradients.words.too_long", n=n, limit=err.limit),
                    icon=":material/short_text:",
                )
            else:
                st.warning(t("rnn_gradients.words.empty"), icon=":material/short_text:")
        if tokens is not None:
            ids = tuple(src_vocab.encode(tokens, eos=True))
            with st.spinner(t("rnn_gradients.computing")):
                values = influence(encoder, ids)
            words = [*tokens, "<eos>"]
            ui.chart(
                fig.influence_strip(
                    words,
                    values,
                    title=t("rnn_gradients.words.chart", model=encoder, n=len(tokens)),
                    colorbar_title=t("rnn_gradients.words.colorbar"),
                    presenter=P,
                ),
                key="rnng_words",
            )
            first, last = float(values[0]), float(values[-2] if len(values) > 1 else values[-1])
            st.caption(
                t(
                    "rnn_gradients.words.caption",
                    model=encoder,
                    first=tokens[0],
                    first_v=sci(first),
                    last=tokens[-1],
                    last_v=sci(last),
                    ratio=sci(last / first),
                )
            )


def words_part() -> None:
    st.header(t("rnn_gradients.words.header"))
    st.markdown(t("rnn_gradients.words.intro"))
    words_section()


# --- 5. exploding gradients: one training step, with and without clipping ----------------


@st.fragment  # the scale slider reruns only this section
def explode_section() -> None:
    clip = clip_threshold()
    big = ui.params.get_float("big", 0.5, 5.0, 3.0)
    big = st.select_slider(
        t("rnn_gradients.explode.scale"),
        options=[float(r) for r in SWEEP],
        **ui.params.bound("big", min(SWEEP, key=lambda r: abs(r - big)), key="rnng_big"),
    )
    ui.params.set_params(big=big)
    with st.spinner(t("rnn_gradients.computing")):
        sweep = jobs.result_of(sweep_job, clip)
    chosen = next(s for s in sweep if abs(s.radius - big) < 1e-9)
    # short labels, the detail in their help: at the presenter's size a label gets one line
    # of a quarter (laptop) or half (presenter: two rows of two) of the width
    cols = [*st.columns(2), *st.columns(2)] if P else st.columns(4)
    metrics = {
        "grad": chosen.grad_norm,
        "weights": chosen.weight_norm,
        "plain": chosen.update_plain,
        "clipped": chosen.update_clipped,
    }
    for col, (name, value) in zip(cols, metrics.items(), strict=True):
        col.metric(
            t(f"rnn_gradients.explode.{name}"),
            sci(value),
            help=t(f"rnn_gradients.explode.{name}_help", lr=LR, clip=clip),
        )
    ui.chart(
        fig.explosion_figure(
            [s.radius for s in sweep],
            [s.grad_norm for s in sweep],
            chosen=big,
            clip=clip,
            clip_label=t("rnn_gradients.explode.clip_line", clip=clip),
            title=t("rnn_gradients.explode.chart"),
            x_title=t("rnn_gradients.explode.scale_axis"),
            y_title=t("rnn_gradients.explode.grad_axis"),
            presenter=P,
        ),
        key="rnng_explode",
    )
    st.caption(
        t(
            "rnn_gradients.explode.caption",
            radius=big,
            grad=sci(chosen.grad_norm),
            plain=sci(chosen.update_plain),
            rel=sci(chosen.update_plain / chosen.weight_norm),
            clipped=sci(chosen.update_clipped),
            clip=clip,
            lr=LR,
            loss0=f"{chosen.loss_before:.3f}",
            loss_plain=f"{chosen.loss_after_plain:.3f}",
            loss_clipped=f"{chosen.loss_after_clipped:.3f}",
        )
    )


def explode_part() -> None:
    st.header(t("rnn_gradients.explode.header"))
    st.markdown(t("rnn_gradients.explode.intro"))
    explode_section()


# --- the chosen part, then the page's takeaway and what to try in this part ------------------
{
    "fresh": fresh_part,
    "trained": trained_part,
    "learn": learn_part,
    "words": words_part,
    "explode": explode_part,
}[part]()

st.header(t("rnn_gradients.takeaway.header"))
st.markdown(t("rnn_gradients.takeaway.text"))
if part in TRY:
    st.subheader(t("rnn_gradients.try.header"))
    for key in TRY[part]:
        st.markdown(f"- {t(f'rnn_gradients.try.{key}')}")
