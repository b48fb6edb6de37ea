"""The benchmarks, one JSON result each: python -m bench pages|class|capacity|rooms|... .

``--out auto`` writes ``bench/results/<scenario>.json``; ``--table FILE`` prints a saved
result's tables. Every subcommand, what it measures and the latest figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

from bench import procs
from bench.procs import MAX_REPLICAS, RESULTS


def _counts(what: str, lo: int, hi: int, unique: bool = False):
    """An argparse type: ``"10,30"`` -> ``[10, 30]``, each within ``lo..hi`` (and unique)."""

    def counts(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} wants numbers like 1,2, got {text!r}")
        if not values or any(not lo <= v <= hi for v in values):
            raise argparse.ArgumentTypeError(f"{what} must be within {lo}..{hi}, got {text!r}")
        if unique and len(set(values)) != len(values):
            raise argparse.ArgumentTypeError(f"{what} has a count twice: {text!r}")
        return values

    return counts


def _pages_options(add) -> None:
    add("--reps", type=int, default=20, help="reruns per page (default 20)")
    add("--again", type=int, default=3, help="later first renders per page (3)")
    pairs = "first renders of each page paired with the bare page's; the median is the line (3)"
    add("--first-pairs", type=int, default=3, help=pairs)
    add("--cold-reps", type=int, default=3, help="cold starts of each (default 3)")
    add("--sessions", type=int, default=20, help="concurrent sessions (default 20)")
    add("--session-timeout", type=float, default=300.0, help="s per page round")
    add("--model-reps", type=int, default=10, help="timed translations per cell")
    add("--skip-models", action="store_true", help="no model_ms / zoo_load_s")
    add("--dry-run", action="store_true", help="the bare page only")
    no_pair = "no bare rerun after each page rerun (ratios against the bare run at the start)"
    add("--no-paired", dest="paired", action="store_false", help=no_pair)
    tab = "the paired bare tab: a new one beside each page's new tab (fresh), or one for the run"
    add("--pair-tab", choices=("fresh", "warm"), default="fresh", help=tab + " (fresh)")
    add("--pages", help="comma-separated slugs to measure (default: every page)")
    aa = "times the bare page is measured as a page, among the pages: the run's noise (2)"
    add("--aa", type=int, default=2, help=aa)


def _class_options(add) -> None:
    from bench.scaleout import NGINX_PORT

    sizes = _counts("class sizes", 1, 500)
    add("klass", nargs="?", type=sizes, metavar="N[,N...]", help="class sizes: 10,30,60")
    add("--scenario", choices=("page", "walk"), default="page")
    add("--class-duration", type=float, default=120.0, help="s of clicks (120)")
    add("--class-arrive", type=float, default=10.0, help="arrival window, s (10)")
    add("--class-timeout", type=float, default=60.0, help="s before an action is lost")
    add("--browser-check", type=int, default=2, help="Chromium sessions to compare")
    add("--seed", type=int, default=0, help="arrival times and clicks")
    add("--merge", type=Path, help="add the class figures to this pages JSON")
    replicas = _counts("--replicas", 1, MAX_REPLICAS, unique=True)
    add("--replicas", type=replicas, metavar="R[,R...]", help="through nginx: 1,2 replicas")
    add("--abuser", action="store_true", help="with and without one abusive client (nginx)")
    add("--live", type=int, default=0, metavar="P", help="P pairs without/with live training")
    add("--live-race", choices=("translation", "coref"), default="translation", help="its race")
    add("--abuse-attempts", type=int, default=400, help="its new sessions, at most")
    add("--abuse-seconds", type=float, default=60.0, help="it opens sessions this long at most")
    add("--port", type=int, default=NGINX_PORT, help="nginx's port; replicas take the next")


def _capacity_options(add) -> None:
    from bench import capacity
    from bench.scaleout import NGINX_PORT

    sizes = _counts("class sizes", 0, 1000, unique=True)
    default = ",".join(map(str, capacity.SIZES))
    add("sizes", nargs="?", type=sizes, default=list(capacity.SIZES), metavar="N[,N...]",
        help=f"class sizes through nginx ({default}; 0 skips them)")  # fmt: skip
    ceiling = _counts("--ceiling", 0, 1000, unique=True)
    one = ",".join(map(str, capacity.CEILING_SIZES))
    add("--ceiling", type=ceiling, default=list(capacity.CEILING_SIZES),
        help=f"sizes against one process alone ({one}; 0: none)")  # fmt: skip
    add("--replicas", type=int, default=os.cpu_count() or 1, help="app processes (cores)")
    add("--class-duration", type=float, default=60.0, help="s of clicks (60)")
    add("--class-arrive", type=float, default=20.0, help="arrival window, s (20)")
    add("--class-timeout", type=float, default=60.0, help="s before an action is lost")
    add("--seed", type=int, default=0, help="arrival times and clicks")
    add("--no-gil", dest="gil", action="store_false", help="no py-spy sampling of the GIL")
    add("--port", type=int, default=NGINX_PORT, help="nginx's port; replicas take the next")


def _rooms_options(add) -> None:
    from bench.rooms import RoomsPlan

    d = RoomsPlan()
    add("--classes", type=int, default=d.classes, help=f"classes, a room each ({d.classes})")
    add("--students", type=int, default=d.students, help=f"students per class ({d.students})")
    add("--arrive-within", type=float, default=d.arrive_within, help="arrival window, s (60)")
    add("--vote-for", type=float, default=d.vote_for, help="s after the last arrival (20)")
    add("--replicas", type=int, default=d.replicas, help=f"app processes ({d.replicas})")
    add("--class-timeout", type=float, default=60.0, help="s before an action is lost")
    add("--seed", type=int, default=0, help="arrival times and votes")
    add("--port", type=int, default=d.port, help="nginx's port; replicas take the next")


def _flood_options(add) -> None:
    from bench import flood

    add("--inputs", type=int, default=flood.DEFAULT_INPUTS, help="distinct inputs per page")
    add("--students", type=int, default=4, help="students in parallel (default 4)")
    add("--session-inputs", type=int, default=50, help="inputs per session before a new one")
    add("--pages", type=flood.page_list, default=list(flood.PAGES), help="comma-separated slugs")
    add("--ceiling-mb", type=float, help="check the peak against this (default: derived)")
    add("--port", type=int, default=flood.PORT, help="the app's port")


def _phone_options(add) -> None:
    from bench.phone import PAIRED_RUN

    runs = ["direct/none", "proxy/none", "proxy/phone"]
    add("--pages", type=lambda s: s.split(","), default=None)
    add("--runs", type=lambda s: s.split(","), default=runs, help="target/emulation pairs")
    add("--all", action="store_true", help="every target with every emulation")
    add("--timeout", type=float, default=180.0, help="seconds a visit may take")
    reps = f"paired page/bare first visits per lesson page under {PAIRED_RUN} (0: none)"
    add("--reps", type=int, default=3, help=reps)


def _profile_options(add) -> None:
    add("--pages", default="bottleneck,attention", help="comma-separated slugs")
    add("--reps", type=int, default=4, help="first renders per page (and bare)")
    add("--reruns", type=int, default=10, help="reruns per page (and bare)")


def _abuser_options(add) -> None:
    add("spec", help="JSON: base, page and bench.scaleout.Abuse's settings")


COMMANDS = {  # name: (what it measures, its options)
    "pages": ("cold start, every page's renders and reruns, memory", _pages_options),
    "class": ("a class of simulated students (one server or nginx)", _class_options),
    "capacity": ("students one process and one machine hold (nginx)", _capacity_options),
    "rooms": ("four classes, a room each, on one link (nginx, PostgreSQL)", _rooms_options),
    "flood": ("bounded memory under distinct valid inputs", _flood_options),
    "phone": ("a phone through the deploy proxy: bytes, first chart", _phone_options),
    "profile": ("main-thread work and the server/browser split", _profile_options),
    "abuser": ("(internal) the abusive client of class --abuser", _abuser_options),
}


def _check_cluster(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A cluster's replicas and nginx's port (``capacity``, ``rooms``)."""
    if not 1 <= args.replicas <= MAX_REPLICAS:
        p.error(f"--replicas must be within 1..{MAX_REPLICAS}")
    if not 1024 <= args.port <= 65535 - 9:
        p.error("--port must be within 1024..65526")


