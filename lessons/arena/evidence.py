"""Part "evidence" of the model arena: not just this sentence. The held-out accuracy of every
model against sentence length (the slide), then the probes' memory against distance; kept
back in predict mode until every model is revealed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

import core.zoo as zoo
import ui
from charts import arena as figures
from charts.common import Titles
from core import corpus, probes_data
from core.analysis import arena as analysis
from lessons.arena import common

METRICS = ("exact", "edit_acc", "token_acc")


def show() -> None:
    available, manifest, _ = common.open_zoo()
    common.header("arena.evidence.header")
    mode = ui.params.get_choice("mode", common.MODES, default="show")
    revealed = ui.params.get_int("reveal", 0, len(common.MODELS), 0)
    if mode == "predict" and revealed < len(available):
        st.info(ui.t("arena.evidence.after_reveal"), icon=":material/visibility_off:")
        st.button(
            ui.t("arena.to_sentence"),
            on_click=common.open_part,
            args=("sentence",),
            icon=":material/arrow_back:",
            key="arena_to_sentence",
        )
    else:
        section(manifest)
    common.closing("arena.evidence.takeaway", "arena.evidence.try", manifest)


@ui.fragment  # the score choice reruns only the evidence
def section(manifest: dict[str, Any]) -> None:
    """Accuracy against length (the slide), then memory against distance."""
    t, names = ui.t, common.names()
    claim = analysis.length_claim(analysis.exact_by_length(manifest, common.MODELS))
    s = ui.slide(t(f"arena.{claim['lead']}", **claim) if claim else t("arena.evidence.lead_plain"))
    with s.control:
        metric = common.choice("metric", METRICS, "exact", "arena_metric", "arena.metric")
    by_length = analysis.exact_by_length(manifest, common.MODELS, metric=metric)
    with s.chart:
        if by_length:
            fig_len = figures.accuracy_by_length(
                corpus.BUCKETS,
                by_length,
                titles=Titles(
                    t("arena.len.title", metric=t(f"arena.metric.{metric}")),
                    t("arena.len.x"),
                    t(f"arena.metric.{metric}"),
                ),
                names=names,
                presenter=ui.presenter(),
            )
            ui.chart(fig_len, key="arena_len_chart")
        else:
            st.info(t("arena.len.none"), icon=":material/hourglass_empty:")
    distances, by_distance = analysis.distance_accuracy(manifest, zoo.PROBE_MODELS)
    with s.words:
        n = analysis.smallest_bucket(manifest, list(by_length))
        st.caption(t("arena.len.caption", n=n if n is not None else "?"))
        fig_dist = distance_figure(distances, by_distance, names) if by_distance else None
        if fig_dist is not None:
            ui.chart(fig_dist, key="arena_dist_chart")
            st.caption(dist_caption(manifest, names))
            ui.mixed(t("arena.dist.mixed", steps=max(distances)))  # the longest measured
        else:
            st.info(t("arena.dist.none"), icon=":material/hourglass_empty:")
    with s.more, st.container(horizontal=True):
        if by_length:
            download(
                fig_len, "arena.html", f"arena_accuracy_by_length_{metric}.html", "arena_len_html"
            )
        if fig_dist is not None:
            download(
                fig_dist, "arena.dist.html", "arena_memory_by_distance.html", "arena_dist_html"
            )
    with s.words, ui.curious():
        st.markdown(t("arena.evidence.how", n=len(common.MODELS), n_probes=len(zoo.PROBE_MODELS)))


def distance_figure(distances, by_distance, names: Mapping[str, str]):
    """The distance probes' held-out accuracy against the distance between key and query."""
    t = ui.t
    return figures.accuracy_by_distance(
        distances,
        by_distance,
        titles=Titles(t("arena.dist.title"), t("arena.dist.x"), t("arena.dist.y")),
        chance=1 / probes_data.N_KEYS,
        chance_label=t("arena.dist.chance"),
        # lines with the same values lie on top of each other: their names say so
        names=same_names(analysis.identical_series(by_distance), names),
        presenter=ui.presenter(),
    )


def dist_caption(manifest: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The distance chart's caption, with where each CNN probe reaches chance as the chart
    samples it (below twice chance from the first distance past its last solved one)."""
    from core.analysis import distance_probes

    chance = 1 / probes_data.N_KEYS
    probes = distance_probes.probe_curves(manifest, zoo.PROBE_MODELS, lambda name, cfg: name)
    walls = []
    for name, field in probes.fields.items():
        w = distance_probes.wall(probes.distances, probes.series[name], field, chance)
        if w.at_chance_from is not None:
            walls.append(
                ui.t(
                    "arena.dist.wall",
                    name=names.get(name, name),
                    lost=w.at_chance_from,
                    sees=w.sees_up_to,
                )
            )
    sep = "；" if ui.current_lang() == "zh" else "; "
    return ui.t("arena.dist.caption", walls=sep.join(walls), twice=f"{2 * chance:.0%}")


def download(fig, label: str, file_name: str, key: str) -> None:
    """A button (its label: the catalogue's ``label``) that downloads ``fig`` as one
    self-contained HTML file."""
    st.download_button(
        ui.t(label),
        data=lambda: figures.standalone_html(fig),
        file_name=file_name,
        mime="text/html",
        on_click="ignore",
        icon=":material/download:",
        key=key,
    )


def same_names(groups: Sequence[Sequence[str]], names: Mapping[str, str]) -> dict[str, str]:
    """``names`` with each model of a group of identical lines named with the others ("X,
    same as Y"): lines with the same values lie on top of each other."""
    out = dict(names)
    for group in groups:
        for m in group:
            others = ", ".join(names[o] for o in group if o != m)
            out[m] = ui.t("arena.dist.same", name=names[m], others=others)
    return out
