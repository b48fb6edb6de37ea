"""A cold server's first page: what its first run imports.

A fresh server runs no code of the app before its first visitor (``streamlit run app.py``),
so whatever the home page's first run imports, that visitor waits for (bench: cold start,
the app's home against ``streamlit hello``). The home page draws no chart: it needs neither
numpy nor the chart code, Streamlit's emoji catalogue (loaded for a segmented control's
option whose first word is not ASCII) nor the QR code library (the share dialog's). numpy
comes in only with the tab's icon, which ``app.py`` sets after the page has been written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs the app's first run in a fresh interpreter and reports, for each watched module, the
# app's own frames (file, line) on the stack when it was first imported.
SCRIPT = textwrap.dedent(
    """
    import json, sys, traceback
    from streamlit.testing.v1 import AppTest

    ROOT, WATCH = sys.argv[1], sys.argv[2].split(",")
    seen = {}

    class Watch:
        def find_spec(self, name, path=None, target=None):
            if name in WATCH and name not in seen:
                seen[name] = [
                    [f.filename[len(ROOT) + 1 :], f.lineno]
                    for f in traceback.extract_stack()
                    if f.filename.startswith(ROOT + "/")
                ]
            return None

    sys.meta_path.insert(0, Watch())
    at = AppTest.from_file(ROOT + "/app.py", default_timeout=120)
    at.run()
    print(json.dumps({"exception": [e.message for e in at.exception], "seen": seen}))
    """
)
WATCH = ("numpy", "streamlit.emojis", "segno", "charts.base", "torch", "pandas")


def _first_run() -> dict:
    env = dict(os.environ, ROAD_WARMUP_DELAY_S="3600")  # the warm-up imports torch later on
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), ",".join(WATCH)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_home_pages_first_run_imports_only_what_it_draws():
    result = _first_run()
    assert result["exception"] == []
    seen = result["seen"]
    for name in ("streamlit.emojis", "segno", "charts.base", "torch", "pandas"):
        assert name not in seen, (name, seen.get(name))
    # numpy: first asked for by the icon, the last line of app.py (nothing of ours before it)
    icon_line = next(
        i
        for i, line in enumerate((ROOT / "app.py").read_text().splitlines(), 1)
        if "page_icon=" in line
    )
    assert seen["numpy"] == [["app.py", icon_line]], seen["numpy"]
