"""Part "cicadas" (lesson 2.1): the lesson's long dependency, 秋蝉 … 它们, met by every
translation model. On sentences of the same kind (a singer or the trees first, "so you can
hear their song" or "see their shade" 5 to 40 words later, never in training), the share
whose translation writes the right noun where "their" stands, by distance."""

from __future__ import annotations

import streamlit as st

import ui
from charts import path_length as figures
from charts.common import Titles
from core import zoo
from core.corpus.lesson import CICADAS
from lessons import controls, far_example
from lessons.path_length import data
from lessons.path_length.common import header
from ui.models import show_zoo_error

t = ui.t
READINGS = ("both", "song", "shade")  # the chart's choice: both readings, or one of them
FALLS = 0.3  # a model "falls with distance" when it loses this much from nearest to farthest
MISSES_NEAR = 0.2  # ... and "misses even near" when it is right this rarely at the nearest


def show() -> None:
    # Imported here: it imports torch (~1.5 s on a cold server), which the table never needs.
    from core.analysis import distance_probes

    header("path_length.cicadas.header")
    it, noun = CICADAS.pair_zh[1], CICADAS.pair_zh[0]
    s = ui.slide(t("path_length.cicadas.lead", it=it, noun=noun))
    with s.control:
        reading = controls.segmented(
            t("path_length.cicadas.reading"),
            READINGS,
            ui.params.get_choice("reading", READINGS, default="both"),
            param="reading",
            key="path_reading",
            format_func=ui.labeler("path_length.cicadas.reading."),
        )
    found = measured()
    if found is None:
        return
    series = resolved(found, None if reading == "both" else reading)
    models = {ui.model_name(m): m for m in found.right}
    zh = ui.current_lang() == "zh"
    with s.chart:
        ui.chart(
            figures.longrange_chart(
                found.distances,
                series,
                models=models,
                together=distance_probes.overlaps(series),
                together_label=t("path_length.probes.together"),
                joiner="、" if zh else ", ",
                titles=Titles(
                    t(f"path_length.cicadas.title.{reading}", it=it, noun=noun),
                    t("path_length.cicadas.x"),
                    t("path_length.cicadas.y"),
                ),
                presenter=ui.presenter(),
            ),
            key="path_cicadas_chart",
        )
    with s.words:
        st.caption(words(found, series, reading))
        near, far = found.distances[0], found.distances[-1]
        early = [x for x, v in series.items() if v[0] <= MISSES_NEAR]
        if early:
            ui.mixed(
                t(
                    "path_length.cicadas.mixed",
                    names=("、" if zh else "; ").join(early),
                    near=near,
                    acc=f"{max(series[x][0] for x in early):.0%}",
                )
            )
        far_link(far)
    ui.takeaway(t("path_length.cicadas.takeaway", far=far))
    ui.try_this(t("path_length.cicadas.try"))
    with ui.curious():
        st.markdown(
            t(
                "path_length.cicadas.curious",
                sentence=CICADAS.en,
                n=int(found.counts.sum()),
                distances=", ".join(str(d) for d in found.distances),
                totals=" · ".join(
                    f"{ui.model_name(m)} {found.overall(m):.1%}" for m in found.right
                ),
            )
        )


def far_link(far: int) -> None:
    """A link to one of these sentences in the alignment, on the row that writes the noun
    for "their": where attention answers the long dependency, word by word."""
    pair = far_example.sentence()
    if pair is None:
        return
    ui.page_link(
        "pages/attention.py",
        label=t("path_length.cicadas.link_align", far=dict(pair.info)["distance"]),
        icon=":material/arrow_forward:",
        query_params={"part": "align", "model": far_example.MODEL, "s": " ".join(pair.src)},
    )


def measured():
    """The long-range chart's numbers for the models that load; the missing ones named, and
    ``None`` when none loads or the vocabularies do not."""
    names = data.loadable()
    missing = [m for m in data.LONGRANGE_MODELS if m not in names]
    if missing:
        st.info(
            t("path_length.cicadas.missing", models=", ".join(map(ui.model_name, missing))),
            icon=":material/hourglass:",
        )
    if not names:
        return None
    try:
        return data.longrange(names)
    except zoo.ZooError as err:
        show_zoo_error(err)
        return None


def resolved(found, reading: str | None) -> dict[str, list[float]]:
    """{model's name: share right at each distance} for ``reading`` (None: both)."""
    return {ui.model_name(m): found.by_distance(m, reading).tolist() for m in found.right}


def words(found, series: dict[str, list[float]], reading: str) -> str:
    """The chart's caption: what a point is, then who falls with distance and who holds."""
    zh = ui.current_lang() == "zh"
    join = "、" if zh else "; "  # the models' names hold commas
    per = found.per_distance() // (1 if reading == "both" else len(found.readings))
    near, far = found.distances[0], found.distances[-1]
    falls = [x for x, v in series.items() if v[0] - v[-1] >= FALLS]
    holds = [x for x, v in series.items() if min(v) >= 0.95]
    return t(
        "path_length.cicadas.caption",
        n=per,
        near=near,
        far=far,
        falls=join.join(
            t(
                "path_length.cicadas.item",
                name=x,
                near=f"{series[x][0]:.0%}",
                far=f"{series[x][-1]:.0%}",
            )
            for x in falls
        )
        or t("path_length.cicadas.none"),
        holds=join.join(holds) or t("path_length.cicadas.none"),
    )
