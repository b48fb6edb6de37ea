"""The clicker's script, the links it clicks and the focus ring, without a browser (the keys
themselves: tests/browser/test_clicker.py)."""

from __future__ import annotations

import base64
import hashlib
import re
import tomllib

import pytest

from tests.conftest import ROOT, make_app
from ui import clicker, style
from ui.nav import Stop, deck

# the one CSP that ships: nginx's, in front of the app in the image and in each Kubernetes pod
# (the edge adds no headers)
CSP_FILES = (ROOT / "deploy" / "nginx" / "headers.conf",)


def _script_src(path) -> list[str]:
    text = path.read_text()
    csp = re.search(r"Content-Security-Policy:? \"([^\"]+)\"", text).group(1)
    return next(d for d in csp.split(";") if d.strip().startswith("script-src")).split()


def test_the_shipped_csp_allows_the_clicker_by_its_hash():
    digest = base64.b64encode(hashlib.sha256(clicker.CLICKER_JS.encode()).digest()).decode()
    assert digest == clicker.CLICKER_JS_HASH
    for path in CSP_FILES:
        assert f"'sha256-{digest}'" in _script_src(path), f"{path.name}: update the clicker's hash"


def test_the_script_survives_the_sanitizer_and_spells_the_key_table():
    # DOMPurify drops a script with "<" before a letter, a digit or "/"
    assert not re.search(r"<[/\w]", clicker.CLICKER_JS)
    table = re.search(r"const K=\{(.*?)\};", clicker.CLICKER_JS).group(1)
    keys = dict(re.findall(r"('[^']+'|\w+):'(\w+)'", table))
    assert {k.strip("'"): v for k, v in keys.items()} == clicker.KEYS
    assert set(clicker.KEYS.values()) == set(clicker.LINKS)
    for go, key in clicker.LINKS.items():
        assert key == f"deck_{go}"  # the script looks for .st-key-deck_<where> a


def _links(at) -> dict[str, tuple[str, str]]:
    """The page links in the main area by the key of the container they sit in."""
    from streamlit.testing.v1.element_tree import Block

    out: dict[str, tuple[str, str]] = {}

    def walk(node, where: str | None) -> None:
        if isinstance(node, Block):
            pid = getattr(node.proto, "id", "") if node.proto is not None else ""
            key = next((k for k in clicker.LINKS.values() if pid.endswith("-" + k)), None)
            for child in node.children.values():
                walk(child, key or where)
        elif node.type == "page_link" and where:
            out[where] = (node.proto.page, node.proto.query_string)

    walk(at.main, None)
    return out


def _target(stop: Stop, path: str = "class") -> tuple[str, str]:
    page = "" if stop.slug == "home" else stop.slug
    keep = "lang=en&present=1" + ("&path=full" if path == "full" else "")
    return page, keep + (f"&part={stop.part}" if stop.part else "")


@pytest.mark.parametrize(
    ("path", "i"),
    [("class", 1), ("class", len(deck("class")) - 1), ("full", 1), ("full", len(deck()) - 1)],
    ids=["class-second", "class-last", "full-second", "full-last"],
)
def test_presenter_mode_has_the_clickers_links_to_the_neighbours_and_the_ends(path, i):
    stops = deck(path)
    here = stops[i]
    at = make_app(f"pages/{here.slug}.py", lang="en", present="1", part=here.part or "", path=path)
    at.run(timeout=300)
    assert not at.exception
    want = {"deck_prev": _target(stops[i - 1], path), "deck_first": _target(stops[0], path)}
    if i + 1 < len(stops):
        want |= {"deck_next": _target(stops[i + 1], path), "deck_last": _target(stops[-1], path)}
    assert _links(at) == want  # the last stop has no "next" and no link to itself
    assert sum("data-road-clicker" in h.proto.body for h in at.get("html")) == 1


def test_without_presenter_mode_no_marker_and_no_jump_links():
    stops = deck()
    at = make_app(f"pages/{stops[1].slug}.py", lang="en", present="0", part=stops[1].part)
    at.run(timeout=300)
    assert set(_links(at)) == {"deck_prev", "deck_next"}
    assert not any("data-road-clicker" in h.proto.body for h in at.get("html"))


def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_focus_ring_is_thick_and_stands_out_on_every_background():
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
    # Streamlit's light theme unless the config sets its own
    grounds = [
        theme.get("backgroundColor", "#ffffff"),
        theme.get("secondaryBackgroundColor", "#f0f2f6"),
    ]
    for ground in grounds:
        assert _contrast(style.FOCUS, ground) >= 3.0, ground
    widths = [int(w) for w in re.findall(r"outline: (\d+)px solid", style.BASE_CSS)]
    assert widths and min(widths) >= 2
