"""The model zoo: every shipped model, what it is, its size and one score, by task."""

import streamlit as st

import core.zoo as zoo
import ui
from core import lexicon
from core import mdtable as md
from core.corpus import lesson
from lessons import controls

t = ui.t  # reads the visitor's language on every call

TASKS = ("all", "translation", "lm", "probe", "encoder")
ATTENTION_MODELS = (
    "gru_attention",
    "cnn_s2s",
    "transformer",
    "probe_attention",
    "coref_encoder",
)  # highlighted
MODELS_BY_TASK = {
    "translation": zoo.TRANSLATION_MODELS,
    "lm": zoo.LM_MODELS,
    "probe": zoo.PROBE_MODELS,
    "encoder": zoo.ENCODER_MODELS,
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
        if name in zoo.ENCODER_MODELS:
            return t(
                "home.zoo.score.encoder",
                named=f"{m['named_acc']:.0%}",
                n=m["held_out_n"],
                margin=f"{m['min_margin']:.2f}",
            )
        return t(
            "home.zoo.score.lm",
            ppl=f"{m['test_ppl']:.2f}",
            prompt=lesson.AUTOREGRESSION_PROMPT,
            cont=" ".join(m["you_should"]),
        )
    except (KeyError, TypeError, ValueError):
        return "—"


def _whole(value: object) -> str | None:
    """A count or a duration in whole units with thousands separators (52.7 -> "53")."""
    return f"{value:,.0f}" if isinstance(value, int | float) else None


def _size_cell(name: str, params: object, sizes: list[float]) -> str:
    """Parameter count with a log-scale bar (relative to the whole zoo, so bars compare
    across filters); orange for models with attention, blue for the others. The bar is
    at most 6 blocks, so the column stays narrow on a projector and a phone."""
    if not isinstance(params, int | float) or params <= 0 or not sizes:
        return md.escape(None)
    bar = md.log_bar(params, min(sizes), max(sizes), width=6)
    color = "orange" if name in ATTENTION_MODELS else "blue"
    return f":{color}[{bar}] {md.escape(f'{params:,.0f}')}"


@ui.fragment  # the task filter reruns only this section, not the whole page
def zoo_section() -> None:
    """The zoo table (sizes drawn as log-scale bars), filtered by task (in the link as ``task``)."""
    task = ui.params.get_choice("task", TASKS, default="all")
    with st.container():
        task = controls.segmented(
            t("home.zoo.filter"),
            TASKS,
            task,
            param="task",
            key="home_task",
            format_func=ui.labeler("home.zoo.task."),
        )
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

    models = (manifest or {}).get("models", {})
    sizes = [e.get("params") for e in models.values() if isinstance(e, dict)]
    sizes = [p for p in sizes if isinstance(p, int | float) and p > 0]
    # The table a room reads (display names, what each model is, its size, one score) fits
    # a 1280 px projector; identifiers and training details wait in "for the curious".
    header = [t("home.zoo.col.model"), t("home.zoo.col.what")]
    if manifest is not None:  # the size bar goes under the name: three columns fit a phone
        header = [f"{header[0]} · {t('home.zoo.col.params')}", header[1], t("home.zoo.col.metrics")]
    align = ["left"] * len(header)
    rows, details = [], []
    for name in names:
        row = [
            md.escape(ui.model_name(name)),
            md.escape(lexicon.description(name, ui.current_lang())),
        ]
        entry = models.get(name) if manifest is not None else None
        entry = entry if isinstance(entry, dict) else {}
        if manifest is not None:
            row[0] += " " + _size_cell(name, entry.get("params"), sizes)
            row.append(md.escape(_score(name, entry)))
        rows.append(row)
        details.append(
            [
                md.escape(ui.model_name(name)),
                md.code(name),
                md.escape(t(f"home.zoo.task.{_task_of(name)}")),
                md.escape(t(f"home.zoo.data.{_task_of(name)}", seed=entry.get("data_seed", "?"))),
                md.escape(_whole(entry.get("steps"))),
                md.escape(_whole(entry.get("train_time_s"))),
            ]
        )
    # A Markdown table: wraps long descriptions, grows with the presenter stylesheet, and
    # costs neither pandas on the server nor a table/chart bundle in the browser.
    st.markdown(md.table(header, rows, align))
    st.caption(t("home.zoo.count", shown=len(names), total=len(zoo.MODEL_NAMES)))
    if manifest is not None and sizes:
        st.caption(t("home.zoo.size_caption"))
    with ui.curious():
        cols = ("model", "id", "task", "data", "steps", "time")
        st.markdown(
            md.table(
                [t(f"home.zoo.col.{c}") for c in cols],
                details,
                ["left", "left", "left", "left", "right", "right"],
            )
        )


def show() -> None:
    st.header(t("home.zoo.header"))
    st.caption(t("home.zoo.caption"))
    zoo_section()
