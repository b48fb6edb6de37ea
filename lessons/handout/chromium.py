"""How the handout, the browser tests and the benchmarks start Debian's Chromium (never a
browser Playwright downloads): where it is and its flags. Nothing else here, so that the
benchmarks' browser driver imports it without the app."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
