"""The offline handout (``python -m lessons handout``): built for the class path in both
languages, each stop with its chart drawn from the page's own figure spec, nothing fetched
from a network, every image loaded in Chromium, one PDF page per stop; and the presenter's
sidebar that builds it in the background."""

from __future__ import annotations

import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from core.zoo import load_manifest
from lessons.handout import build, render, stops
from serve import handout as jobs
from tests.conftest import make_app, need
from tests.lessons import figure_oracle as oracle
from ui.nav import deck

LANGS = ("en", "zh")
# XML namespace names inside an SVG are identifiers, never fetched
NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")
URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s\"'<>)]+", re.I)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, build.Built]:
    """Both languages of the class path, built once (in a thread with no event loop: a
    worker that ran a browser test holds Playwright's loop in its main thread)."""
    out = tmp_path_factory.mktemp("handout")
    with ThreadPoolExecutor(1) as pool:
        got = pool.submit(build.build, out, LANGS, "class").result()
    return {b.lang: b for b in got}


def _sections(text: str) -> list[tuple[str, str]]:
    """(stop id, section html) of each stop, in order."""
    return re.findall(r'<section class="stop[^"]*" data-stop="([^"]+)">(.*?)</section>', text, re.S)


def _stop_id(stop) -> str:
    return f"{stop.slug}/{stop.part}" if stop.part else stop.slug


@pytest.mark.long
@pytest.mark.parametrize("lang", LANGS)
def test_every_stop_has_its_chart_in_order(built, lang):
    b = built[lang]
    text = b.html.read_text(encoding="utf-8")
    sections = _sections(text)
    assert [s for s, _ in sections] == [_stop_id(s) for s in deck("class")]
    for (stop_id, body), view in zip(sections, b.stops, strict=True):
        if view.part is None:  # the cover: a row for each model of the manifest
            assert body.count("<tr>") == 1 + len(load_manifest()["models"]), stop_id
            continue
        assert view.title and view.claim and view.takeaway, stop_id
        if view.chart is not None and view.chart.has_data():
            drawn = re.findall(r'<img class="chart[^"]*" src="data:image/(svg\+xml|png)', body)
            assert len(drawn) == 1 or not render.available(), stop_id
            assert "<caption>" in body, f"{stop_id}: no numbers behind its chart"
        else:  # a live race before its run: said, never drawn or invented
            assert view.slug == "live", stop_id
            assert "<img" not in body and "<table" not in body, stop_id


@pytest.mark.long
@pytest.mark.parametrize("lang", LANGS)
def test_no_network_reference(built, lang):
    b = built[lang]
    text = b.html.read_text(encoding="utf-8")
    assert URL.findall(text) == []
    for image in filter(None, b.images):
        inside = [u for u in URL.findall(image.svg()) if u not in NAMESPACES]
        assert inside == [], inside[:3]
    for attr in re.findall(r'\b(?:src|href)="([^"]*)"', text):
        assert attr.startswith(("data:", "#")), attr


@pytest.mark.long
def test_a_stop_image_is_drawn_from_the_page_figure_spec(built):
    """Each stop's chart is the page's own figure: its spec has the fingerprint the figure
    oracle recorded for that view of the page (tests/lessons/figures.json)."""
    want = json.loads(oracle.ORACLE.read_text(encoding="utf-8"))
    checked = 0
    for b in built.values():
        for view in b.stops:
            if view.chart is None:
                continue
            got = oracle.fingerprint(
                {"spec": json.loads(view.chart.spec), "config": view.chart.config}
            )
            assert oracle.same([got], want[view.chart.view][:1]), view.chart.view
            checked += 1
    assert checked >= 2 * (len(deck("class")) - 1)
    # and the image is that spec drawn: the chart's title is in its SVG
    view = next(v for v in built["zh"].stops if v.slug == "attention" and v.part == "self")
    image = built["zh"].images[built["zh"].stops.index(view)]
    title = view.chart.figure()["layout"]["title"]["text"]
    need("Chromium", image is not None, "apt-get install chromium")
    words = re.sub(r"<[^>]+>", "", title).split()[0]
    assert words in image.svg()


