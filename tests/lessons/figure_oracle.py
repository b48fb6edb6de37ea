"""The figures every part's default view draws, as checksums: the oracle that a refactoring
(or a change of the app's shell) leaves every chart byte-identical.

``python -m tests.lessons.figure_oracle --write [--page SLUG]`` records them (of every page,
or of one) in ``figures.json`` beside this file; ``test_figures_unchanged.py`` compares. A
figure changed on purpose is re-recorded that way (the diff shows which views changed)."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from tests.conftest import make_app
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


def figures(page: str, part: str, lang: str, present: str) -> list[str]:
    """The sha256 of each chart's plotly spec and config the view draws, in page order."""
    at = make_app(f"pages/{page}.py", lang=lang, present=present, part=part)
    at.run(timeout=180)
    if at.exception:
        raise RuntimeError(f"{view_id(page, part, lang, present)}: {at.exception[0].message}")
    out = []
    for chart in at.get("plotly_chart"):
        body = json.dumps(
            {"spec": json.loads(chart.proto.spec), "config": chart.proto.config}, sort_keys=True
        )
        out.append(hashlib.sha256(body.encode()).hexdigest()[:16])
    if f"{page}/{part}" in TIMED:
        return ["timed"] * len(out)
    return out


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
        args.out.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    else:
        want = json.loads(ORACLE.read_text(encoding="utf-8"))
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                print("changed:", key)


if __name__ == "__main__":
    main()
