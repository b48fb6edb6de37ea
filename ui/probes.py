"""The distance-probe chart, shared by the pages that show it (CNN receptive field, path length).

Both pages use the same i18n keys under their own prefix: ``probes.missing``,
``probes.title``, ``probes.x``, ``probes.y``, ``probes.field`` and ``probes.chance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st

from core import zoo
from core.analysis.distance_probes import ProbeCurves, probe_curves
from core.figures.cnn_receptive_field import probe_chart
from core.probes_data import N_KEYS
from ui import chart
from ui.i18n import presenter, t
from ui.models import get_manifest, show_zoo_error


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
            t(prefix + "probes.missing", models=", ".join(f"`{m}`" for m in curves.missing)),
            icon=":material/hourglass:",
        )
    if not (curves.series and curves.distances):
        return None
    chart(
        probe_chart(
            curves.distances,
            curves.series,
            fields=curves.fields,
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
