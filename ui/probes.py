"""The distance-probe chart, shared by the pages that show it (CNN receptive field, path length).

Both pages use the same i18n keys under their own prefix: ``probes.missing``,
``probes.title``, ``probes.x``, ``probes.y``, ``probes.field`` and ``probes.chance``; a page
may add ``probes.together`` (the note on lines drawn on top of each other, with
``{names}``), else the path-length page's note is used. Every probe is drawn in its one
look from ``core.lexicon``; curves that coincide say so on the chart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from core import lexicon, zoo
from core.analysis.distance_probes import ProbeCurves, overlaps, probe_curves
from core.figures.path_length import probe_chart
from core.i18n import has_key
from core.probes_data import N_KEYS
from ui import chart
from ui.i18n import current_lang, presenter, t
from ui.models import get_manifest, show_zoo_error

TOGETHER = "path_length.probes.together"  # the note's key when a page has none of its own


def _names(models: Sequence[str]) -> str:
    """Display names (not file names) of ``models``, as a list in the session's language."""
    lang = current_lang()
    shown = [lexicon.name(m, lang) if lexicon.known(m) else m for m in models]
    return ("、" if lang == "zh" else ", ").join(shown)


def probe_section(
    prefix: str,
    names: Sequence[str],
    label: Callable[[str, Mapping[str, Any]], str | None],
    *,
    key: str,
) -> ProbeCurves | None:
    """Read the probes ``names`` from the manifest, say which are missing and draw the
    accuracy-by-distance chart (``key``). Returns the curves drawn, or ``None`` if none."""
    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        show_zoo_error(err)
        manifest = {"models": {}}
    curves = probe_curves(manifest, names, label)
    if curves.missing:
        st.info(
            t(prefix + "probes.missing", models=_names(curves.missing)),
            icon=":material/hourglass:",
        )
    if not (curves.series and curves.distances):
        return None
    own = prefix + "probes.together"
    chart(
        probe_chart(
            curves.distances,
            curves.series,
            models=curves.models,
            fields=curves.fields,
            together=overlaps(curves.series),
            together_label=t(own if has_key(own) else TOGETHER),  # {names} filled per group
            joiner="、" if current_lang() == "zh" else ", ",
            chance=1 / N_KEYS,
            title=t(prefix + "probes.title"),
            x_title=t(prefix + "probes.x"),
            y_title=t(prefix + "probes.y"),
            field_label=t(prefix + "probes.field"),
            chance_label=t(prefix + "probes.chance"),
            presenter=presenter(),
        ),
        key=key,
    )
    return curves
