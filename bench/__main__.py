"""The benchmarks, one JSON result each: python -m bench pages|class|flood|phone|profile.

    python -m bench pages --json                   # every page against the bare page
    python -m bench class 10,30,60,100 --json      # simulated students on one server
    python -m bench class 30 --replicas 1,2 --json # through nginx: 1 replica against 2
    python -m bench class 30 --abuser --json       # with and without an abusive client
    python -m bench class 60 --live 2 --json       # without / with live training, 2 pairs

``--out auto`` writes ``bench/results/<scenario>.json``; ``--table FILE`` prints a saved
result's tables. Every subcommand, what it measures and the latest figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench import procs
from bench.procs import MAX_REPLICAS, RESULTS


def _counts(text: str, what: str, lo: int, hi: int) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} wants numbers like 1,2, got {text!r}")
    if not values or any(not lo <= v <= hi for v in values):
        raise argparse.ArgumentTypeError(f"{what} must be within {lo}..{hi}, got {text!r}")
    return values


def class_sizes(text: str) -> list[int]:
    """``"10,30,60"`` -> ``[10, 30, 60]`` (each at least 1, at most 500)."""
    return _counts(text, "class sizes", 1, 500)


def replica_counts(text: str) -> list[int]:
    """``"1,2"`` -> ``[1, 2]`` (each within 1..8, no repeats)."""
    counts = _counts(text, "--replicas", 1, MAX_REPLICAS)
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"--replicas has a count twice: {text!r}")
    return counts


def _output(p: argparse.ArgumentParser, table: bool = True) -> None:
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--out", type=Path, help="also write the JSON here ('auto': results/)")
    if table:
        p.add_argument("--table", type=Path, help="print the tables of a saved result")


def _sub(sub, name: str, text: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=text, description=text)


def _pages_parser(sub) -> None:
    p = _sub(sub, "pages", "cold start, every page's renders and reruns, memory")
    add = p.add_argument
    add("--reps", type=int, default=10, help="reruns per page (default 10)")
    add("--again", type=int, default=3, help="later first renders per page (3)")
    add("--cold-reps", type=int, default=3, help="cold starts of each (default 3)")
    add("--sessions", type=int, default=20, help="concurrent sessions (default 20)")
    add("--session-timeout", type=float, default=300.0, help="s per page round")
    add("--model-reps", type=int, default=10, help="timed translations per cell")
    add("--skip-models", action="store_true", help="no model_ms / zoo_load_s")
    add("--dry-run", action="store_true", help="the bare page only")
    no_pair = "no bare rerun after each page rerun (ratios against the bare run at the start)"
    add("--no-paired", dest="paired", action="store_false", help=no_pair)
    add("--pages", help="comma-separated slugs to measure (default: every page)")
    _output(p)


def _class_parser(sub) -> None:
    from bench.scaleout import NGINX_PORT

    c = _sub(sub, "class", "a class of simulated students (one server or nginx)")
    add = c.add_argument
    add("klass", nargs="?", type=class_sizes, metavar="N[,N...]", help="class sizes: 10,30,60")
    add("--scenario", choices=("page", "walk"), default="page")
    add("--class-duration", type=float, default=120.0, help="s of clicks (120)")
    add("--class-arrive", type=float, default=10.0, help="arrival window, s (10)")
    add("--class-timeout", type=float, default=60.0, help="s before an action is lost")
    add("--browser-check", type=int, default=2, help="Chromium sessions to compare")
    add("--seed", type=int, default=0, help="arrival times and clicks")
    add("--merge", type=Path, help="add the class figures to this pages JSON")
    add("--replicas", type=replica_counts, metavar="R[,R...]", help="through nginx: 1,2 replicas")
    add("--abuser", action="store_true", help="with and without one abusive client (nginx)")
    add("--live", type=int, default=0, metavar="P", help="P pairs without/with live training")
    add("--abuse-attempts", type=int, default=400, help="its new sessions, at most")
    add("--abuse-seconds", type=float, default=60.0, help="it opens sessions this long at most")
    add("--port", type=int, default=NGINX_PORT, help="nginx's port; replicas take the next")
    _output(c)


def _flood_parser(sub) -> None:
    from bench import flood

    p = _sub(sub, "flood", "bounded memory under distinct valid inputs")
    add = p.add_argument
    add("--inputs", type=int, default=flood.DEFAULT_INPUTS, help="distinct inputs per page")
    add("--students", type=int, default=4, help="students in parallel (default 4)")
    add("--session-inputs", type=int, default=50, help="inputs per session before a new one")
    add("--pages", type=flood.page_list, default=list(flood.PAGES), help="comma-separated slugs")
    add("--ceiling-mb", type=float, help="check the peak against this (default: derived)")
    add("--port", type=int, default=flood.PORT, help="the app's port")
    _output(p)


def _phone_parser(sub) -> None:
    from bench import phone

    p = _sub(sub, "phone", "a phone through the deploy proxy: bytes, first chart")
    add = p.add_argument
    runs = ["direct/none", "proxy/none", "proxy/phone"]
    add("--pages", type=lambda s: s.split(","), default=None)
    add("--runs", type=lambda s: s.split(","), default=runs, help="target/emulation pairs")
    add("--all", action="store_true", help="every target with every emulation")
    add("--timeout", type=float, default=180.0, help="seconds a visit may take")
    reps = f"paired page/bare first visits per lesson page under {phone.PAIRED_RUN} (0: none)"
    add("--reps", type=int, default=3, help=reps)
    _output(p)


def _profile_parser(sub) -> None:
    p = _sub(sub, "profile", "main-thread work and the server/browser split")
    add = p.add_argument
    add("--pages", default="bottleneck,attention", help="comma-separated slugs")
    add("--reps", type=int, default=4, help="first renders per page (and bare)")
    add("--reruns", type=int, default=10, help="reruns per page (and bare)")
    add("--out", type=Path, help="also write the JSON here ('auto': results/)")


def _abuser_parser(sub) -> None:
    import dataclasses

    from bench.scaleout import Abuse

    p = _sub(sub, "abuser", "(internal) the abusive client of class --abuser")
    p.add_argument("base")
    p.add_argument("--page", default="")
    p.add_argument("--query", default="")
    for f in dataclasses.fields(Abuse):  # as Abuse.argv writes them
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)


def _check(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks argparse cannot make alone (``p.error`` exits with the message)."""
    if args.command == "pages":
        for name in ("reps", "cold_reps", "sessions", "model_reps"):
            if getattr(args, name) < 1:
                p.error(f"--{name.replace('_', '-')} must be at least 1")
        if args.again < 0:
            p.error("--again must be 0 or more")
    elif args.command == "class":
        _check_class(p, args)
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
    elif args.command == "abuser":
        if args.attempts < 1 or args.seconds <= 0 or args.open_seconds <= 0 or args.timeout <= 0:
            p.error("--attempts must be >= 1; --seconds, --open-seconds and --timeout > 0")


