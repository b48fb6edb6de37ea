"""The distance probes' one chart, as two lessons draw it (path length: every probe; CNN
receptive field: the CNN probes): the probes' curves read from the manifest, then the chart
with the guessing level and each CNN's receptive field."""

from __future__ import annotations

from collections.abc import Sequence

import ui
from charts.path_length import probe_chart
from core import zoo
from ui.models import get_manifest, show_zoo_error


def read_curves(models: Sequence[str]):
    """The held-out accuracy by distance of the probes ``models``, from the manifest, each
    series named as the page names its model (``distance_probes.ProbeCurves``). A zoo that
    cannot be read is said so, and gives no curves."""
    # Imported here: it imports torch (~1.5 s on a cold server), which the lessons' other
    # parts never need.
    from core.analysis.distance_probes import probe_curves

    try:
        manifest = get_manifest()
    except zoo.ZooError as err:
        show_zoo_error(err)
        manifest = {"models": {}}
    return probe_curves(manifest, models, lambda name, _cfg: ui.model_name(name))


def draw(curves, *, key: str, **texts_and_marks) -> None:
    """The chart of ``curves`` (``texts_and_marks``: :func:`charts.path_length.probe_chart`'s
    titles and labels, and ``models``, ``together``...), at the guessing level of the probes'
    task, each CNN's field marked."""
    from core.probes_data import N_KEYS  # imports torch, as read_curves

    fig = probe_chart(
        curves.distances,
        curves.series,
        fields=curves.fields,
        chance=1 / N_KEYS,
        presenter=ui.presenter(),
        **texts_and_marks,
    )
    ui.chart(fig, key=key)
