"""The attention page's inputs: a sentence (an example or typed), a model, a layer and
head, a decoding step, a word. Each is tied to its URL parameter through ``ui.params``."""

from __future__ import annotations

import streamlit as st

import ui
from core import lexicon
from core.analysis import attention as A
from core.translate import InputError, prepare
from ui.params import safe_value

t = ui.t
ATTN_MODELS = ("gru_attention", "transformer")
EXAMPLES = tuple(en for en, _ in A.EXAMPLES)
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


def sentence_picker(src_vocab, default: str, param: str = "s") -> tuple[str, ...] | None:
    """Example selector + free text, both tied to the URL parameter ``param`` (alignment
    and the model comparison share ``s``; self-attention and scores share ``q``)."""
    text = ui.params.get_text(param, default)
    st.session_state["attention_example"] = text if text in EXAMPLES else OWN
    left, right = st.columns([1, 1])
    with left:
        st.selectbox(
            t("attention.sentence.example"),
            (*EXAMPLES, OWN),
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
        return tuple(prepare(text, src_vocab))
    except InputError as err:
        show_input_error(err)
        return None


def model_picker() -> str:
    name = ui.params.get_choice("model", ATTN_MODELS, default="gru_attention")
    name = st.segmented_control(
        t("attention.model"),
        ATTN_MODELS,
        format_func=ui.model_name,
        required=True,
        **ui.params.bound("model", name, key="attention_model"),
    )
    ui.params.set_params(model=name)
    return name


def layer_head_picker(
    run: A.AttentionRun,
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


def _position(raw: str | None, name: str, n: int, default: int) -> int:
    """A 1-based position in the link (``step``, ``w``; ``raw`` is its text there) for a
    sequence of ``n`` items.

    A number this session wrote itself (a choice made for a longer sentence) is quietly
    moved to the last item; any other value outside 1..n came from a link and falls back
    to ``default`` with the usual notice."""
    if raw is not None and raw == st.session_state.get(f"attention_{name}_seen"):
        return min(int(raw), n)
    return ui.params.get_int(name, 1, n, default=default)


def _remember(name: str, value: int) -> None:
    ui.params.set_params(**{name: value})
    st.session_state[f"attention_{name}_seen"] = str(value)


def step_picker(run: A.AttentionRun, label: str) -> int:
    n = len(run.output)
    step = _position(st.query_params.get("step"), "step", n, default=1)
    step = st.select_slider(
        label,
        options=list(range(1, n + 1)),
        format_func=lambda i: f"{i} · {lexicon.show_token(run.output[i - 1])}",
        **ui.params.bound("step", step, key="attention_step"),
    )
    _remember("step", step)
    return step - 1


def word_picker(run: A.AttentionRun, tokens: tuple[str, ...], label: str) -> int:
    """The source word whose row is shown (0-based; in the link as ``w``, 1-based);
    "it" when the sentence has one."""
    n = len(run.source)
    default_word = tokens.index("it") if "it" in tokens else 0
    word = _position(st.query_params.get("w"), "w", n, default=default_word + 1)
    word = st.selectbox(
        label,
        options=list(range(1, n + 1)),
        format_func=lambda i: f"{i} · {run.source[i - 1]}",
        **ui.params.bound("w", word, key="attention_word"),
    )
    _remember("w", word)
    return word - 1