def _check_class(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
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


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_pages_parser, _class_parser, _flood_parser, _phone_parser, _profile_parser):
        add(sub)
    _abuser_parser(sub)
    args = p.parse_args(argv)
    _check(sub.choices[args.command], args)
    return args


def _merge(result: dict, path: Path) -> dict:
    """A class run's keys added to an earlier pages result."""
    merged = json.loads(path.read_text(encoding="utf-8"))
    merged["meta"] = dict(merged.get("meta", {}), class_run=result["meta"])
    merged["class"], merged["browser_check"] = result["class"], result["browser_check"]
    merged["errors"] = list(merged.get("errors", [])) + result["errors"]
    merged["schema_problems"] = list(merged.get("schema_problems", []))
    merged["schema_problems"] += result["schema_problems"]
    return merged


def run(args) -> tuple[dict, str]:
    """The result of the subcommand and the name of its scenario (its results file)."""
    if args.command == "pages":
        from bench import pages

        return pages.run(args), "pages"
    if args.command == "class":
        from bench import classrun

        if args.replicas or args.abuser:
            return classrun.run_scaleout(args), "abuse" if args.abuser else "replicas"
        result = classrun.run_classes(args)
        name = "class-live" if args.live else "class"
        return (_merge(result, args.merge) if args.merge else result), name
    if args.command == "flood":
        from bench import flood

        return flood.run(args), "flood"
    if args.command == "phone":
        from bench import phone

        paired_only = args.runs == [phone.PAIRED_RUN]
        return phone.run(args), "phone-paired" if paired_only else "phone"
    from bench import profile

    return profile.run(args), "profile"


def table(command: str, result: dict) -> str:
    """The tables of a result, as the docs show them."""
    if command == "profile":
        return json.dumps(result, indent=1)
    from bench import flood, phone, schema

    return {"flood": flood.summary, "phone": phone.table}.get(command, schema.markdown_table)(
        result
    )


def ok(command: str, result: dict) -> bool:
    if command == "flood":
        return bool(result["under_ceiling"] and not result["schema_problems"] + result["errors"])
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
