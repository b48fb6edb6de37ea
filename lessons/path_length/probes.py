"""Part 3, the probes: every distance probe on one chart (measured accuracy by distance),
and what it does not show (gated RNNs hold one fact over 60 steps: the evidence is mixed).
Every probe is drawn in its one look from ``core.lexicon``; coinciding curves say so."""

from __future__ import annotations

import streamlit as st

import ui
from charts.common import Titles
from core import lexicon, zoo
from lessons import probe_chart
from lessons.path_length.common import header

t = ui.t
PROBES = zoo.PROBE_MODELS  # every distance probe, in the lesson's order


def show() -> None:
    # Imported here: both import torch (~1.5 s on a cold server), which the other parts of
    # this page never need.
    from core.analysis import distance_probes
    from core.probes_data import N_KEYS

    header("path_length.probes.header")
    s = ui.slide(t("path_length.probes.lead"))
    with s.chart:
        probes = probe_section()
    if probes is None:
        return
    distances, series = probes.distances, probes.series
    by_model = {
        m: distance_probes.reach(distances, series[label]) for label, m in probes.models.items()
    }
    far = distances[-1]
    with s.words:
        ranked = sorted(series, key=lambda x: -series[x][-1])
        summary = " · ".join(
            t("path_length.probes.item", name=x, acc=f"{series[x][-1]:.0%}") for x in ranked
        )
        st.caption(
            t("path_length.probes.caption", far=far, summary=summary, chance=f"{1 / N_KEYS:.0%}")
        )
    gated = [m for m in ("probe_lstm", "probe_gru") if m in by_model]
    if gated and "probe_rnn" in by_model:
        mixed_evidence(gated, by_model, far)
    ui.takeaway(t("path_length.probes.takeaway"))
    ui.try_this(probes_try(probes, 1 / N_KEYS))
    with ui.curious():
        st.markdown(t("path_length.probes.curious"))


def probes_try(probes, chance: float) -> str:
    """What to follow on the chart: where each CNN stops recalling, as sampled (computed from
    the manifest: the chart samples every few symbols, so a wall is only placed between two
    samples), whether any of them fails before its dashed line, then the rest."""
    from core.analysis import distance_probes

    ds = probes.distances
    walls, early, blind = [], [], True
    for label, field in probes.fields.items():
        w = distance_probes.wall(ds, probes.series[label], field, chance)
        blind = blind and w.blind_at_chance
        if w.solved_up_to is None or w.at_chance_from is None:
            walls.append(t("path_length.probes.wall_open", name=label, far=ds[-1]))
            continue
        right = probes.series[label][: ds.index(w.solved_up_to) + 1]
        walls.append(
            t(
                "path_length.probes.wall",
                name=label,
                acc=f"{min(right):.0%}",
                solved=w.solved_up_to,
                lost=w.at_chance_from,
                sees=w.sees_up_to,
            )
        )
        if w.at_chance_from <= w.sees_up_to:
            early.append(label)
    zh = ui.current_lang() == "zh"
    return t(
        "path_length.probes.try",
        walls=("；" if zh else "; ").join(walls),
        blind=t("path_length.probes.blind") if walls and blind else "",
        early=t("path_length.probes.early", names=_names_of(early, zh)) if early else "",
        step=min(b - a for a, b in zip(ds, ds[1:], strict=False)) if len(ds) > 1 else 1,
    )


def _names_of(labels: list[str], zh: bool) -> str:
    return ("、" if zh else " and ").join(labels)


def _names(models) -> str:
    """Display names (not file names) of ``models``, as a list in the session's language."""
    lang = ui.current_lang()
    shown = [lexicon.name(m, lang) if lexicon.known(m) else m for m in models]
    return ("、" if lang == "zh" else ", ").join(shown)


def probe_section():
    """Read the probes from the manifest, say which are missing and draw the
    accuracy-by-distance chart. Returns the curves drawn, or ``None`` if none."""
    from core.analysis import distance_probes

    curves = probe_chart.read_curves(PROBES)
    if curves.missing:
        st.info(
            t("path_length.probes.missing", models=_names(curves.missing)),
            icon=":material/hourglass:",
        )
    if not (curves.series and curves.distances):
        return None
    zh = ui.current_lang() == "zh"
    probe_chart.draw(
        curves,
        key="path_probes_chart",
        models=curves.models,
        together=distance_probes.overlaps(curves.series),
        together_label=t("path_length.probes.together"),  # {names} filled per group
        joiner="、" if zh else ", ",
        titles=Titles(
            t("path_length.probes.title"), t("path_length.probes.x"), t("path_length.probes.y")
        ),
        field_label=t("path_length.probes.field"),
        chance_label=t("path_length.probes.chance"),
    )
    return curves


def mixed_evidence(gated: list[str], by_model: dict, far: int) -> None:
    """The gated RNNs' mixed evidence, and the two parts that show the rest of the story."""
    low = min(by_model[m].lowest for m in gated)
    rnn = by_model["probe_rnn"]
    ui.mixed(
        t(
            "path_length.probes.mixed",
            gated=("、" if ui.current_lang() == "zh" else " / ").join(
                ui.model_name(m) for m in gated
            ),
            low=f"{low:.0%}",
            far=far,
            rnn=ui.model_name("probe_rnn"),
            rnn_near=f"{rnn.near:.0%}",
            rnn_far=f"{rnn.far:.0%}",
        )
    )
    ui.page_link(
        "pages/bottleneck.py",
        label=t("path_length.probes.link_bottleneck"),
        icon=":material/compress:",
        query_params={"part": "length"},
    )
    ui.page_link(
        "pages/path_length.py",
        label=t("path_length.probes.link_serial"),
        icon=":material/timeline:",
        query_params={"part": "table", "metric": "sequential"},
    )
