"""Home: the lesson as a map, the model zoo, and how to use the app in class."""

import pandas as pd
import streamlit as st

import core.zoo as zoo
import ui
from core import charts
from ui.nav import LESSON_MAP, is_built, page_spec

ui.begin_page("home")
t = ui.t
st.markdown(t("home.intro"))

# --- The lesson as a map -------------------------------------------------------------
st.header(t("home.map.header"))
st.caption(t("home.map.caption"))
for stop in LESSON_MAP:
    title = t(f"page.{stop.slug}.title")
    with st.container(border=True):
        head, action = st.columns([4, 1], vertical_alignment="center")
        with head:
            sections = t("home.map.sections", sections=stop.sections)
            st.markdown(f"**{title}** · {sections}  \n{t(f'page.{stop.slug}.claim')}")
        with action:
            spec = page_spec(stop.slug)
            if spec is not None and is_built(stop.slug):
                ui.page_link(
                    spec.path,
                    label=t("home.map.open"),
                    icon=":material/arrow_forward:",
                    query_params={"lang": ui.current_lang(), "present": int(ui.presenter())},
                )
            else:
                st.badge(t("home.map.coming"), icon=":material/schedule:", color="gray")

# --- The model zoo -----------------------------------------------------------------------
st.header(t("home.zoo.header"))
st.caption(t("home.zoo.caption"))

TASKS = ("all", "translation", "lm", "probe")
ATTENTION_MODELS = ("gru_attention", "cnn_s2s", "transformer", "probe_attention")  # highlighted
MODELS_BY_TASK = {
    "translation": zoo.TRANSLATION_MODELS,
    "lm": zoo.LM_MODELS,
    "probe": zoo.PROBE_MODELS,
}


def _task_of(name: str) -> str:
    return next(k for k, v in MODELS_BY_TASK.items() if name in v)


def _score(name: str, entry: dict) -> str:
    """One headline score per model, from the manifest (the details are on the pages)."""
    m = entry.get("metrics") or {}
    try:
        if name in zoo.TRANSLATION_MODELS:
            by = m["by_length"]
            return t(
                "home.zoo.score.translation",
                short=f"{by['1-10']['exact']:.0%}",
                long=f"{by['41+']['exact']:.0%}",
            )
        if name in zoo.PROBE_MODELS:
            dist = m["distance"]
            d_near, d_far = min(dist, key=int), max(dist, key=int)
            return t(
                "home.zoo.score.probe",
                d_near=d_near,
                near=f"{dist[d_near]:.0%}",
                d_far=d_far,
                far=f"{dist[d_far]:.0%}",
            )
        return t("home.zoo.score.lm", ppl=f"{m['test_ppl']:.2f}", cont=" ".join(m["you_should"]))
    except (KeyError, TypeError, ValueError):
        return "—"


@st.fragment  # the task filter reruns only this section, not the whole page
def zoo_section() -> None:
    """The zoo table and its parameter chart, filtered by task (in the link as ``task``)."""
    task = ui.params.get_choice("task", TASKS, default="all")
    with ui.secondary():
        task = st.segmented_control(
            t("home.zoo.filter"),
            TASKS,
            format_func=ui.labeler("home.zoo.task."),
            required=True,
            **ui.params.bound("task", task, key="home_task"),
        )
    ui.params.set_params(task=task)
    names = zoo.MODEL_NAMES if task == "all" else MODELS_BY_TASK[task]

    try:
        manifest = zoo.load_manifest()
    except zoo.ZooError as err:
        manifest = None
        key = {"missing": "zoo.missing", "corrupt": "zoo.corrupt"}.get(err.reason, "zoo.other")
        st.warning(
            t(key, file=err.filename, command=err.command, detail=err.detail, reason=err.reason),
            icon=":material/inventory_2:",
        )

    rows = []
    for name in names:
        row = {
            t("home.zoo.col.model"): name,
            t("home.zoo.col.task"): t(f"home.zoo.task.{_task_of(name)}"),
            t("home.zoo.col.what"): t(f"model.{name}.desc"),
        }
        entry = (manifest or {}).get("models", {}).get(name) if manifest else None
        if manifest is not None:
            entry = entry or {}
            row[t("home.zoo.col.params")] = entry.get("params")
            row[t("home.zoo.col.data")] = t(
                f"home.zoo.data.{_task_of(name)}", seed=entry.get("data_seed", "?")
            )
            row[t("home.zoo.col.steps")] = entry.get("steps")
            secs = entry.get("train_time_s")  # st.table would print a float as 52.7000
            row[t("home.zoo.col.time")] = f"{secs:,.0f}" if isinstance(secs, int | float) else None
            row[t("home.zoo.col.metrics")] = _score(name, entry)
        rows.append(row)
    # st.table wraps long descriptions and scales with the presenter stylesheet.
    st.table(pd.DataFrame(rows), hide_index=True)
    st.caption(t("home.zoo.count", shown=len(names), total=len(zoo.MODEL_NAMES)))

    if manifest is not None:
        sized = [(n, manifest["models"].get(n, {}).get("params")) for n in names]
        sized = [(n, p) for n, p in sized if isinstance(p, int | float) and p > 0]
        if sized:
            fig = charts.bar_chart(
                [n for n, _ in sized],
                [p for _, p in sized],
                title=t("home.zoo.chart.title"),
                x_title=t("home.zoo.chart.x"),
                y_title=t("home.zoo.chart.y"),
                presenter=ui.presenter(),
                log_y=True,
                highlight=[
                    n for n, _ in sized if "attention" in n or n in ("transformer", "cnn_s2s")
                ],
            )
            ui.chart(fig, key="home_params_chart")
            st.caption(t("home.zoo.chart.caption"))


zoo_section()

# --- In class ----------------------------------------------------------------------------
st.header(t("home.class.header"))
for key in ("present", "share", "links", "order", "honest"):
    st.markdown(f"- {t(f'home.class.{key}')}")
