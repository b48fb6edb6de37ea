"""The distance probes' results, read from the manifest for one chart.

Each ``probe_*`` model was trained to recall the value of a key seen ``d`` symbols before
the query; the training run writes its held-out accuracy at every distance ``d`` to
``metrics.distance`` (``{"5": 0.99, ...}``) and its ``ProbeConfig`` to ``config``. A chart
draws the probes that share one set of distances; the others are reported as missing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.models.probes import ProbeConfig


@dataclass
class ProbeCurves:
    distances: list[int] | None = None  # sorted distances shared by every series
    series: dict[str, list[float]] = field(default_factory=dict)  # label -> accuracy per distance
    fields: dict[str, int] = field(default_factory=dict)  # label -> receptive field (cnn only)
    missing: list[str] = field(default_factory=list)  # model names not drawn


def probe_curves(
    manifest: Mapping[str, Any],
    names: Sequence[str],
    label: Callable[[str, Mapping[str, Any]], str | None],
) -> ProbeCurves:
    """The accuracy-by-distance curves of the probes ``names`` found in ``manifest``.

    ``label(name, config)`` names a probe's series, or returns ``None`` to leave it out.
    A probe without distance results, left out by ``label``, or measured at other
    distances than the first probe drawn is listed in ``missing``. A config this code does
    not know still gives its curve, without a receptive field.
    """
    out = ProbeCurves()
    for name in names:
        entry = manifest["models"].get(name) or {}
        dist = (entry.get("metrics") or {}).get("distance")
        cfg = entry.get("config") or {}
        ds = sorted(int(x) for x in dist) if dist else []
        text = label(name, cfg) if ds else None
        if text is None or (out.distances is not None and ds != out.distances):
            out.missing.append(name)
            continue
        out.distances = out.distances or ds
        out.series[text] = [float(dist[str(x)]) for x in ds]
        try:
            reach = ProbeConfig(**cfg).receptive_field if cfg else None
        except TypeError:
            reach = None
        if reach is not None:
            out.fields[text] = reach
    return out
