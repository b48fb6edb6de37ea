"""A module another thread is halfway through importing (pandas, imported by a page's first
visit) must not break a figure being built beside it: plotly peeks at pandas in
``sys.modules``; ``core`` makes that peek pass over a module still being imported. The race
is reproduced deterministically: a half-built "pandas" sits in ``sys.modules`` while a figure
is built, with the guard (it builds) and with plotly's own lookup put back (it raises, as the
two first visits did)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = r"""
import importlib.machinery, json, sys, types
import numpy as np
import core  # installs the guard
import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils import basevalidators, optional_imports

half = types.ModuleType("pandas")  # what sys.modules holds while pandas' body runs
half.__spec__ = importlib.machinery.ModuleSpec("pandas", None)
half.__spec__._initializing = True
sys.modules["pandas"] = half

def build():
    fig = go.Figure(go.Heatmap(z=np.eye(3), x=["a", "b", "c"], y=["x", "y", "z"]))
    fig.add_trace(go.Scatter(x=[1, 2], y=[3, 4], text=["p", "q"]))
    return pio.to_json(fig, validate=False)

out = {"guarded": bool(json.loads(build()))}
original = optional_imports.get_module.unguarded
for module in (optional_imports, basevalidators):
    module.get_module = original
try:
    build()
    out["unguarded"] = "built"
except AttributeError as exc:
    out["unguarded"] = str(exc)
print(json.dumps(out))
"""


def test_a_figure_builds_while_pandas_is_half_imported():
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    import json

    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["guarded"] is True
    # plotly's own lookup meets the half-built module: the failure the guard prevents
    assert "pandas" in out["unguarded"] and "Series" in out["unguarded"], out
