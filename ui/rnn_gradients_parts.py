"""The RNN-gradients page's controls and figures, written once: a choice kept in the URL
(the quantity of parts 1 and 2, the training curve, the encoder), the fresh cells' charts,
the probes' training records and the checks of a typed sentence.

Nothing here keeps state between reruns: values live in the URL and ``st.session_state``,
and the language and presenter flag are read on every call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

import ui
from core import zoo
from core.analysis import explosion as ex
from core.figures import rnn_gradients as fig
from core.translate import InputError, prepare
from core.vocab import tokenize_en
from ui.models import get_manifest, get_vocabs, show_zoo_error
from ui.params import safe_value
from ui.rnn_gradients_data import CELLS, HIDDEN, PROBES, names, sci

R = "rnn_gradients."
QUANTITIES = ("state", "input")


def choice(
    label: str,
    options: Sequence[str],
    *,
    param: str,
    default: str,
    key: str,
    format_func: Callable[[str], str] = str,
) -> str:
    """One of ``options`` on a segmented control, in the URL as ``param`` (a bad value falls
    back to ``default`` with the usual notice)."""
    value = st.segmented_control(
        label,
        options,
        format_func=format_func,
        required=True,
        **ui.params.bound(param, ui.params.get_choice(param, options, default=default), key=key),
    )
    ui.params.set_params(**{param: value})
    return value


def quantity_picker() -> str:
    """What parts 1 and 2 measure (one URL parameter, the same control in both parts)."""
    return choice(
        ui.t(R + "fresh.quantity"),
        QUANTITIES,
        param="q",
        default="state",
        key="rnng_q",
        format_func=ui.labeler(R + "q."),
    )


# --- part 1: the fresh cells' charts ----------------------------------------------------------


def _eig_labels(radius: float) -> tuple[str, str, str]:
    t = ui.t
    return (t(R + "eig.points"), t(R + "eig.unit"), t(R + "eig.radius", radius=radius))


def fresh_chart(fresh: dict, radius: float, length: int, quantity: str) -> None:
    """The decay of each fresh cell with the bound ρ^(T−t): on the projector alone, one
    chart that fills the slide; in the browser beside the eigenvalues in one figure (one
    chart for the browser to redraw per step of ρ), on a phone above them."""
    t = ui.t
    distance = np.arange(length)
    series = {ui.model_name(PROBES[k]): fresh[k] for k in CELLS}
    looks = names(PROBES.values())
    bound = (t(R + "bound", radius=radius), radius ** distance.astype(float))
    title = t(R + "fresh.chart", radius=radius, hidden=HIDDEN, length=length)
    decay_axes = (t(R + "distance_axis"), t(R + f"q.{quantity}.axis"))
    if ui.presenter():
        figure = fig.decay_figure(
            distance,
            series,
            title=title,
            x_title=decay_axes[0],
            y_title=decay_axes[1],
            bound=bound,
            presenter=True,
            looks=looks,
        )
        ui.chart(figure, key="rnng_decay")
        return
    figure = fig.fresh_figure(
        distance,
        series,
        fresh["eig"],
        radius=radius,
        bound=bound,
        titles=(title, t(R + "eig.chart", hidden=HIDDEN)),
        decay_axes=decay_axes,
        eig_axes=(t(R + "eig.re"), t(R + "eig.im")),
        eig_labels=_eig_labels(radius),
        looks=looks,
        stacked=ui.on_a_phone(),  # side by side, both panels would be too narrow to read
    )
    ui.chart(figure, key="rnng_fresh")


def eigen_chart(fresh: dict, radius: float) -> None:
    """The vanilla RNN's eigenvalues as a chart of their own (the projector's second chart)."""
    t = ui.t
    eig, unit, rad = _eig_labels(radius)
    figure = fig.eigen_figure(
        fresh["eig"],
        radius=radius,
        title=t(R + "eig.chart", hidden=HIDDEN),
        x_title=t(R + "eig.re"),
        y_title=t(R + "eig.im"),
        eig_label=eig,
        unit_label=unit,
        radius_label=rad,
        presenter=True,
    )
    ui.chart(figure, key="rnng_eig")


# --- part 3: the probes' training records -----------------------------------------------------


def probe_records() -> dict[str, dict]:
    """The manifest entries of the probes that carry a training curve ({} after saying what
    is missing)."""
    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        show_zoo_error(err)
        return {}
    entries = {n: manifest["models"].get(n) for n in PROBES.values()}
    missing = [n for n, e in entries.items() if not e or not e.get("curve")]
    if missing:
        st.warning(
            ui.t(R + "learn.missing", models=", ".join(ui.model_name(m) for m in missing)),
            icon=":material/inventory_2:",
        )
    return {n: e for n, e in entries.items() if n not in missing}


def overlap_note(acc: dict[str, list[float]]) -> str | None:
    """A label for lines drawn exactly on top of each other (no legend entry hidden)."""
    same = [n for n in acc if n != "probe_rnn" and acc[n] == acc.get("probe_lstm")]
    if len(same) < 2:
        return None
    return ui.t(R + "learn.overlap", models=" / ".join(ui.model_name(n) for n in same))


# --- part 4: a typed sentence -----------------------------------------------------------------


def words_tokens(text: str) -> list[str] | None:
    """The sentence's tokens, or None after saying what is wrong with it."""
    t = ui.t
    try:
        return prepare(text, get_vocabs()[0])
    except zoo.ZooError as err:
        show_zoo_error(err)
    except InputError as err:
        if err.reason == "unknown":
            words = "; ".join(
                t(
                    R + "words.unknown_one",
                    word=safe_value(o.word),
                    options=", ".join(f"`{safe_value(s)}`" for s in o.suggestions) or "—",
                )
                for o in err.unknown
            )
            st.warning(t(R + "words.unknown", words=words), icon=":material/spellcheck:")
        elif err.reason == "too_long":
            n = len(tokenize_en(text))
            st.warning(t(R + "words.too_long", n=n, limit=err.limit), icon=":material/short_text:")
        else:
            st.warning(t(R + "words.empty"), icon=":material/short_text:")
    return None


def explode_curious(res: ex.Explosion, lr: float, clip: float) -> None:
    """The explode part's "for the curious": the batch gradient norms, the clip threshold
    and the losses after one step at the chosen learning rate ``lr``."""
    i = res.at(lr)
    with ui.curious():
        st.markdown(
            ui.t(
                R + "explode.curious",
                n=len(res.batch_norms),
                lo=sci(min(res.batch_norms)),
                hi=sci(max(res.batch_norms)),
                clip=clip,
                loss0=f"{res.loss_before:.2f}",
                loss_plain=f"{res.loss_plain[i]:.2f}",
                loss_clipped=f"{res.loss_clipped[i]:.2f}",
                lr=lr,
                n_eval=ex.N_EVAL * len(ex.EVAL_DISTANCES),
                ds=", ".join(str(d) for d in ex.EVAL_DISTANCES),
            )
        )
