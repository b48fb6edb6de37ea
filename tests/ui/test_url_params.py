"""Every registered page survives garbage in every URL parameter it reads.

The parameters are discovered from the page source (``ui.params.get_*("name"``,
``st.query_params...("name"``, and the page's own wrappers that take a parameter name),
so a page that adds a parameter is covered without editing this file. Pages that switch
between parts (``part``, ``input``, ``sent``...) are run once per part, with every other
parameter garbage, so the parameters read only inside a part are reached too.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, make_app
from ui.nav import PAGES

_PATTERNS = (
    re.compile(r'params\.get_\w+\(\s*"(\w+)"'),
    re.compile(r'query_params(?:\.get(?:_all)?\(|\[)\s*"(\w+)"'),
    # page wrappers whose first or second argument is a parameter name
    re.compile(r'\b(?:text_param|stepper)\(\s*"(\w+)"'),
    re.compile(r'\bsentence_picker\([^()\n]*,\s*"(\w+)"\)'),
    re.compile(r'sentence_input\([^)]*param="(\w+)"', re.S),
    re.compile(r'\bparam: str = "(\w+)"'),  # a helper's default parameter name
)
SHELL_PARAMS = ("lang", "present")


# Parameters that choose which part of a page runs: every value is visited once (a
# parameter read only inside one part is visited inside that part).
def each(param: str, values: tuple[str, ...], **fixed: str) -> list[dict[str, str]]:
    return [{param: value, **fixed} for value in values]


# Every page's parts come from the registry (ui.nav.PAGES), plus the parameters that switch
# a part between modes.
PART_CONTEXTS: dict[str, list[dict[str, str]]] = {
    spec.slug: each("part", spec.parts) for spec in PAGES if spec.parts
}
PART_CONTEXTS["path_length"] += each("sent", ("zh", "own"), part="pair")
PART_CONTEXTS["cnn_receptive_field"] += [
    c for p in ("theory", "measured") for c in each("sent", ("zh", "own"), part=p)
]
PART_CONTEXTS["arena"] += each("input", ("lesson", "typed"), part="sentence")


# The parts with a text box in the main area (the hostile browser test types into each of
# them; test_page_survives_garbage_params keeps this list true).
TYPED_CONTEXTS: list[tuple[str, dict[str, str]]] = [
    ("arena", {"input": "typed", "part": "sentence"}),
    ("attention", {"part": "align"}),
    ("attention", {"part": "buys"}),
    ("attention", {"part": "score"}),
    ("attention", {"part": "self"}),
    ("autoregressive", {"part": "lm"}),
    ("autoregressive", {"part": "translate"}),
    ("autoregressive", {"part": "wrong"}),
    ("bottleneck", {"part": "read"}),
    ("bottleneck", {"part": "side"}),
    ("cnn_receptive_field", {"sent": "own", "part": "measured"}),
    ("cnn_receptive_field", {"sent": "own", "part": "theory"}),
    ("compression", {"part": "markov"}),
    ("path_length", {"sent": "own", "part": "pair"}),
    ("poll", {}),
    ("rnn_gradients", {"part": "words"}),
]


# Garbage a student can paste: markup, numbers out of range or not numbers, empties,
# control and bidi characters, huge values, another script.
GARBAGE: dict[str, tuple[str, ...]] = {
    "html": ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"),
    "mixed": (
        "-1",
        "",
        "nan",
        " ",
        "1e999",
        "😀" * 50,
        "99999999999999999999999",
        "\u202eevil",
        "0x10",
        "a" * 3000,
        "-0",
        "%00\x00",
        "1.5",
        "汉字",
        "inf",
        "`**x**`",
    ),
}


def page_params(slug: str) -> list[str]:
    """The URL parameters a page reads, found in its source."""
    # the page and the modules that are its own parts (lessons/<slug>/, a feature's page:
    # poll/page.py)
    files = [
        ROOT / "pages" / f"{slug}.py",
        *sorted((ROOT / "lessons" / slug).glob("*.py")),
        *sorted((ROOT / slug).glob("page.py")),
    ]
    src = "\n".join(f.read_text(encoding="utf-8") for f in files)
    names = {m for pat in _PATTERNS for m in pat.findall(src)}
    return sorted(names)


def garbage_for(profile: str, names: list[str]) -> dict[str, str]:
    values = GARBAGE[profile]
    return {name: values[i % len(values)] for i, name in enumerate(names)}


def test_parameters_are_discovered():
    found = {p.slug: page_params(p.slug) for p in PAGES}
    assert "s" in found.get("attention", ["s"]) and "q" in found.get("attention", ["q"])
    assert found["poll"] == ["ask", "room"]  # the poll room reads exactly these two
    # live reads only the room whose race it shows (the poll room's links carry it)
    assert found["live"] == ["room"]
    for slug, names in found.items():
        if slug not in ("home", "poll", "live"):
            assert len(names) >= 3, f"{slug}: only {names} found; extend _PATTERNS"


def cases() -> list[tuple[str, str, dict[str, str]]]:
    out = []
    for spec in PAGES:
        names = page_params(spec.slug)
        contexts = PART_CONTEXTS.get(spec.slug, [{}])
        for ctx in contexts:
            for profile in GARBAGE:
                params = garbage_for(profile, [n for n in names if n not in ctx])
                params.update(ctx)
                label = ",".join(f"{k}={v}" for k, v in ctx.items()) or "-"
                out.append((spec.slug, f"{label}/{profile}", params))
    return out


CASES = cases()


@pytest.mark.timeout(900)  # a cold cache (n-gram counts, probes) on a busy 2-core machine
@pytest.mark.parametrize(("slug", "case", "params"), CASES, ids=[f"{s}:{c}" for s, c, _ in CASES])
def test_page_survives_garbage_params(slug, case, params):
    # the shell's own parameters get garbage too (they are not page parameters)
    params = {"lang": "<b>zh</b>", "present": "2", **params}
    at = make_app(f"pages/{slug}.py", **params)
    at.run(timeout=240)
    assert not at.exception, f"{slug} {case}: {[e.value for e in at.exception]}"
    assert at.main.title, f"{slug} {case}: the page did not render its title"
    shown = "\n".join(str(el.value) for kind in ("markdown", "caption") for el in getattr(at, kind))
    assert "Traceback" not in shown
    # markup from the URL never reaches an element the browser renders as HTML (markdown
    # with unsafe_allow_html, st.html); the browser test (tests/browser/test_hostile.py)
    # proves the rest in Chromium on every part with a text box and one part per page
    as_html = [
        str(el.value)
        for kind in ("markdown", "caption")
        for el in getattr(at, kind)
        if el.proto.allow_html
    ] + [str(el.proto.body) for el in at.get("html")]
    for markup in GARBAGE["html"]:
        assert not any(markup in body for body in as_html), f"{slug} {case}: {markup} as HTML"
    boxes = len(at.main.text_input) + len(at.main.text_area)
    ctx = max((c for c in PART_CONTEXTS.get(slug, [{}]) if c.items() <= params.items()), key=len)
    typed = any(slug == s and ctx == c for s, c in TYPED_CONTEXTS)
    assert bool(boxes) == typed, (
        f"{slug} {ctx}: {boxes} text boxes; update TYPED_CONTEXTS in tests/ui/test_url_params.py"
    )
    # every value left in the address bar is a clean one: the page rewrote the bad ones
    # or they are its own free text (shown only as literal text)
    assert at.query_params.get("present") in ("0", "1", ["0"], ["1"])


def test_share_dialog_survives_a_link_too_long_for_a_qr_code(no_manifest):
    at = make_app(lang="en", present="0", zzz="秋" * 300)
    at.context = {"url": "http://192.168.1.20:8501/"}
    at.run()
    at.sidebar.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
