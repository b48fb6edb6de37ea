"""One table of models (``core.lexicon``) behind every chart, on every screen, and one scale
per metric.

Every part's default view is run through AppTest in both languages on the laptop, the
projector (presenter mode) and a phone (``ui.on_a_phone`` patched: AppTest sends no
User-Agent), and every chart it draws is read as the browser gets it:

- a trace named as a model (its display name, alone or followed by a note: "LSTM (same as
  GRU, …)") is drawn in that model's colour, marker and dash, whatever the screen;
- no trace or title names a model by a name the table no longer gives it ("Vanilla RNN");
- a named series that is no model is not drawn in a model's colour (it would pass for that
  model), unless it is drawn in a family's look: a kind of layer, in its family's hue and an
  open marker no model uses (``lexicon.FAMILY_LOOKS``);
- an accuracy, share or probability axis is in percent, ticks and hover alike; attention
  weights are weights (0-1) on every chart, never percent.
"""

from __future__ import annotations

import json
import re

import pytest

from core import lexicon
from core.i18n import LANGS, translate
from tests.conftest import as_a_phone, make_app
from ui.nav import PAGES

SCREENS = ("laptop", "projector", "phone")
LESSONS = [p.slug for p in PAGES if p.listed and p.parts]

# An axis that measures an accuracy, a share or a probability (its title, either language).
METRIC = re.compile(
    r"\b(?:accuracy|exact match|share|probability|words right|right place)\b"
    r"|准确率|完全匹配|比例|份额|概率|正确",
    re.IGNORECASE,
)
# An axis of attention weights ("weights and biases" counts parameters: not one).
WEIGHT = re.compile(r"\bweight\b(?! and biases)|权重(?!和偏置)", re.IGNORECASE)
# A note after a model's name in a legend: "LSTM (same as GRU)", "GRU（与 LSTM 相同）".
NOTE = (" (", "（", " ·", "<br>")


def _plain(text) -> str:
    return re.sub(r"<[^>]+>", "", str(text or "")).strip()


def _names(lang: str) -> dict[str, str]:
    """Display name -> model, every model of the table in ``lang``."""
    return {lexicon.name(m, lang): m for m in lexicon.LOOKS}


def model_named(name: str, lang: str) -> str | None:
    """The model a trace's ``name`` names: its display name, or that name followed by a note
    (the longest name that fits: "GRU（C = 256 维）" is the GRU with C = 256, not the GRU
    probe)."""
    names = _names(lang)
    if name in names:
        return names[name]
    for shown in sorted(names, key=len, reverse=True):
        if name.startswith(shown) and name[len(shown) :].startswith(NOTE):
            return names[shown]
    return None


def _colorway(layout: dict) -> list[str]:
    template = (layout.get("template") or {}).get("layout") or {}
    return layout.get("colorway") or template.get("colorway") or []


def _drawn(trace: dict, index: int, layout: dict) -> tuple[str | None, str | None, str | None]:
    """(colour, marker symbol, dash) the trace is drawn with, as plotly resolves them: an
    unset colour is the colorway's by trace index, an unset symbol a circle, an unset dash
    solid; ``None`` for what the trace does not draw (no markers, no line) or an array."""
    line, marker = trace.get("line") or {}, trace.get("marker") or {}
    kind = trace.get("type", "scatter")
    mode = str(trace.get("mode") or ("lines" if kind == "scatter" else ""))
    colour = line.get("color") if "lines" in mode else None
    colour = colour or marker.get("color")
    if colour is None and kind in ("scatter", "bar"):
        way = _colorway(layout)
        colour = way[index % len(way)] if way else None
    colour = colour.upper() if isinstance(colour, str) else None
    symbol = marker.get("symbol", "circle") if "markers" in mode else None
    dash = line.get("dash") or "solid" if "lines" in mode else None
    return colour, symbol if isinstance(symbol, str) else None, dash


def _is(look: lexicon.Look, colour: str | None, symbol: str | None, dash: str | None) -> bool:
    """Whether what a trace draws (``None``: not drawn, or an array) is in ``look``."""
    return (
        colour in (None, look.color.upper())
        and symbol in (None, look.marker)
        and dash in (None, look.dash)
    )