def _check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks argparse cannot make alone (``p.error`` exits with the message)."""
    if args.command == "pages":
        for name in ("reps", "cold_reps", "sessions", "model_reps"):
            if getattr(args, name) < 1:
                p.error(f"--{name.replace('_', '-')} must be at least 1")
        if args.again < 0:
            p.error("--again must be 0 or more")
        if args.aa < 0:
            p.error("--aa must be 0 or more")
    elif args.command == "class":
        if not args.klass and not args.table:
            p.error("give the class sizes, e.g. 10,30,60,100")
        if args.class_duration < 0 or args.class_arrive < 0 or args.class_timeout <= 0:
            p.error("--class-duration and --class-arrive must be >= 0, --class-timeout > 0")
        if args.browser_check < 0:
            p.error("--browser-check must be 0 or more")
        if args.live and (args.replicas or args.abuser):
            p.error("--live runs on one server: not with --replicas or --abuser")
        if (args.replicas or args.abuser) and args.merge:
            p.error("--merge does not take --replicas or --abuser results")
        if args.abuser and args.replicas and len(args.replicas) > 1:
            p.error("--abuser runs on one replica count: give --replicas R with one R")
        if args.abuse_attempts < 1 or args.abuse_seconds <= 0:
            p.error("--abuse-attempts must be >= 1 and --abuse-seconds > 0")
        if not 1024 <= args.port <= 65535 - 9:
            p.error("--port must be within 1024..65526")
    elif args.command == "capacity":
        args.sizes = [n for n in args.sizes or [] if n]
        args.ceiling = [n for n in args.ceiling or [] if n]
        if not args.sizes and not args.ceiling and not args.table:
            p.error("give class sizes or --ceiling sizes")
        if args.class_duration < 0 or args.class_arrive < 0 or args.class_timeout <= 0:
            p.error("--class-duration and --class-arrive must be >= 0, --class-timeout > 0")
        _check_cluster(p, args)
    elif args.command == "rooms":
        from bench.rooms import QUESTIONS

        if not 1 <= args.classes <= len(QUESTIONS) or not 1 <= args.students <= 500:
            p.error(f"--classes must be within 1..{len(QUESTIONS)}, --students within 1..500")
        if args.arrive_within < 0 or args.vote_for < 5 or args.class_timeout <= 0:
            p.error("--arrive-within must be >= 0, --vote-for >= 5, --class-timeout > 0")
        _check_cluster(p, args)
    elif args.command == "flood":
        if not 1 <= args.inputs <= 100_000:
            p.error("--inputs must be within 1..100000")
        if not 1 <= args.students <= 16 or args.session_inputs < 1:
            p.error("--students must be within 1..16 and --session-inputs at least 1")
    elif args.command == "phone":
        from bench.phone import EMULATIONS

        known = [f"{t}/{e}" for t in ("direct", "proxy") for e in EMULATIONS]
        if args.all:
            args.runs = known
        if set(args.runs) - set(known):
            p.error(f"unknown runs {sorted(set(args.runs) - set(known))}: choose from {known}")


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (text, options) in COMMANDS.items():
        add = sub.add_parser(name, help=text, description=text).add_argument
        options(add)
        if name != "abuser":
            add("--out", type=Path, help="also write the JSON here ('auto': results/)")
        if name not in ("abuser", "profile"):  # profile prints its JSON: it has no tables
            add("--json", action="store_true", help="print the result as one JSON object")
            add("--table", type=Path, help="print the tables of a saved result")
    args = p.parse_args(argv)
    _check(sub.choices[args.command], args)
    return args


def _merge(result: dict, path: Path) -> dict:
    """A class run's keys added to an earlier pages result."""
    merged = json.loads(path.read_text(encoding="utf-8"))
    merged["meta"] = dict(merged.get("meta", {}), class_run=result["meta"])
    merged["class"], merged["browser_check"] = result["class"], result["browser_check"]
    for key in ("errors", "schema_problems"):
        merged[key] = [*merged.get(key, []), *result[key]]
    return merged


