"""The self part's lines (BertViz's view) make room for their title."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio

from charts import attention as F
from charts import base


def _json(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))


def test_lines_view_title_broken_for_a_narrow_column_gets_room():
    z = np.full((3, 3), 1 / 3)
    one = F.attention_lines(z, list("abc"), title="one line")
    two = F.attention_lines(z, list("abc"), title="two<br>lines")
    top = base.template_of(False).layout.margin.t
    # room above the plot for the left/right column titles, and more for a broken title
    assert _json(one)["layout"]["margin"]["t"] > top
    assert _json(two)["layout"]["margin"]["t"] > _json(one)["layout"]["margin"]["t"]
