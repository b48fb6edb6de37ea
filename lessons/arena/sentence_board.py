"""Part "sentence" of the model arena, every model on one sentence: each model's output scored
against the reference, ready to draw (the bars, a card each, the numbers table's rows and the
confidence grid), the models not yet revealed hidden."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import ui
from charts import arena as figures
from core import corpus, lexicon
from lessons.arena import data
from lessons.arena.sentence_why import why_text


@dataclass
class Board:
    """Every model's result on one sentence, ready to draw: the bars (``values``, ``labels``;
    ``None`` / "?" while hidden), one HTML card each, the numbers table's ``rows`` and the
    confidence grid of the models shown (names, output tokens, probabilities, marks)."""

    values: list[float | None] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    grid: tuple[list, list, list, list] = field(default_factory=lambda: ([], [], [], []))


def board(
    models: Sequence[str],
    runs: Mapping[str, data.Result],
    reference: corpus.Pair | None,
    *,
    view: str,
    shown: int,
    names: Mapping[str, str],
    why: Mapping[str, tuple[str, ...]],
    manifest: Mapping[str, Any],
    symbols: Mapping[str, str],
) -> Board:
    """Each model's output scored against the reference (``runs``: :func:`data.sentence`,
    aligned with ``view``'s alignment; without a reference, the model's mean confidence),
    the first ``shown`` models visible (predict mode hides the others)."""
    t = ui.t
    b = Board()
    ref = reference.tgt if reference is not None else None
    for i, name in enumerate(models):
        run = runs[name]
        out, probs, verdict, scores = run.out, run.probs, run.verdict, run.scores
        visible = i < shown
        conf = sum(probs) / max(1, len(probs))
        # the bar: edit-distance accuracy against the reference (mean confidence without one)
        value = (scores["edit_acc"] if scores else conf) if visible else None
        b.values.append(value)
        if not visible:
            b.labels.append("?")
        elif scores and scores["exact"] == 1:
            b.labels.append(t("arena.bars.exact", v=f"{value:.0%}"))
        else:
            b.labels.append(f"{value:.0%}" + (" ✗" if scores else ""))
        ms = run.latency["median_ms"]
        meta = t("arena.card.meta", params=f"{run.params:,}", ms=f"{ms:.0f}")
        if not visible:
            body, small = f"<b>{html.escape(t('arena.card.hidden'))}</b>", []
        else:
            marks = verdict.marks if verdict else None
            body = figures.strip_html(out, marks, mark_symbols=symbols) or t("arena.empty_output")
            card = "arena.card.exact" if scores and scores["exact"] == 1 else "arena.card.score"
            small = [
                t(
                    card,
                    correct=verdict.correct,
                    n=len(ref),
                    missing=verdict.missing,
                    conf=f"{conf:.0%}",
                )
                if verdict
                else t("arena.card.conf", conf=f"{conf:.0%}")
            ]
        pages = " · ".join(t(f"page.{slug}.title") for slug in why[name])
        small.append(f"{why_text(name, manifest)} → {pages}")
        b.cards.append(figures.card_html(names[name], lexicon.look(name).color, meta, body, small))
        cell = (lambda v: f"{v:.0%}") if visible and scores else (lambda v: "—")
        exact = "?" if not visible else ("✓" if scores["exact"] == 1 else "✗") if scores else "—"
        b.rows.append(
            [
                names[name],
                exact,
                cell(scores["edit_acc"] if scores else 0),
                cell(scores["token_acc"] if scores else 0),
                f"{conf:.0%}" if visible and probs else "—",
                f"{min(probs):.0%}" if visible and probs else "—",
                f"{run.params:,}",
                f"{float(ms):.1f}",
            ]
        )
        if visible:
            b.grid[0].append(names[name])
            b.grid[1].append(list(out))
            b.grid[2].append(list(probs))
            b.grid[3].append(list(verdict.marks) if verdict else ["none"] * len(out))
    return b
