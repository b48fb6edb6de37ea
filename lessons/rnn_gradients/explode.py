"""Part 5, exploding gradients: one training step of the plain RNN probe at a chosen
learning rate, with and without gradient-norm clipping, and its accuracy after the step."""

from __future__ import annotations

import numpy as np
import streamlit as st

import ui
from charts import rnn_gradients as figures
from charts.common import Titles
from core import probes_data
from core.analysis import explosion
from lessons.rnn_gradients import data
from lessons.rnn_gradients.common import sci
from serve import jobs
from ui.models import require

t = ui.t


@ui.fragment  # the learning rate reruns only this part
def show() -> None:
    st.header(t("rnn_gradients.explode.header"))
    s = ui.slide(t("rnn_gradients.explode.lead"))
    if not require("probe_rnn", vocabs=False):
        return
    clip = data.clip_threshold()
    with st.spinner(t("rnn_gradients.computing")):
        res = jobs.result_of(data.explosion_job, clip)
    default = explosion.clearest_lr(res)
    with s.control:
        asked = ui.params.get_float("lr", min(res.lrs), max(res.lrs), default)
        lr = st.select_slider(
            t("rnn_gradients.explode.lr"),
            options=list(res.lrs),
            **ui.params.bound(
                "lr", min(res.lrs, key=lambda x: abs(np.log(x / asked))), key="rnng_lr"
            ),
        )
        ui.params.set_params(lr=lr)
    i = res.at(lr)
    with s.chart:
        ui.chart(
            figures.step_figure(
                res.lrs,
                res.acc_before,
                res.acc_plain,
                res.acc_clipped,
                chosen=lr,
                chance=1 / probes_data.N_KEYS,
                labels={
                    k: t(f"rnn_gradients.explode.{k}")
                    for k in ("plain", "clipped", "before", "chance")
                },
                titles=Titles(
                    t("rnn_gradients.explode.chart", model=ui.model_name("probe_rnn")),
                    t("rnn_gradients.explode.lr_axis"),
                    t("rnn_gradients.explode.acc_axis"),
                ),
                presenter=ui.presenter(),
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
        st.caption(t("rnn_gradients.explode.caption", **nums))
    ui.takeaway(t(f"rnn_gradients.explode.takeaway_{explosion.outcome(res, lr)}", **nums))
    ui.try_this(t("rnn_gradients.try.explode"))
    explode_curious(res, lr, clip)


def explode_curious(res: explosion.Explosion, lr: float, clip: float) -> None:
    """The part's "for the curious": the batch gradient norms, the clip threshold and the
    losses after one step at the chosen learning rate ``lr``."""
    i = res.at(lr)
    with ui.curious():
        st.markdown(
            t(
                "rnn_gradients.explode.curious",
                n=len(res.batch_norms),
                lo=sci(min(res.batch_norms)),
                hi=sci(max(res.batch_norms)),
                clip=clip,
                loss0=f"{res.loss_before:.2f}",
                loss_plain=f"{res.loss_plain[i]:.2f}",
                loss_clipped=f"{res.loss_clipped[i]:.2f}",
                lr=lr,
                n_eval=explosion.N_EVAL * len(explosion.EVAL_DISTANCES),
                ds=", ".join(str(d) for d in explosion.EVAL_DISTANCES),
            )
        )
