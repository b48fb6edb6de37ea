"""Part 4, the lesson's three problems (alignment, one fixed state, relation distance), each
with its small picture, and the remedies that lead to attention."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from core import lexicon, zoo
from core.analysis import path_length as analysis
from lessons.path_length import data
from lessons.path_length.common import arch_names, header

t = ui.t
PROBLEMS = ("alignment", "state", "distance")
# where each problem is shown, and where its remedy is: (page, part) for each link
PROBLEM_LINKS = {
    "alignment": (("attention", "align"),),
    "state": (("bottleneck", "length"), ("attention", "align")),
    "distance": (("path_length", "pair"), ("path_length", "cicadas"), ("attention", "self")),
}
DISTANCES = (1, 5, 10, 20, 30, 40, 50, 60)


# The fixed state's picture is the bottleneck's accuracy by length: where the deck's path has
# shown it already, this summary links back to it instead of drawing it again.
STATE_PICTURE = ("bottleneck", "length")


def show() -> None:
    header("path_length.problems.header")
    present = ui.presenter()
    seen = ui.shown_before(*STATE_PICTURE, here=("path_length", "problems"))
    s = ui.slide(t("path_length.problems.lead"))
    with s.chart:
        ui.chart(
            figures.problems_figure(
                problem_panels(state=not seen),
                title="",
                presenter=present,
                # a phone: one panel under the other (side by side each is too narrow);
                # in presenter mode ui.chart fits the projector, not the phone
                stacked=ui.on_a_phone() and not present,
            ),
            key="path_problems_chart",
        )
    with s.words:
        for col, key in zip(st.columns(len(PROBLEMS)), PROBLEMS, strict=True):
            with col:
                st.markdown(t(f"path_length.problems.{key}"))
                if key == "state" and seen:
                    st.markdown(t("path_length.problems.state.seen", slide=seen))
                if key == "distance":
                    distance_measured()
                st.markdown(t(f"path_length.problems.{key}.remedy"))
                for slug, part in PROBLEM_LINKS[key]:
                    ui.page_link(
                        f"pages/{slug}.py",
                        label=t(f"path_length.problems.link.{slug}.{part}"),
                        icon=":material/arrow_forward:",
                        query_params={"part": part},
                    )
        st.markdown(t("path_length.problems.remedies"))
    ui.takeaway(t("path_length.problems.takeaway"))
    ui.try_this(t("path_length.problems.try_linked" if seen else "path_length.problems.try"))


def distance_measured() -> None:
    """The lesson's long dependency as measured on the path-length part that draws it: one
    line that links back to that chart (the class path shows each picture once)."""
    try:
        found = data.longrange(data.loadable())
    except zoo.ZooError:
        return  # the part that draws the chart names the missing file
    if not found.right:
        return
    attn, best = found.farthest()
    if not attn or best is None:
        return
    zh = ui.current_lang() == "zh"
    slide = ui.shown_before("path_length", "cicadas", here=("path_length", "problems"))
    st.markdown(
        t(
            "path_length.problems.distance.measured",
            slide=slide or t("path_length.part.cicadas"),
            far=found.distances[-1],
            attn=("、" if zh else " and ").join(ui.model_name(m) for m in attn),
            attn_acc=share_range(list(attn.values())),
            best=ui.model_name(best[0]),
            best_acc=f"{best[1]:.0%}",
        )
    )


def share_range(values: list[float]) -> str:
    """ "100%" for shares that round alike, else "97%–100%"."""
    lo, hi = f"{min(values):.0%}", f"{max(values):.0%}"
    return lo if lo == hi else f"{lo}–{hi}"


def problem_panels(state: bool = True) -> list[dict]:
    """The three small pictures: equal shares, accuracy by length (``state``: drawn, not
    linked back to), hops by distance."""
    from ui.models import get_manifest

    src = list(analysis.ALIGN_SOURCE)
    panels = [
        dict(
            title=t("path_length.problems.fig.alignment"),
            kind="bar",
            x=src,
            series={t("path_length.problems.fig.share"): analysis.equal_shares(len(src))},
            x_title=t(
                "path_length.problems.fig.alignment.x",
                sentence=" ".join(src),
                translation=analysis.ALIGN_TRANSLATION,
            ),
            y_title=t("path_length.problems.fig.alignment.y", target=analysis.ALIGN_TARGET),
            y_range=[0, 1],
            y_format=".0%",
        )
    ]
    try:
        buckets, by_length = analysis.length_evidence(get_manifest())
    except zoo.ZooError:
        buckets, by_length = [], {}
    if by_length and state:
        panels.append(
            dict(
                title=t("path_length.problems.fig.state"),
                x=buckets,
                series={ui.model_name(m): v for m, v in by_length.items()},
                looks={ui.model_name(m): lexicon.look(m) for m in by_length},
                x_title=t("path_length.problems.fig.state.x"),
                y_title=t("path_length.problems.fig.state.y"),
                y_range=[0, 1.05],
                y_format=".0%",
            )
        )
    hops = analysis.hops_by_distance(DISTANCES)
    names = arch_names()
    panels.append(
        dict(
            title=t("path_length.problems.fig.distance"),
            x=list(DISTANCES),
            series={names[a]: v for a, v in hops.items()},
            looks={names[a]: figures.arch_look(a) for a in hops},
            x_title=t("path_length.problems.fig.distance.x", k=analysis.DISTANCE_K),
            y_title=t("path_length.problems.fig.distance.y"),
        )
    )
    return panels
