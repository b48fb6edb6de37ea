"""The distance probes' results, read from the manifest for one chart.

Each ``probe_*`` model was trained to recall the value of a key seen ``d`` symbols before
the query; the training run writes its held-out accuracy at every distance ``d`` to
``metrics.distance`` (``{"5": 0.99, ...}``) and its ``ProbeConfig`` to ``config``. A chart
draws the probes that share one set of distances; the others are reported as missing.

Two readings of the curves are used by the pages and tested on the shipped weights:
:func:`overlaps` finds curves drawn on top of each other (so the chart can say so) and
:func:`reach` sums up a curve (near, far, farthest distance still solved).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.models.probes import ProbeConfig

SOLVED = 0.95  # a distance counts as solved at this held-out accuracy or above
SAME = 0.01  # two curves closer than this at every distance are drawn on top of each other


@dataclass
class ProbeCurves:
    distances: list[int] | None = None  # sorted distances shared by every series
    series: dict[str, list[float]] = field(default_factory=dict)  # label -> accuracy per distance
    fields: dict[str, int] = field(default_factory=dict)  # label -> receptive field (cnn only)
    missing: list[str] = field(default_factory=list)  # model names not drawn
    models: dict[str, str] = field(default_factory=dict)  # label -> model name (its look)


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
        out.models[text] = name
        try:
            reach_ = ProbeConfig(**cfg).receptive_field if cfg else None
        except TypeError:
            reach_ = None
        if reach_ is not None:
            out.fields[text] = reach_
    return out


def overlaps(series: Mapping[str, Sequence[float]], tol: float = SAME) -> list[list[str]]:
    """Groups (of two or more, in ``series`` order) of curves that lie on top of each other:
    every value within ``tol`` of the group's first curve. Such lines hide each other's
    legend entries, so a chart must say they coincide."""
    groups: list[list[str]] = []
    placed: set[str] = set()
    names = list(series)
    for i, a in enumerate(names):
        if a in placed:
            continue
        group = [a]
        for b in names[i + 1 :]:
            if b not in placed and len(series[b]) == len(series[a]):
                if all(abs(x - y) <= tol for x, y in zip(series[a], series[b], strict=True)):
                    group.append(b)
        if len(group) > 1:
            groups.append(group)
            placed.update(group)
    return groups


@dataclass(frozen=True)
class Reach:
    near: float  # accuracy at the nearest distance
    far: float  # accuracy at the farthest distance
    lowest: float  # lowest accuracy over all distances
    solved_up_to: int | None  # farthest d such that every distance up to it is solved


def reach(distances: Sequence[int], accs: Sequence[float], solved: float = SOLVED) -> Reach:
    """How far one probe reaches: near / far / lowest accuracy and the solved range."""
    if not distances or len(distances) != len(accs):
        raise ValueError("pass one accuracy per distance (and at least one distance)")
    up_to = None
    for d, acc in zip(distances, accs, strict=True):
        if acc < solved:
            break
        up_to = d
    return Reach(float(accs[0]), float(accs[-1]), float(min(accs)), up_to)


@dataclass(frozen=True)
class Wall:
    """Where one CNN probe stops recalling, as the chart samples it."""

    solved_up_to: int | None  # farthest sampled d solved, every nearer one solved too
    at_chance_from: int | None  # first sampled d beyond that at chance, or None
    sees_up_to: int  # farthest d the stack can see (receptive field - 1: the dashed line)
    blind_at_chance: bool  # every sampled d beyond sees_up_to is at chance


def wall(
    distances: Sequence[int],
    accs: Sequence[float],
    field: int,
    chance: float,
    solved: float = SOLVED,
) -> Wall:
    """Where a CNN probe of receptive field ``field`` stops recalling. A distance is "at
    chance" below ``2 * chance`` (held-out sets of 400 leave a few points of noise around
    chance; solved is ``solved`` and above). The chart samples ``distances`` only, so the
    wall lies somewhere between ``solved_up_to`` and ``at_chance_from``."""
    if field < 1:
        raise ValueError(f"a receptive field is at least 1 symbol, got {field}")
    up_to = reach(distances, accs, solved).solved_up_to
    start = distances.index(up_to) + 1 if up_to is not None else 0
    lost = next(
        (d for d, a in zip(distances[start:], accs[start:], strict=True) if a < 2 * chance), None
    )
    beyond = [a for d, a in zip(distances, accs, strict=True) if d > field - 1]
    return Wall(up_to, lost, field - 1, all(a < 2 * chance for a in beyond))
