"""The deploy's icon font: a subset of Streamlit's Material Symbols holding the icons the app
and Streamlit name (deploy/material-icons.txt, kept equal to the code here), every one of
them still drawn, and the mirror serving it under the font's own hashed name."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from deploy import precompress as pc

ROOT = Path(__file__).resolve().parents[2]
LIST = ROOT / "deploy" / "material-icons.txt"


def _font_path() -> Path:
    fonts = [
        p
        for p in pc.streamlit_static().rglob("*.woff2")
        if pc.ICON_FONT.match(p.relative_to(pc.streamlit_static()).as_posix())
    ]
    assert len(fonts) == 1, fonts  # Streamlit ships one icon font, under a hashed name
    return fonts[0]


@pytest.fixture(scope="module")
def fonts() -> tuple[TTFont, TTFont, bytes]:
    full = _font_path().read_bytes()
    small = pc.subset_icon_font(full, pc.read_list(LIST))
    return TTFont(io.BytesIO(full)), TTFont(io.BytesIO(small)), small


def test_the_list_is_every_icon_the_code_names():
    listed, used = pc.read_list(LIST), pc.used_icons(ROOT)
    assert listed == used, (
        f"not listed: {sorted(used - listed)}; no longer used: {sorted(listed - used)}. "
        "Run: python deploy/precompress.py --list-icons . > deploy/material-icons.txt"
    )
    # the app's own, its catalogues' and Streamlit's chrome are all in it
    for name in ("how_to_vote", "hourglass_top", "keyboard_double_arrow_right", "check"):
        assert name in listed, name


def test_the_subset_draws_every_listed_icon_and_no_other(fonts):
    full, small, data = fonts
    listed = pc.read_list(LIST)
    drawn = {name: pc.ligature(full, name) for name in listed}
    known = {name for name, glyph in drawn.items() if glyph}
    assert len(known) >= 0.9 * len(listed)  # a few names are aliases Streamlit maps itself
    glyf_full, glyf_small = full["glyf"], small["glyf"]
    for name in known:
        glyph = pc.ligature(small, name)
        assert glyph is not None, f"{name} is no longer drawn"
        # the very outline the full font draws
        a, b = glyf_full[drawn[name]], glyf_small[glyph]
        a.expand(glyf_full), b.expand(glyf_small)
        assert a.numberOfContours > 0 and a.numberOfContours == b.numberOfContours, name
        assert list(a.coordinates) == list(b.coordinates), name
    other = [n for n in ("rocket_launch", "pets", "sailing") if n not in listed]
    assert other and all(pc.ligature(full, n) for n in other)
    assert not any(pc.ligature(small, n) for n in other)  # cut
    assert len(data) < 0.1 * _font_path().stat().st_size


def test_the_mirror_serves_the_subset_under_the_fonts_name(tmp_path):
    src = tmp_path / "src"
    rel = _font_path().relative_to(pc.streamlit_static())
    (src / rel).parent.mkdir(parents=True)
    shutil.copy2(_font_path(), src / rel)
    (src / "js").mkdir()
    (src / "js" / "main.AbCdEf12.js").write_text("x" * 4000)
    icons = tmp_path / "icons.txt"
    icons.write_text("# two icons\ncheck\nhome\n")
    cmd = [sys.executable, str(ROOT / "deploy" / "precompress.py"), str(tmp_path / "m")]
    cmd += ["--src", str(src), "--jobs", "1", "--icons", str(icons)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    summary = json.loads(run.stderr.strip().splitlines()[-1])
    served = tmp_path / "m" / "static" / rel
    assert summary["icon_font"] == {
        "font": rel.as_posix(),
        "full": _font_path().stat().st_size,
        "subset": served.stat().st_size,
    }
    font = TTFont(served)
    assert pc.ligature(font, "check") and pc.ligature(font, "home")
    assert not pc.ligature(font, "settings")
    # another list is another mirror (the STAMP names the list)
    icons.write_text("check\n")
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    assert not json.loads(again.stderr.strip().splitlines()[-1])["cached"]
    assert not pc.ligature(TTFont(served), "home")
    # without --icons, the font is Streamlit's own
    subprocess.run(cmd[:-2], capture_output=True, timeout=300, check=True)
    assert served.read_bytes() == _font_path().read_bytes()
