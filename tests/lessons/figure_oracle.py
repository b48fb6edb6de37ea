"""The figures every part's default view draws, as fingerprints: the oracle that a refactoring
(or a change of the app's shell) leaves every chart unchanged. A fingerprint is the sha256 of
the chart's spec and config with every float taken out, and the floats' summary beside it:
model outputs differ in their last bits from one CPU to another (seen: on a new machine, with
the same code and packages, the checksums of charts drawn from models changed), so floats
compare within 1e-4.

``python -m tests.lessons.figure_oracle --write [--page SLUG]`` records them (of every page,
or of one) in ``figures.json`` beside this file; ``test_figures_unchanged.py`` compares. A
figure changed on purpose is re-recorded that way (the diff shows which views changed)."""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
from pathlib import Path

import numpy as np

import tests.conftest  # noqa: F401  (the test run's data folder, before a page runs)
from ui import headless
from ui.nav import PAGES

ORACLE = Path(__file__).with_name("figures.json")
# Parts whose chart shows a time measured on this machine: only their number of charts counts.
TIMED = ("autoregressive/cost",)
VIEWS = (("en", "0"), ("en", "1"), ("zh", "0"), ("zh", "1"))  # laptop and projector


def views() -> list[tuple[str, str, str, str]]:
    """(page, part, lang, present) of every part of every lesson page."""
    return [
        (p.slug, part, lang, present)
        for p in PAGES
        if p.listed and p.parts
        for part in p.parts
        for lang, present in VIEWS
    ]


def view_id(page: str, part: str, lang: str, present: str) -> str:
    return f"{page}/{part}/{lang}/present={present}"


def run_view(page: str, part: str, lang: str, present: str):
    """The view run through ``AppTest`` (raises if the page raised): the handout's run too."""
    return headless.run_view(page, part, lang, present)


def figures(page: str, part: str, lang: str, present: str, at=None) -> list[dict]:
    """The fingerprint (:func:`fingerprint`) of each chart the view draws, in page order
    (of ``at``, the view already run, if given)."""
    at = at or run_view(page, part, lang, present)
    out = [
        fingerprint({"spec": json.loads(chart.proto.spec), "config": chart.proto.config})
        for chart in at.get("plotly_chart")
    ]
    if f"{page}/{part}" in TIMED:
        return [{"sha": "timed", "floats": []} for _ in out]
    return out


def fingerprint(figure: dict) -> dict:
    """``sha``: the spec with each float (and each float array, plotly's ``bdata``) replaced
    by a mark; ``floats``: per float array its size, mean, mean of |x|, min and max, and each
    lone float, in the order they occur."""
    floats: list[float] = []

    def strip(node):
        if isinstance(node, dict):
            if "bdata" in node and "dtype" in node:
                values = np.frombuffer(base64.b64decode(node["bdata"]), dtype=node["dtype"])
                if values.dtype.kind != "f":
                    return node
                v = values.astype(float)
                finite = v[np.isfinite(v)] if v.size else v
                floats.extend([float(v.size), *_summary(finite)])
                return {"float_array": node.get("shape", str(v.size))}
            return {k: strip(x) for k, x in node.items()}
        if isinstance(node, list):
            return [strip(x) for x in node]
        if isinstance(node, float) and math.isfinite(node) and not node.is_integer():
            floats.append(node)
            return "#float"
        return node

    body = json.dumps(strip(figure), sort_keys=True)
    return {"sha": hashlib.sha256(body.encode()).hexdigest()[:16], "floats": floats}


def _summary(v: np.ndarray) -> list[float]:
    if not v.size:
        return [0.0, 0.0, 0.0, 0.0]
    return [float(v.mean()), float(np.abs(v).mean()), float(v.min()), float(v.max())]


def same(got: list[dict], want: list[dict], rtol: float = 1e-4, atol: float = 1e-6) -> bool:
    """Whether two views' fingerprints agree: the same charts, the same specs, each float
    within ``rtol`` (or ``atol`` near zero). The models compute in float32, whose last bits
    differ between CPUs: a summary that should be zero came out 1.4e-8 on an AMD EPYC and
    -7.4e-9 on the Intel Xeon that recorded it (attention/pairs), so near zero a float agrees
    within 1e-6, float32's rounding of numbers of order one, far below any drawn change."""
    if [g["sha"] for g in got] != [w["sha"] for w in want]:
        return False
    for g, w in zip(got, want):
        a, b = np.asarray(g["floats"], float), np.asarray(w["floats"], float)
        if a.shape != b.shape or not np.allclose(a, b, rtol=rtol, atol=atol):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the oracle")
    parser.add_argument("--out", type=Path, default=ORACLE)
    parser.add_argument("--page", action="append", help="only this page (repeatable)")
    args = parser.parse_args()
    chosen = [v for v in views() if not args.page or v[0] in args.page]
    got = {view_id(*v): figures(*v) for v in chosen}
    if args.write:
        kept = json.loads(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
        kept = {k: v for k, v in kept.items() if k in {view_id(*v) for v in views()}}
        got = kept | got
        rows = (f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(got.items()))
        args.out.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")  # a view a line
    else:
        want = json.loads(ORACLE.read_text(encoding="utf-8"))
        for key in sorted(set(want) | set(got)):
            if key not in want or key not in got or not same(got[key], want[key]):
                print("changed:", key)


if __name__ == "__main__":
    main()
