"""One vocabulary for the whole app: a model's name, colour, marker and line everywhere.

Every figure, table and legend that names a model or a probe takes its display name from
:func:`name` (the catalogues' ``model.<name>.name``) and its look from :func:`look`, so the
transformer is the same reddish purple on every page, in both languages and on the
projector. Special tokens are shown one way only (:func:`show_token`: ``<eos>`` is always
``⟨eos⟩``; plotly would read ``<eos>`` as an HTML tag and drop it). No streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.i18n import translate


@dataclass(frozen=True)
class Look:
    """How one model is drawn: the same in every chart, on a laptop and on a projector."""

    color: str  # a colour-blind-safe hue (Okabe & Ito / Paul Tol), distinct per model
    marker: str  # plotly marker symbol: a second cue besides colour (print-outs, projectors)
    dash: str  # plotly line dash: a third cue


# One hue family per architecture, whatever the task: a model and the probe of the same kind
# of network are told apart by shade and marker, never by hue. Plain tanh RNNs are oranges,
# GRUs blues (darker = more numbers in C), the LSTM indigo, a recurrent encoder-decoder with
# attention vermillion, convolutions greens, self-attention (the Transformer and its kin)
# pinks and purples. Each colour keeps a CIEDE2000 distance of at least 8 from every model
# drawn beside it, with normal vision and the three dichromacies (tests/core/test_colorblind).
FAMILY: dict[str, str] = {
    "rnn_plain_256": "plain_rnn",
    "probe_rnn": "plain_rnn",
    "gru_plain_32": "gru",
    "gru_plain_128": "gru",
    "gru_plain_256": "gru",
    "live_plain": "gru",
    "lm_gru": "gru",
    "probe_gru": "gru",
    "probe_lstm": "lstm",
    "gru_attention": "rnn_attention",
    "live_attention": "rnn_attention",
    "cnn_s2s": "cnn",
    "probe_cnn2": "cnn",
    "probe_cnn4": "cnn",
    "probe_cnn8": "cnn",
    "transformer": "self_attention",
    "probe_attention": "self_attention",
    "coref_encoder": "self_attention",
}

LOOKS: dict[str, Look] = {
    # translation models
    "gru_plain_32": Look("#9ECAE1", "circle-open", "dot"),
    "gru_plain_128": Look("#56B4E9", "square-open", "dash"),
    "gru_plain_256": Look("#0072B2", "circle", "solid"),
    "rnn_plain_256": Look("#DDAA33", "hexagon", "longdash"),
    "gru_attention": Look("#D55E00", "diamond", "solid"),
    "cnn_s2s": Look("#009E73", "triangle-up", "dashdot"),
    "transformer": Look("#CC79A7", "star", "solid"),
    # the two small models the live race trains in class (core.live), lighter than the zoo's
    "live_plain": Look("#4477AA", "circle", "dash"),
    "live_attention": Look("#EE6677", "diamond", "dash"),
    # the language model: a GRU, the darkest blue
    "lm_gru": Look("#08306B", "cross", "dot"),
    # the self-attention encoder that resolves "it"
    "coref_encoder": Look("#AA4499", "star-diamond", "dash"),
    # distance probes
    "probe_rnn": Look("#E69F00", "circle", "solid"),
    "probe_lstm": Look("#332288", "square", "dash"),
    "probe_gru": Look("#2C7FB8", "triangle-down", "dot"),
    "probe_cnn2": Look("#A6DBA0", "x", "dot"),
    "probe_cnn4": Look("#5AAE61", "cross", "dash"),
    "probe_cnn8": Look("#1B7837", "pentagon", "dashdot"),
    "probe_attention": Look("#CC6677", "diamond", "longdashdot"),
}

# A series that stands for a kind of layer rather than one trained model (a recurrent layer
# in a table of path lengths, an RNN cell's parameter count): the hue of its family, with an
# open marker and a dash that no model of that colour uses, so that it is never taken for a
# particular model. The MLP and the dilated convolution have no model in the zoo: greys.
FAMILY_LOOKS: dict[str, Look] = {
    "plain_rnn": Look(LOOKS["probe_rnn"].color, "circle-open", "dot"),
    "cnn": Look(LOOKS["probe_cnn4"].color, "cross-open", "longdash"),
    "self_attention": Look(LOOKS["probe_attention"].color, "diamond-open", "dash"),
    "dilated_cnn": Look("#555555", "hexagon-open", "dashdot"),
    "mlp": Look("#777777", "square-open", "dot"),
}

# Names the app once gave a model and no longer does: a chart that shows one of these names
# a model outside the table (tests/charts/test_model_table.py).
RETIRED_NAMES: tuple[str, ...] = ("Vanilla RNN", "vanilla RNN", "原始 RNN", "简单 RNN", "朴素 RNN")

# Shown instead of the vocabulary's special tokens, everywhere a student sees tokens.
SHOWN_TOKENS: dict[str, str] = {
    "<eos>": "⟨eos⟩",
    "<bos>": "⟨bos⟩",
    "<unk>": "⟨unk⟩",
    "<pad>": "⟨pad⟩",
}
EOS = SHOWN_TOKENS["<eos>"]  # the one spelling of end-of-sentence on screen


def known(model: str) -> bool:
    """Whether ``model`` has a look and a name (every model of the zoo has both)."""
    return model in LOOKS


def look(model: str) -> Look:
    """The look of ``model``; a ``ValueError`` names the models that have one."""
    try:
        return LOOKS[model]
    except KeyError:
        raise ValueError(
            f"no look for model {model!r}; add it to core.lexicon.LOOKS (known: {sorted(LOOKS)})"
        ) from None


def family_look(family: str) -> Look:
    """The look of a series that stands for a whole kind of layer (:data:`FAMILY_LOOKS`)."""
    try:
        return FAMILY_LOOKS[family]
    except KeyError:
        raise ValueError(
            f"no look for family {family!r}; use one of {sorted(FAMILY_LOOKS)}"
        ) from None


def name(model: str, lang: str) -> str:
    """The display name of ``model`` in ``lang`` (catalogue key ``model.<model>.name``)."""
    look(model)  # unknown models fail loudly, not with their raw key on screen
    return translate(f"model.{model}.name", lang)


def description(model: str, lang: str) -> str:
    """One line saying what ``model`` is, for a newcomer (catalogue key ``model.<model>.desc``)."""
    look(model)
    return translate(f"model.{model}.desc", lang)


def line(model: str, width: float) -> dict:
    """A scatter trace's ``line`` for ``model`` at ``width`` px."""
    lk = look(model)
    return dict(color=lk.color, dash=lk.dash, width=width)


def marker(model: str, size: float) -> dict:
    """A scatter trace's ``marker`` for ``model`` at ``size`` px."""
    lk = look(model)
    return dict(color=lk.color, symbol=lk.marker, size=size)


def show_token(token: str) -> str:
    """A token as students see it: special tokens in their one display spelling."""
    return SHOWN_TOKENS.get(token, token)


def show_tokens(tokens) -> list[str]:
    """:func:`show_token` over a sequence."""
    return [SHOWN_TOKENS.get(tok, tok) for tok in tokens]