def run(args) -> tuple[dict, str]:
    """The result of the subcommand and the name of its scenario (its results file)."""
    name = "classrun" if args.command == "class" else args.command
    module = importlib.import_module(f"bench.{name}")
    if args.command == "class" and (args.replicas or args.abuser):
        return module.run_scaleout(args), "abuse" if args.abuser else "replicas"
    if args.command == "class":
        result = module.run_classes(args)
        result = _merge(result, args.merge) if args.merge else result
        if args.live:
            return result, "class-live-it" if args.live_race == "coref" else "class-live"
        return result, "class"
    if args.command == "phone" and args.runs == [module.PAIRED_RUN]:
        return module.run(args), "phone-paired"
    return module.run(args), args.command


def table(command: str, result: dict) -> str:
    """The tables of a result, as the docs show them."""
    from bench import capacity, flood, phone, rooms, schema

    tables = {"flood": flood.summary, "phone": phone.table}
    tables |= {"capacity": capacity.table, "rooms": rooms.table}
    return tables.get(command, schema.markdown_table)(result)


def ok(command: str, result: dict) -> bool:
    if command == "flood":
        return bool(result["under_ceiling"] and not result["schema_problems"] + result["errors"])
    if command == "rooms":
        return bool(result["goals"]["met"] and not result["errors"])
    if command in ("pages", "class"):
        return not result["schema_problems"]
    return True


def main(argv=None) -> int:
    args = parse(argv)
    if args.command == "abuser":
        from bench import scaleout

        return scaleout.abuser_main(args)
    if getattr(args, "table", None):
        print(table(args.command, json.loads(args.table.read_text(encoding="utf-8"))))
        return 0
    result, scenario = run(args)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        out = RESULTS / f"{scenario}.json" if str(args.out) == "auto" else args.out
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
        procs.log(f"wrote {out}")
    print(text if getattr(args, "json", True) else table(args.command, result))
    return 0 if ok(args.command, result) else 1


if __name__ == "__main__":
    sys.exit(main())
