"""What several parts of the attention lesson share: the inputs (a sentence, a model, a
layer and head, a decoding step, a word, each tied to its URL parameter through
``ui.params``), the hover labels, and the notes on which model and which attention a chart
shows."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from core import lexicon
from core import mdtable as md
from core.analysis import attention as analysis
from core.translate import InputError, prepare
from core.vocab import detokenize_zh
from lessons import controls
from lessons.attention import data
from ui.inputs import plain
from ui.params import safe_value
from ui.slide import Slide

t = ui.t  # reads the visitor's language on every call
ATTN_MODELS = ("gru_attention", "transformer")
EXAMPLES = tuple(en for en, _ in analysis.EXAMPLES)
OWN = "__own__"


def show_input_error(err: InputError) -> None:
    """The reason a sentence cannot be translated, naming unknown words and suggestions."""
    if err.reason == "unknown":
        words = []
        for o in err.unknown:
            word = f"`{safe_value(o.word)}`"
            if o.suggestions:
                word += " " + t("attention.input.suggest", words=" / ".join(o.suggestions))
            words.append(word)
        st.error(t("attention.input.unknown", words="; ".join(words)), icon=":material/spellcheck:")
    elif err.reason == "too_long":
        st.error(t("attention.input.too_long", limit=err.limit), icon=":material/straighten:")
    else:
        st.error(t("attention.input.empty"), icon=":material/edit_note:")


def _on_example(param: str) -> None:
    choice = st.session_state["attention_example"]
    if choice != OWN:
        st.query_params[param] = choice


def sentence_picker(
    default: str, param: str = "s", extra: tuple[str, ...] = ()
) -> tuple[str, ...] | None:
    """Example selector + free text, both tied to the URL parameter ``param`` (alignment
    and the model comparison share ``s``; self-attention and scores share ``q``); ``extra``:
    examples a part offers beyond the shared ones."""
    text = ui.params.get_text(param, default)
    options = (*EXAMPLES, *extra)
    st.session_state["attention_example"] = text if text in options else OWN
    left, right = st.columns([1, 1])
    with left:
        st.selectbox(
            t("attention.sentence.example"),
            (*options, OWN),
            format_func=lambda s: t("attention.sentence.own") if s == OWN else s,
            key="attention_example",
            on_change=_on_example,
            args=(param,),
        )
    with right:
        text = st.text_input(
            t("attention.sentence.type"),
            max_chars=300,
            help=t("attention.sentence.help"),
            **ui.params.bound(param, text, key="attention_s"),
        )
    try:
        return tuple(prepare(text, data.vocabs()[0]))
    except InputError as err:
        show_input_error(err)
        return None


def model_picker() -> str:
    name = ui.params.get_choice("model", ATTN_MODELS, default="gru_attention")
    return controls.segmented(
        t("attention.model"),
        ATTN_MODELS,
        name,
        param="model",
        key="attention_model",
        format_func=ui.model_name,
    )


def layer_head_picker(
    run: analysis.AttentionRun,
    *,
    allow_avg: bool = True,
    default: tuple[int, int | None] | None = None,
) -> tuple[int, int | None]:
    """Layer and head selectors for the transformer (``None`` head = mean over heads)."""
    n_layers, n_heads = run.cross.shape[:2]
    if not allow_avg and st.query_params.get("head") == "avg":
        st.query_params["head"] = "0"  # coming from a view that averages: not a bad link
    heads = (("avg",) if allow_avg else ()) + tuple(str(h) for h in range(n_heads))
    d_layer, d_head = default if default is not None else (n_layers - 1, None)
    d_head_s = "avg" if d_head is None else str(d_head)
    layer = ui.params.get_int("layer", 1, n_layers, default=d_layer + 1)
    head = ui.params.get_choice("head", heads, default=d_head_s if d_head_s in heads else heads[0])
    c1, c2 = st.columns(2)
    with c1:
        layer = st.select_slider(
            t("attention.layer"),
            options=list(range(1, n_layers + 1)),
            **ui.params.bound("layer", layer, key="attention_layer"),
        )
    with c2:
        head = st.segmented_control(
            t("attention.head"),
            heads,
            format_func=lambda h: t("attention.head.avg") if h == "avg" else str(int(h) + 1),
            required=True,
            **ui.params.bound("head", head, key="attention_head"),
        )
    ui.params.set_params(layer=layer, head=head)
    return layer - 1, None if head == "avg" else int(head)


def _position_picker(
    widget, label: str, items: list[str], name: str, raw: str | None, *, key: str, default: int
) -> int:
    """One of ``items`` by its position, picked with ``widget`` (a select box or slider) that
    shows "3 · item": 1-based in the link as ``name`` (``raw`` is its text there), 0-based
    returned.

    A number this session wrote itself (a choice made for a longer sentence) is quietly
    moved to the last item; any other value outside 1..n came from a link and falls back
    to ``default`` with the usual notice."""
    n, seen = len(items), f"attention_{name}_seen"
    if raw is not None and raw == st.session_state.get(seen):
        pos = min(int(raw), n)
    else:
        pos = ui.params.get_int(name, 1, n, default=default)
    pos = widget(
        label,
        options=list(range(1, n + 1)),
        format_func=lambda i: f"{i} · {items[i - 1]}",
        **ui.params.bound(name, pos, key=key),
    )
    ui.params.set_params(**{name: pos})
    st.session_state[seen] = str(pos)
    return pos - 1


def step_picker(run: analysis.AttentionRun, label: str, default: int = 0) -> int:
    """The decoding step whose row is shown (0-based; in the link as ``step``, 1-based);
    ``default`` (0-based) where the link names none."""
    shown = [lexicon.show_token(tok) for tok in run.output]
    raw = st.query_params.get("step")
    return _position_picker(
        st.select_slider, label, shown, "step", raw, key="attention_step", default=default + 1
    )


def word_picker(run: analysis.AttentionRun, tokens: tuple[str, ...], label: str) -> int:
    """The source word whose row is shown (0-based; in the link as ``w``, 1-based);
    "it" when the sentence has one."""
    default_word = tokens.index("it") if "it" in tokens else 0
    raw = st.query_params.get("w")
    return _position_picker(
        st.selectbox,
        label,
        list(run.source),
        "w",
        raw,
        key="attention_word",
        default=default_word + 1,
    )


def hover() -> dict[str, str]:
    """The heatmaps' hover labels, in the visitor's language."""
    return {k: t(f"attention.hover.{k}") for k in ("row", "col", "weight", "sum")}


def numbered(tokens) -> list[str]:
    return [f"{i + 1} {tok}" for i, tok in enumerate(tokens)]


def model_note(name: str, run: analysis.AttentionRun) -> None:
    """What the model wrote."""
    text = md.escape(detokenize_zh(run.words))  # body text, as the page around it
    st.markdown(t("attention.output", model=ui.model_name(name), text=text))


def reference_note(tokens: tuple[str, ...]) -> None:
    """The corpus's own translation, when the sentence is one of the examples."""
    ref = dict(analysis.EXAMPLES).get(" ".join(tokens))
    if ref:
        st.caption(t("attention.reference", text=plain(detokenize_zh(ref.split()))))


def where(name: str, layer: int, head: int | None, side: str = "dec") -> str:
    """Which attention a chart shows, in words (``side``: decoder cross or encoder self)."""
    if name == "gru_attention":
        return t("attention.where.gru")
    if head is None:
        return t(f"attention.where.{side}_avg", layer=layer + 1)
    return t(f"attention.where.{side}_head", layer=layer + 1, head=head + 1)


def view_picker(
    name: str, run: analysis.AttentionRun, place: DeltaGenerator | Slide
) -> tuple[int, int | None]:
    """The decoder attention to show: layer and head of the transformer, picked in
    ``place`` (a slide's secondary controls, made only then); the GRU has one attention,
    (0, None)."""
    if name != "transformer":
        return 0, None
    with place.more if isinstance(place, Slide) else place:
        return layer_head_picker(run)


def choice(param: str, options: tuple[str, ...], default: str, label: str, prefix: str) -> str:
    """A row of buttons tied to the URL parameter ``param`` (session key attention_<param>)."""
    value = ui.params.get_choice(param, options, default=default)
    return controls.segmented(
        label, options, value, param=param, key=f"attention_{param}", format_func=ui.labeler(prefix)
    )