def _family(colour: str, symbol: str | None, dash: str | None) -> bool:
    """Whether a series is drawn in a family's look (a kind of layer, not one model): a line
    or markers, never a bar (which shows neither)."""
    return (symbol, dash) != (None, None) and any(
        colour == lk.color.upper() and symbol in (None, lk.marker) and dash in (None, lk.dash)
        for lk in lexicon.FAMILY_LOOKS.values()
    )


def _axes(layout: dict):
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            yield key, axis, _plain((axis.get("title") or {}).get("text"))


def _trace_axis(trace: dict, letter: str) -> str:
    """The layout key of the ``letter`` ("x" or "y") axis a trace is drawn on."""
    ref = str(trace.get(f"{letter}axis") or letter)
    return f"{letter}axis{ref[1:]}"


def _numeric(trace: dict, letter: str) -> bool:
    """Whether a trace's ``letter`` values are numbers (a typed array, or a list of them):
    on a bar chart of words the words' axis is no metric, whatever its title says."""
    values = trace.get(letter)
    if isinstance(values, dict):
        return "bdata" in values
    if isinstance(values, list):
        return any(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    return f"{letter}0" in trace  # evenly spaced: x0 / dx


def _valued(fig: dict, key: str) -> bool:
    """Whether axis ``key`` carries a trace's numbers (or no trace at all: empty axes)."""
    on = [tr for tr in fig.get("data") or [] if _trace_axis(tr, key[0]) == key]
    return not on or any(_numeric(tr, key[0]) for tr in on)


def _bars_by_model(trace: dict, lang: str) -> list[str]:
    """A bar chart with a bar per model (its categories are model names, each bar its own
    colour): each bar in its model's colour."""
    if trace.get("type") != "bar":
        return []
    letter = "y" if trace.get("orientation") == "h" else "x"
    labels, colours = trace.get(letter), (trace.get("marker") or {}).get("color")
    if not (isinstance(labels, list) and isinstance(colours, list)):
        return []
    out = []
    for label, colour in zip(labels, colours):
        model = model_named(_plain(label), lang)
        if model is not None and str(colour).upper() != lexicon.look(model).color.upper():
            out.append(
                f"bar {label!r} drawn in {colour}; the table gives {lexicon.look(model).color}"
            )
    return out


def problems(fig: dict, lang: str) -> list[str]:
    """What in one figure (its JSON as sent) breaks the model table or the one scale per
    metric, in words."""
    out: list[str] = []
    layout = fig.get("layout") or {}
    model_colours = {lexicon.look(m).color.upper(): m for m in lexicon.LOOKS}
    texts = [_plain((layout.get("title") or {}).get("text"))]
    texts += [title for _, _, title in _axes(layout)]
    for i, trace in enumerate(fig.get("data") or []):
        name = _plain(trace.get("name"))
        texts.append(name)
        out += _bars_by_model(trace, lang)
        if not name:
            continue
        colour, symbol, dash = _drawn(trace, i, layout)
        model = model_named(name, lang)
        if model is not None:
            # the model's look, or its family's where the name is the kind of layer's too
            # ("Self-attention": the probe, and the layer in a table of path lengths)
            kin = lexicon.FAMILY_LOOKS.get(lexicon.FAMILY.get(model, ""))
            looks = [lexicon.look(model), *([kin] if kin else [])]
            if not any(_is(lk, colour, symbol, dash) for lk in looks):
                lk = looks[0]
                out.append(
                    f"{name!r} drawn as ({colour}, {symbol}, {dash}); the table gives {model} "
                    f"({lk.color}, {lk.marker}, {lk.dash})"
                )
        elif colour in model_colours and not _family(colour, symbol, dash):
            out.append(
                f"series {name!r} is no model but drawn in {colour}, "
                f"the colour of {model_colours[colour]}"
            )
    out += [
        f"{text!r} names a model {old!r}: not its name in the table"
        for text in texts
        for old in lexicon.RETIRED_NAMES
        if old in text
    ]
    for key, axis, title in _axes(layout):
        if not _valued(fig, key):
            continue
        fmt = str(axis.get("tickformat") or "") + str(axis.get("ticksuffix") or "")
        if METRIC.search(title) and "%" not in fmt:
            out.append(f"{key} {title!r} is a share drawn 0-1: give it ticks in percent")
        if WEIGHT.search(title) and "%" in fmt:
            out.append(f"{key} {title!r}: attention weights are weights (0-1), not percent")
        if not METRIC.search(title):
            continue
        letter = key[0]
        for trace in fig.get("data") or []:
            hover = str(trace.get("hovertemplate") or "")
            if _trace_axis(trace, letter) != key:
                continue
            for spec in re.findall(r"%\{" + letter + r"(?::([^}]*))?\}", hover):
                if spec and not spec.endswith("%"):
                    out.append(f"hover of {title!r} shows {spec!r}: give it in percent")
    return out


def figures(page: str, part: str, lang: str, screen: str, monkeypatch) -> list[dict]:
    """The charts (JSON as sent) of one part's default view on ``screen``."""
    if screen == "phone":
        as_a_phone(monkeypatch)
    present = "1" if screen == "projector" else "0"
    at = make_app(f"pages/{page}.py", lang=lang, present=present, part=part)
    at.run(timeout=240)
    assert not at.exception, [e.message for e in at.exception]
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


@pytest.mark.long
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("page", LESSONS)
def test_every_chart_names_and_draws_models_by_the_table(page, screen, monkeypatch):
    spec = next(p for p in PAGES if p.slug == page)
    found = []
    for part in spec.parts:
        for lang in LANGS:
            for k, fig in enumerate(figures(page, part, lang, screen, monkeypatch)):
                found += [f"{part}/{lang} chart {k}: {p}" for p in problems(fig, lang)]
    assert found == [], "\n".join(found)


# --- the checks themselves catch what they are for --------------------------------------


def _fig(*traces: dict, **layout: object) -> dict:
    return {
        "data": list(traces),
        "layout": {"template": {"layout": {"colorway": ["#000000"]}}, **layout},
    }


def _line(name: str, look: lexicon.Look, mode: str = "lines+markers") -> dict:
    return dict(
        type="scatter",
        name=name,
        mode=mode,
        line=dict(color=look.color, dash=look.dash),
        marker=dict(color=look.color, symbol=look.marker),
    )


@pytest.mark.parametrize("lang", LANGS)
def test_a_model_drawn_by_the_table_passes(lang):
    for model, look in lexicon.LOOKS.items():
        name = lexicon.name(model, lang)
        assert problems(_fig(_line(name, look)), lang) == [], model
        assert model_named(name, lang) == model
    lstm = lexicon.name("probe_lstm", lang)
    noted = lstm + (" (same as GRU)" if lang == "en" else "（与 GRU 相同）")
    assert model_named(noted, lang) == "probe_lstm"
    assert problems(_fig(_line(noted, lexicon.look("probe_lstm"))), lang) == []


def test_a_model_in_another_colour_marker_or_dash_fails():
    gru = lexicon.look("gru_plain_256")
    name = lexicon.name("gru_plain_256", "en")
    assert problems(_fig(_line(name, lexicon.Look("#E69F00", gru.marker, gru.dash))), "en")
    assert problems(_fig(_line(name, lexicon.Look(gru.color, "x", gru.dash))), "en")
    assert problems(_fig(_line(name, lexicon.Look(gru.color, gru.marker, "dot"))), "en")
    # a colour the template's colorway gives, not the table's
    unset = dict(type="scatter", name=name, mode="lines")
    assert problems(_fig(unset), "en")


def test_a_retired_name_or_a_series_in_a_model_colour_fails():
    rnn = lexicon.look("probe_rnn")
    assert problems(_fig(_line("Vanilla RNN", rnn)), "en")  # main's name of the probe
    # a series that is no model, in the plain RNN's orange (the cost chart on main's projector)
    read = dict(type="scatter", name="read: one call for all the words", mode="lines")
    assert problems(_fig(read, template={"layout": {"colorway": [rnn.color]}}), "en")
    # ... while a kind of layer in its family's look, or a series in black, passes
    family = lexicon.family_look("plain_rnn")
    assert problems(_fig(_line("Recurrent", family)), "en") == []
    assert problems(_fig(read), "en") == []
    bar = dict(type="bar", name="scaled dot product", marker=dict(color=rnn.color))
    assert problems(_fig(bar), "en")


def test_a_bar_per_model_in_another_colour_fails():
    """The arena's bars, one per model: each in its model's colour."""
    models = ["gru_plain_256", "rnn_plain_256"]
    bars = dict(
        type="bar",
        orientation="h",
        x=[0.5, 0.2],
        y=[lexicon.name(m, "en") for m in models],
        marker=dict(color=[lexicon.look(m).color for m in models]),
    )
    assert problems(_fig(bars), "en") == []
    bars["marker"]["color"] = [lexicon.look(models[0]).color, "#332288"]  # main's indigo
    assert problems(_fig(bars), "en")


def test_a_share_axis_in_fractions_or_weights_in_percent_fail():
    exact = dict(title=dict(text="exact match"), range=[0, 1])
    assert problems(_fig(xaxis={}, yaxis=exact), "en")
    assert problems(_fig(yaxis=dict(exact, tickformat=".0%")), "en") == []
    zh = dict(title=dict(text="完全匹配率"), range=[0, 1])
    assert problems(_fig(yaxis=zh), "zh")
    hover = dict(type="scatter", name="", y=[0.5], hovertemplate="%{x}: %{y:.2f}")
    assert problems(_fig(hover, yaxis=dict(exact, tickformat=".0%")), "en")
    weight = dict(title=dict(text="attention weight"), tickformat=".0%")
    assert problems(_fig(yaxis=weight), "en")
    params = dict(title=dict(text="weights and biases (log scale)"))
    assert problems(_fig(yaxis=params), "en") == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_model_of_the_table_has_a_name_and_a_description(lang):
    for model in lexicon.LOOKS:
        for key in (f"model.{model}.name", f"model.{model}.desc"):
            assert translate(key, lang) != key, f"{key} missing in {lang}"
        assert model in lexicon.FAMILY, f"{model} has no family (core.lexicon.FAMILY)"
    # a family look is never a model's, with or without markers: a series of a kind of layer
    # never passes for a model
    for cue in ("marker", "dash"):
        models = {(lk.color, getattr(lk, cue)) for lk in lexicon.LOOKS.values()}
        families = {(lk.color, getattr(lk, cue)) for lk in lexicon.FAMILY_LOOKS.values()}
        assert not models & families, cue


def _hue(colour: str) -> float:
    """The hue angle (CIELCh, degrees) of ``colour`` (#RRGGBB)."""
    import colorspacious
    import numpy as np

    rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return float(colorspacious.cspace_convert(rgb, "sRGB1", "CIELCh")[2])


# One architecture, one hue family: the widest family (the GRUs, from the palest C = 32 to
# the language model's navy) spans 47 degrees of hue.
HUE_SPREAD = 50.0


def test_models_of_one_architecture_share_a_hue_family():
    """A plain RNN translator and the plain RNN probe, the GRU translators and the GRU probe:
    the same kind of network is drawn in one hue family on every page (on main the probe GRU
    was brown beside blue GRUs, the plain RNN probe orange beside an indigo plain RNN)."""
    families: dict[str, list[str]] = {}
    for model, family in lexicon.FAMILY.items():
        families.setdefault(family, []).append(model)
    for family, models in families.items():
        hues = {m: _hue(lexicon.look(m).color) for m in models}
        for a, b in [(a, b) for a in hues for b in hues if a < b]:
            apart = abs((hues[a] - hues[b] + 180) % 360 - 180)
            assert apart <= HUE_SPREAD, f"{family}: {a} and {b} are {apart:.0f} degrees apart"
