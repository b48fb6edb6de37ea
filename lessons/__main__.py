"""Commands of the lessons package: ``python -m lessons handout --out DIR [--lang en|zh|all]
[--path class|full]`` builds the offline handout (``lessons.handout``)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

import core  # noqa: F401  (caps BLAS/OpenMP threads before torch is imported)
from core.i18n import LANGS
from ui.nav import PATHS


def _lowest_priority() -> None:
    """Yield every core to the app's visitors: niceness 19 and, on Linux, the idle class."""
    os.nice(19 - os.nice(0))
    if hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:  # a sandbox that refuses it: niceness alone
            pass


# Streamlit's loggers that speak at every page run without a server, as expected here
BARE_MODE_LOGGERS = (
    "streamlit.runtime.scriptrunner_utils.script_run_context",
    "streamlit.runtime.caching.cache_data_api",
    "streamlit.runtime.caching.cache_resource_api",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    h = sub.add_parser("handout", help="build the lesson as an offline handout (HTML and PDF)")
    h.add_argument("--out", type=Path, required=True, help="folder for the files")
    h.add_argument("--lang", choices=(*LANGS, "all"), default="all")
    h.add_argument("--path", choices=PATHS, default="class", help="the deck's path")
    h.add_argument("--no-chromium", action="store_true", help="no images or PDF: the HTML draws")
    h.add_argument("--progress", type=Path, help="write progress as JSON to this file")
    h.add_argument("--idle", action="store_true", help="run at the lowest CPU priority")
    args = parser.parse_args(argv)
    if args.idle:
        _lowest_priority()
    from streamlit.logger import get_logger

    from lessons.handout import build

    for name in BARE_MODE_LOGGERS:  # a filter: Streamlit resets its loggers' levels
        get_logger(name).addFilter(lambda record: record.levelno >= logging.ERROR)

    def progress(done: int, total: int, what: str) -> None:
        if args.progress is not None:
            tmp = args.progress.with_suffix(".tmp")
            tmp.write_text(json.dumps({"done": done, "total": total, "what": what}))
            tmp.replace(args.progress)
        print(f"[{done}/{total}] {what}", file=sys.stderr, flush=True)

    langs = LANGS if args.lang == "all" else (args.lang,)
    chromium = False if args.no_chromium else None
    for built in build.build(args.out, langs, args.path, progress, chromium):
        pdf = f", {built.pdf} ({built.pages} pages)" if built.pdf else ""
        print(f"{built.lang}: {built.html}{pdf} in {built.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
