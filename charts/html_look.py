"""The look of the HTML blocks ``charts.arena`` writes, as CSS: plain strings, so the
stylesheet every page carries (``ui/style.py``) costs no import of numpy or plotly (a cold
server's first page, the home page, draws no chart: see ``ui.chart``)."""

from __future__ import annotations

# The look of every HTML block charts.arena writes (the arena's cards, word chips, confidence
# grid and tables, every chart's data table), in every page's stylesheet (ui/style.py):
# classes, not a style repeated on every cell or chip, so a chart's data table of 2,000
# cells is ~30 kB in its message, not ~250 kB, and a sentence's cards and grid a third of
# the ~90 kB they were (the bytes; the browser's time goes to laying them out).
TABLE_CSS = (
    ".road-scroll{overflow-x:auto;max-width:100%}"
    ".road-table{border-collapse:collapse}"
    ".road-table th,.road-table td{padding:0.25em 0.6em;"
    "border-bottom:1px solid rgba(128,128,128,0.3);text-align:left}"
    ".road-table .c{text-align:center}.road-table .r{text-align:right}"
)


# One result card: a bordered box (translucent grey reads on light and dark themes) that
# wraps its words on a phone.
CARD_CSS = (
    ".road-card{border:1px solid rgba(128,128,128,0.3);border-radius:0.5rem;"
    "overflow-wrap:anywhere;padding:0.6rem 0.9rem;margin-bottom:0.6rem;line-height:1.9;"
    "max-width:100%}.road-small{font-size:0.875em;opacity:0.75}"
)


GRID_CSS = (
    ".road-grid{border-collapse:collapse;font-size:0.9em}"
    ".road-grid th,.road-grid td{padding:0.15em 0.45em;white-space:nowrap;"
    "border:1px solid rgba(128,128,128,0.25)}.road-grid th.l{text-align:left}"
    ".road-grid td.w{color:#FFFFFF}.road-grid td.k{color:#000000}"
)


# Backgrounds of the token chips: translucent, so the text keeps the theme's colour (light
# and dark themes alike); the symbols (✓ ✗ +) carry the same marks without colour.
CHIP_BACKGROUND = {
    "ok": "rgba(33, 195, 84, 0.18)",
    "wrong": "rgba(255, 43, 43, 0.18)",
    "extra": "rgba(255, 164, 33, 0.25)",
    None: "rgba(128, 128, 128, 0.15)",
}
MARK_CLASS = {"ok": "ok", "wrong": "wrong", "extra": "extra", None: "none"}
CHIP_CSS = (
    ".road-chip{display:inline-block;margin:0.1em 0.15em;padding:0 0.3em;border-radius:0.25em}"
    + "".join(f".road-chip.{MARK_CLASS[m]}{{background:{c}}}" for m, c in CHIP_BACKGROUND.items())
)


# CSS: no `content-visibility: auto` on the cards and table boxes: it saved the arena's rerun
# ~25-35 ms of layout (bench profile, 2026-12-04: the browser's part 82 ms with it, 103-125
# without), but a box never laid out stands in at a placeholder height, and a jump down the
# page (a link scrolled into view, the End key) lays the boxes near the viewport out a frame
# later: the page moved under a click on the deck's "next" link (1 run in 3 of the slides
# test on the arena in presenter mode, zh), and a teacher's click can land on the table.
CSS = TABLE_CSS + CARD_CSS + GRID_CSS + CHIP_CSS  # ui/style.py: in every page's stylesheet
