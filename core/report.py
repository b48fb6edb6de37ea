"""The README's table of shipped models, generated from the manifest.

``python -m core.report`` prints it as Markdown, ``--readme`` writes it into the README;
``tests/test_readme.py`` checks the README still shows exactly this table, so the numbers
there are the manifest's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core import corpus, zoo
from core.corpus.lesson import AUTOREGRESSION_PROMPT as PROMPT

START, END = "<!-- models:start -->", "<!-- models:end -->"
README = Path(__file__).resolve().parent.parent / "README.md"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}"


def models_table(manifest: dict[str, Any]) -> str:
    """Markdown: translation models by length bucket, then the probes and the language model."""
    models = manifest["models"]
    lines = [
        "Exact match (%) on the held-out test split, greedy decoding, by source length "
        f"({manifest['corpus']['test']} sentences, {len(corpus.BUCKETS)} buckets of equal size):",
        "",
        "| model | parameters | steps | train time (s) | "
        + " | ".join(corpus.BUCKETS)
        + " | all | coref | sense |",
        "|---|---:|---:|---:|" + "---:|" * (len(corpus.BUCKETS) + 3),
    ]
    for name in zoo.TRANSLATION_MODELS + zoo.EXAMPLE_TRANSLATION_MODELS:
        if name not in models:
            continue
        e = models[name]
        m = e["metrics"]
        cells = [_pct(m["by_length"][b]["exact"]) for b in corpus.BUCKETS]
        cells += [_pct(m["all"]["exact"]), _pct(m["coref"]), _pct(m["sense"])]
        lines.append(
            f"| `{name}` | {e['params']:,} | {e['steps']:,} | {e['train_time_s']:.0f} | "
            + " | ".join(cells)
            + " |"
        )
    probes = [n for n in zoo.PROBE_MODELS if n in models]
    if probes:
        dists = list(models[probes[0]]["metrics"]["distance"])
        lines += [
            "",
            "Distance probes: accuracy (%) at recalling a key d symbols back (chance 10%):",
            "",
            "| probe | parameters | steps | " + " | ".join(f"d={d}" for d in dists) + " |",
            "|---|---:|---:|" + "---:|" * len(dists),
        ]
        for name in probes:
            e = models[name]
            accs = [_pct(e["metrics"]["distance"][d]) for d in dists]
            lines.append(
                f"| `{name}` | {e['params']:,} | {e['steps']:,} | " + " | ".join(accs) + " |"
            )
    if "lm_gru" in models:
        e = models["lm_gru"]
        cont = " ".join(e["metrics"]["you_should"])
        lines += [
            "",
            f"`lm_gru` ({e['params']:,} parameters, {e['steps']:,} steps): test perplexity "
            f"{e['metrics']['test_ppl']:.2f}; greedy continuation of “{PROMPT}”: {cont}.",
        ]
    if "coref_encoder" in models:
        e, m = models["coref_encoder"], models["coref_encoder"]["metrics"]
        lines += [
            "",
            f"`coref_encoder` ({e['params']:,} parameters, {e['steps']:,} steps): on "
            f"{m['held_out_n']} sentences of a frame, nouns or noun/predicate pairs it never "
            f"saw in training, its output at "
            f"“it” names the antecedent in {_pct(m['named_acc'])}%, and its last layer's one head "
            f"gives the right noun at least 0.1 more weight than the wrong one in "
            f"{_pct(m['resolved'])}% (smallest gap {m['min_margin']:.2f}).",
        ]
    total = sum(e["train_time_s"] for e in models.values())
    lines += [
        "",
        f"Training time summed over models: {total / 60:.1f} min of one CPU core each "
        "(`--jobs 2` runs two at once).",
    ]
    return "\n".join(lines)


def write_readme(table: str, path: Path = README) -> None:
    """Replace the README's block between the two markers with ``table``."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The table of shipped models, from the manifest.")
    parser.add_argument("--readme", action="store_true", help="write it into README.md")
    args = parser.parse_args(argv)
    try:
        table = models_table(zoo.load_manifest())
    except zoo.ZooError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.readme:
        write_readme(table)
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