@pytest.mark.long
@pytest.mark.parametrize("lang", LANGS)
def test_opens_offline_in_chromium_with_every_image_loaded(built, lang):
    need(str(render.CHROMIUM), render.available(), "apt-get install chromium")
    b = built[lang]
    assert b.pages == len(deck("class")), "one PDF page per stop"

    def look() -> tuple[list, list]:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(render.CHROMIUM), args=render.CHROMIUM_ARGS
            )
            page = browser.new_page()
            asked: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            page.goto(b.html.resolve().as_uri(), wait_until="load")
            images = page.evaluate(
                "() => [...document.images].map(i => [i.complete, i.naturalWidth])"
            )
            browser.close()
            return asked, images

    with ThreadPoolExecutor(1) as pool:
        asked, images = pool.submit(look).result()
    assert [u for u in asked if not u.startswith(("file:", "data:"))] == []
    assert len(images) == sum(1 for i in b.images if i is not None) > 0
    assert all(done and width > 0 for done, width in images), images


@pytest.mark.long
def test_without_chromium_the_html_draws_its_charts_offline(built, tmp_path):
    """Built where no Chromium is installed (the stops already read), the HTML carries the
    app's plotly.js and drawing code and draws every chart when opened, still offline."""
    need(str(render.CHROMIUM), render.available(), "apt-get install chromium")
    views = {"zh": built["zh"].stops}
    (plain,) = build.write(tmp_path, views, "class", use_chromium=False)
    assert plain.pdf is None and not any(plain.images)
    charts = sum(1 for v in plain.stops if v.chart is not None and v.chart.has_data())

    def look() -> tuple[list, int, list]:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(render.CHROMIUM), args=render.CHROMIUM_ARGS
            )
            page = browser.new_page()
            asked: list[str] = []
            errors: list[str] = []
            page.on("request", lambda r: asked.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(plain.html.resolve().as_uri(), wait_until="load")
            page.wait_for_function(
                f"document.querySelectorAll('.chart-box .main-svg').length >= {charts}",
                timeout=60_000,
            )
            drawn = page.evaluate(
                "() => [...document.querySelectorAll('.chart-box')]"
                ".filter(b => b.querySelector('.main-svg')).length"
            )
            browser.close()
            return asked, drawn, errors

    with ThreadPoolExecutor(1) as pool:
        asked, drawn, errors = pool.submit(look).result()
    assert [u for u in asked if not u.startswith(("file:", "data:", "blob:"))] == []
    assert drawn == charts > 0 and errors == []


def test_a_stop_reads_the_page_words():
    view = stops.read(deck("class")[1], "zh")
    assert view.lead and view.takeaway and view.chart is not None
    assert re.search(r"[\u4e00-\u9fff]", view.takeaway)


FAKE = """import json, pathlib, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
out = pathlib.Path(args["--out"])
pathlib.Path(args["--progress"]).write_text(json.dumps({"done": 1, "total": 2, "what": ""}))
time.sleep(0.3)
if args["--lang"] == "zh":
    sys.exit("no luck")
(out / "h.html").write_text("<html></html>")
"""


def test_the_server_builds_in_the_background_and_keeps_it(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    builds = jobs.Builds(tmp_path / "cache", [sys.executable, str(script)])
    assert not builds.state("en", "class").ready
    builds.start("en", "class")
    builds.start("en", "class")  # one build at a time per language and path
    assert len(builds._running) == 1  # noqa: SLF001
    state = builds.state("en", "class")
    deadline = time.monotonic() + 20
    while state.building and time.monotonic() < deadline:
        assert state.total in (0, 2)
        time.sleep(0.1)
        state = builds.state("en", "class")
    assert state.ready and state.html is not None and state.html.read_text() == "<html></html>"
    assert jobs.Builds(tmp_path / "cache").state("en", "class").ready  # kept for the server
    builds.start("zh", "class")
    while builds.state("zh", "class").building and time.monotonic() < deadline:
        time.sleep(0.1)
    assert builds.state("zh", "class").error == "no luck"


@pytest.mark.parametrize("lang", LANGS)
def test_the_presenter_sidebar_offers_the_handout(lang, tmp_path, monkeypatch):
    from core.i18n import translate

    monkeypatch.setenv("ROAD_CACHE_DIR", str(tmp_path))
    label = translate("handout.button", lang)
    at = make_app(lang=lang, present="1")
    at.run()
    assert label in [b.label for b in at.sidebar.button]
    at = make_app(lang=lang, present="0")
    at.run()
    assert label not in [b.label for b in at.sidebar.button]
