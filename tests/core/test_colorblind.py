"""Model colours stay apart for colour-blind students, and lines differ by more than colour.

Every pair of colours drawn in one chart (the translation models side by side in the arena,
the distance probes in one plot, the highlighted bar against the others) keeps a CIEDE2000
distance of at least :data:`MIN_DELTA_E` with normal vision and after simulating full
protanopia, deuteranopia and tritanopia (``colorspacious``, severity 100: the dichromat's
worst case, not the milder anomalous trichromacy), and every model differs from every other
of its group by its marker (most also by their dash).
"""

from __future__ import annotations

import itertools
import math

import colorspacious
import numpy as np
import pytest

from charts import base
from core import lexicon, zoo

# ΔE00 ≈ 1 is a just-noticeable difference between large patches side by side (Sharma et al.
# 2005); thin lines and small markers need several times that. 8 keeps every pair drawn
# together clearly apart at a glance, and is what the palette reaches (the closest pair: the
# GRU and 8-layer CNN probes under deuteranopia, 8.4); marker and dash are cues besides.
MIN_DELTA_E = 8.0
CVD = (None, "protanomaly", "deuteranomaly", "tritanomaly")  # None: normal vision
# Models drawn in one chart, whose colours must tell them apart.
GROUPS = {
    # the slip chart (autoregressive) draws the language model beside them
    "translation": (*zoo.TRANSLATION_MODELS, "lm_gru"),
    "probes": zoo.PROBE_MODELS,
    "live": ("live_plain", "live_attention"),
}


def ciede2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference of two CIELab colours (Sharma, Wu & Dalal 2005)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dhp = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))
    l_bar, c_barp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + (360 if h1p + h2p < 360 else -360)) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    r_c = 2 * math.sqrt(c_barp**7 / (c_barp**7 + 25**7))
    r_t = -math.sin(math.radians(60 * math.exp(-(((h_bar - 275) / 25) ** 2)))) * r_c
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_barp, 1 + 0.015 * c_barp * t
    dl, dc, dh = (l2 - l1) / s_l, (c2p - c1p) / s_c, d_h / s_h
    return math.sqrt(dl**2 + dc**2 + dh**2 + r_t * dc * dh)


def seen(color: str, cvd: str | None) -> tuple[float, float, float]:
    """``color`` (#RRGGBB) in CIELab as seen with normal vision or the given deficiency."""
    rgb = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    if cvd:
        space = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100}
        rgb = np.clip(colorspacious.cspace_convert(rgb, space, "sRGB1"), 0, 1)
    return tuple(colorspacious.cspace_convert(rgb, "sRGB1", "CIELab"))


def too_close(colors: dict[str, str]) -> list[str]:
    out = []
    for (a, ca), (b, cb) in itertools.combinations(colors.items(), 2):
        for cvd in CVD:
            d = ciede2000(seen(ca, cvd), seen(cb, cvd))
            if d < MIN_DELTA_E:
                out.append(f"{a} {ca} / {b} {cb} ({cvd or 'normal vision'}): ΔE00 {d:.1f}")
    return out


def test_ciede2000_matches_the_published_test_data():
    """Pairs from Sharma et al.'s table of CIEDE2000 test data, to four decimals."""
    pairs = [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, -1.3802, -84.2814), (50, 0, -82.7485), 1.0000),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373),
        ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
    ]
    for lab1, lab2, want in pairs:
        assert ciede2000(lab1, lab2) == pytest.approx(want, abs=1e-4)


def test_the_simulation_merges_red_and_green():
    """The CVD simulation works: pure red and green, far apart for normal vision, come
    close for a deuteranope (so a palette that relied on them would fail above)."""
    normal = ciede2000(seen("#FF0000", None), seen("#00FF00", None))
    deutan = ciede2000(seen("#FF0000", "deuteranomaly"), seen("#00FF00", "deuteranomaly"))
    assert normal > 50 and deutan < normal / 2


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_models_drawn_together_stay_apart_for_every_colour_vision(group):
    colors = {m: lexicon.look(m).color for m in GROUPS[group]}
    assert too_close(colors) == []


@pytest.mark.parametrize("presenter", [False, True])
def test_a_highlighted_bar_stands_out_for_every_colour_vision(presenter):
    """``base.bar_chart``'s highlight colour against its normal bar colour."""
    palette = base.scale(presenter).palette
    assert too_close({"highlight": palette[1], "normal": palette[2]}) == []


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_models_drawn_together_differ_by_marker_and_dash(group):
    looks = {m: lexicon.look(m) for m in GROUPS[group]}
    markers = [lk.marker for lk in looks.values()]
    assert len(set(markers)) == len(markers), f"{group}: two models share a marker"
    for (a, la), (b, lb) in itertools.combinations(looks.items(), 2):
        assert (la.marker, la.dash) != (lb.marker, lb.dash), f"{a} and {b} look alike"
