"""Presenter mode as a slide deck, on a laptop and on a phone, measured in Chromium.

- Projector, every part, both languages, 1280x800 and 1920x1080: the first chart >= 90 %
  on the first screen, chart text >= 16 px, titles off legends, heatmaps labelled at >= 16
  px, step controls on the first screen, no text cut, the page's title and language, no
  sideways scroll, no console error, at least ``MIN_CHARTS`` (screenshots: tests/artifacts/slides/).
- Laptop, every part, both languages: no chart or page text cut, no title under a legend.
- The deck on a phone (390x844, "Mobile" User-Agent): "next" from home reaches every part
  once (en), "previous" walks back (zh); each part's first chart within 1.5 screens, labels
  >= 11 px, nothing cut, plots >= 40 % of their chart, no sideways scroll, no console error.
- A first request to a page on a fresh server never shows the file-name navigation."""

from __future__ import annotations

import re
import time

import pytest

from core.i18n import translate
from tests.browser.conftest import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    PHONE_UA,
    copy_app,
    grown_margins,
    start_server,
    stop_server,
)
from tests.browser.first_screen import first_screen
from tests.browser.slides import measure, part_url, wait_ready
from ui.nav import PAGES, Stop, deck, is_built

pytestmark = pytest.mark.browser

IN_VIEW = 0.90  # share of the first chart's height on the first screen (projector)
MIN_FONT = 16  # px, every chart text on the projector
PHONE_SCREENS = 1.5  # the first chart starts within this many phone screens
MIN_HEAT_LABEL = 11  # px, heatmap tick labels on a phone
# px, every chart text on a phone as drawn (plotly shrank bottleneck's guesses over their
# ~45-px bars to 5-6 px before): the least a heatmap's words shrink to
MIN_PHONE_TEXT = 11
# a phone's plot area keeps at least this share of its chart's width (a legend right of the
# plot left the bottleneck's probe curves 3 of 358 px before legends moved above the plot)
MIN_PLOT_SHARE = 0.4
LARGE = {"width": 1920, "height": 1080}
SHOTS = ARTIFACTS / "slides"
# Charts a part draws at least (its evidence side by side); every other part with a chart
# is held to one by the in-view check.
MIN_CHARTS = {
    ("attention", "align"): 2,
    ("attention", "pairs"): 2,
    ("attention", "self"): 2,
    ("attention", "score"): 3,
}
_H1_JS = """() => {
  const h = document.querySelector('[data-testid="stMain"] h1');
  return h ? h.innerText.trim() : null;
}"""


_TEXT_PX = """() => ({
  h1: parseFloat(getComputedStyle(document.querySelector('[data-testid="stMain"] h1')).fontSize),
  p: parseFloat(getComputedStyle(document.querySelector(
       '[data-testid="stMain"] [data-testid="stMarkdownContainer"] p')).fontSize)})"""
# Streamlit's own frontend probes <page>/_stcore/health and host-config before connecting
# at / (see tests/browser/conftest.py): the only console errors tolerated.
_PROBE = re.compile(r"^http://127\.0\.0\.1:\d+/[\w-]+/_stcore/(health|host-config) ")


def _name(stop: Stop) -> str:
    return f"{stop.slug}/{stop.part}" if stop.part else stop.slug


def _collect_errors(page) -> list[str]:
    """Console errors and page errors of ``page`` from now on (Streamlit's probes aside:
    filter with ``_PROBE``)."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"{msg.location.get('url', '')} {msg.text}")
            if msg.type == "error"
            else None
        ),
    )
    return errors


def _page_problems(page, m, stop: Stop, lang: str, errors: list[str]) -> list[str]:
    """What every part must show whatever the screen: its page's title in ``lang``, the
    language in the URL, no sideways scroll, its charts, a clean console."""
    out = []
    title = translate(f"page.{stop.slug}.title", lang)
    if page.evaluate(_H1_JS) != title:
        out.append(f"{_name(stop)} [{lang}]: title {page.evaluate(_H1_JS)!r}, not {title!r}")
    if f"lang={lang}" not in page.url:
        out.append(f"{_name(stop)} [{lang}]: the URL lost the language ({page.url})")
    if m.doc_width > m.viewport_w + 1:
        out.append(f"{_name(stop)} [{lang}]: document {m.doc_width}px on {m.viewport_w}px")
    want = MIN_CHARTS.get((stop.slug, stop.part), 0)
    if m.charts < want:
        out.append(f"{_name(stop)} [{lang}]: {m.charts} charts drawn, {want} expected")
    out += [f"{_name(stop)} [{lang}]: console {e}" for e in errors if not _PROBE.match(e)]
    errors.clear()
    out += grown_margins(page, f"{_name(stop)} [{lang}]")  # each chart drawn once
    return out


def _projector_problems(m, stop: Stop, size: str, fonts: bool) -> list[str]:
    if not m.charts:
        return []  # a part without a chart has nothing to fit (home's map, say)
    out = []
    if m.in_view is None or m.in_view < IN_VIEW:
        out.append(
            f"{_name(stop)} @{size}: first chart {m.in_view or 0:.0%} in view "
            f"(top {m.first_top:.0f}px, height {m.first_height:.0f}px)"
        )
    if fonts and m.min_font is not None and m.min_font < MIN_FONT:
        out.append(f"{_name(stop)}: chart text {m.min_font}px ({m.min_font_text})")
    if m.overlaps:
        out.append(f"{_name(stop)} @{size}: title meets legend in charts {m.overlaps}")
    if m.heat_unlabelled:
        out.append(f"{_name(stop)} @{size}: heatmap rows/columns unlabelled {m.heat_unlabelled}")
    if m.min_heat_tick is not None and m.min_heat_tick < MIN_FONT:
        out.append(f"{_name(stop)} @{size}: heatmap labels {m.min_heat_tick}px")
    if m.control_bottom is not None and m.control_bottom > m.viewport_h:
        out.append(
            f"{_name(stop)} @{size}: its step control ({m.control_text!r}) ends at "
            f"{m.control_bottom:.0f}px, below the first screen"
        )
    return out + _cut_problems(m, f"{_name(stop)} @{size}")


def _cut_problems(m, where: str) -> list[str]:
    """Text cut at a chart's edge or by the box that holds it, a title under its legend."""
    out = []
    if m.cut:
        out.append(f"{where}: text cut at the chart's edge: {m.cut}")
    if m.clipped:
        out.append(f"{where}: text cut by its box: {m.clipped}")
    if m.crowded:
        out.append(f"{where}: words under a plot run into each other or a title: {m.crowded}")
    return out


# One test per page and language (the deck's pages in order): small units that the two
# test workers share evenly; each fails once, naming every failing part of its page.
DECK_PAGES = list(dict.fromkeys(stop.slug for stop in deck()))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", DECK_PAGES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_presenter_every_part_is_a_slide(server, browser, lang, slug):
    """Every part of the page in presenter mode, walked by the deck's "next" link, at 1280x800
    and 1920x1080: a slide (the projector's checks) whose first chart is whole on the first
    screen (Chinese at 1280x800, English at 1920x1080: tests/browser/first_screen.py)."""
    problems: list[str] = []
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN" if lang == "zh" else "en-US")
    context.set_default_timeout(180_000)
    page = context.new_page()
    errors = _collect_errors(page)
    try:
        stops = [stop for stop in deck() if stop.slug == slug]
        for i, stop in enumerate(stops):
            page.set_viewport_size(DESKTOP)
            if i == 0:  # the full lesson: every part of the page, one after the other
                page.goto(part_url(server.url("/"), stop.slug, stop.part, lang, True, "full"))
                wait_ready(page)
            else:  # the deck's own "next" link, as a teacher presents: no page reload
                _follow(page, _next_link(page, "next", lang), stops[:i])
                if _where(page) != stop:
                    problems.append(f"{_name(stops[i - 1])}: next went to {page.url}")
                    break
            shot = SHOTS / f"{lang}_{stop.slug}_{stop.part or 'page'}.png"
            m = measure(page, shot)
            problems += _projector_problems(m, stop, "1280x800", fonts=True)
            # the presenter stylesheet: a compact but large title, projector-size prose
            sizes = page.evaluate(_TEXT_PX)
            if sizes["h1"] < 30 or sizes["p"] < 22:
                problems.append(f"{_name(stop)}: presenter text too small {sizes}")
            problems += _page_problems(page, m, stop, lang, errors)
            if stop.part and lang == "zh":  # its first chart whole (tests/browser/first_screen.py)
                problems += first_screen(page, stop, lang)
            page.set_viewport_size(LARGE)
            page.wait_for_timeout(700)  # plotly redraws at the new width
            wait_ready(page)
            problems += _projector_problems(measure(page), stop, "1920x1080", fonts=False)
            if stop.part and lang == "en":
                problems += first_screen(page, stop, lang)
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", DECK_PAGES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_laptop_every_part_is_whole(server, browser, lang, slug):
    """Every part on a laptop (1280x800, presenter off): no chart text cut at the chart's
    edge, no page text cut by its box, no chart title under its legend."""
    problems: list[str] = []
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN" if lang == "zh" else "en-US")
    context.set_default_timeout(180_000)
    page = context.new_page()
    try:
        stops = [stop for stop in deck() if stop.slug == slug]
        for i, stop in enumerate(stops):
            if i == 0:  # the full lesson: every part of the page, one after the other
                page.goto(part_url(server.url("/"), stop.slug, stop.part, lang, False, "full"))
                wait_ready(page)
            else:
                _follow(page, _next_link(page, "next", lang), stops[:i])
            m = measure(page, SHOTS / f"laptop_{lang}_{stop.slug}_{stop.part or 'page'}.png")
            problems += _cut_problems(m, f"{_name(stop)} laptop [{lang}]")
            if m.overlaps:
                problems.append(f"{_name(stop)} laptop [{lang}]: title meets legend {m.overlaps}")
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


def _next_link(page, direction: str = "next", lang: str = "en"):
    key = "deck.next" if direction == "next" else "deck.prev"
    label = translate(key, lang, where="").strip().rstrip(":：").strip()
    return page.locator('[data-testid="stMain"] a', has_text=label)


def _where(page) -> Stop:
    url = page.url
    path = re.sub(r"^https?://[^/]+/", "", url).split("?")[0].strip("/")
    part = re.search(r"[?&]part=([\w-]+)", url)
    slug = path or "home"
    return Stop(slug, part.group(1) if part and slug != "home" else None)


def _follow(page, link, walked: list[Stop]) -> None:
    """Click a deck link and wait for its page (saying where the walk stopped if not)."""
    href, before = link.first.get_attribute("href"), page.url
    link.first.click()
    try:
        page.wait_for_function("u => location.href !== u", arg=before, timeout=180_000, polling=100)
    except Exception as exc:  # noqa: BLE001 (re-raised with the walk so far)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "deck_stuck.png"))
        raise AssertionError(f"stuck at {before} (link {href}) after {walked}") from exc
    wait_ready(page)


def _phone_problems(page, stop: Stop, lang: str, errors: list[str], first: bool) -> list[str]:
    """One stop of the walk on the phone (a screenshot of each page's first stop)."""
    shot = SHOTS / f"phone_{lang}_{stop.slug}_{stop.part or 'page'}.png" if first else None
    m = measure(page, shot)
    out = _page_problems(page, m, stop, lang, errors)
    if m.charts and m.first_top > PHONE_SCREENS * PHONE["height"]:
        out.append(f"{_name(stop)} [{lang}]: first chart starts at {m.first_top:.0f}px")
    if m.min_heat_label is not None and m.min_heat_label < MIN_HEAT_LABEL:
        out.append(f"{_name(stop)} [{lang}]: heatmap label {m.min_heat_label}px")
    if m.min_font is not None and m.min_font < MIN_PHONE_TEXT - 0.05:
        out.append(f"{_name(stop)} [{lang}]: chart text {m.min_font:.1f}px ({m.min_font_text})")
    if m.overlaps:
        out.append(f"{_name(stop)} [{lang}]: title meets legend in charts {m.overlaps}")
    out += _cut_problems(m, f"{_name(stop)} [{lang}]")
    squeezed = [f"#{i}: {w:.0%}" for i, w in enumerate(m.narrow) if w < MIN_PLOT_SHARE]
    if squeezed:
        out.append(f"{_name(stop)} [{lang}]: plot area of the chart's width {squeezed}")
    return out


@pytest.mark.long
@pytest.mark.timeout(1800)
def test_deck_walks_the_lesson_on_a_phone(server, browser):
    """Forward from home in English, then the same deck back from the arena in Chinese: the
    full lesson, every part."""
    expected = list(deck())
    problems: list[str] = []
    context = browser.new_context(viewport=PHONE, locale="en-US", user_agent=PHONE_UA)
    context.set_default_timeout(180_000)
    page = context.new_page()
    errors = _collect_errors(page)
    try:
        page.goto(server.url("/?lang=en&present=0&path=full"))
        wait_ready(page)
        seen = [_where(page)]
        for _ in range(len(expected) + 2):  # bounded: one step per stop, and a spare
            stop = seen[-1]
            first = len(seen) == 1 or seen[-2].slug != stop.slug
            problems += _phone_problems(page, stop, "en", errors, first)
            link = _next_link(page, "next")
            if link.count() == 0:
                break
            _follow(page, link, seen)
            seen.append(_where(page))
        assert seen == expected, f"forward walk: {seen}"
        # the last stop again, in Chinese (the deck links keep the language)
        last = seen[-1]
        page.goto(part_url(server.url("/"), last.slug, last.part, "zh", False, "full"))
        wait_ready(page)
        back = [_where(page)]
        for _ in range(len(expected) + 2):
            stop = back[-1]
            first = stop.part is None or stop == next(s for s in expected if s.slug == stop.slug)
            problems += _phone_problems(page, stop, "zh", errors, first)
            link = _next_link(page, "previous", "zh")
            if link.count() == 0:
                break
            _follow(page, link, back)
            back.append(_where(page))
        assert back == expected[::-1], f"backward walk: {back}"
    finally:
        context.close()
    assert problems == [], "\n".join(problems)


# The file-name navigation of Streamlit's legacy multipage mode: its own sidebar list, or
# a link to the entry script listed as a page.
_LEGACY_JS = """() => {
  if (document.querySelector('[data-testid="stSidebarNav"]')) return 'stSidebarNav';
  const links = [...document.querySelectorAll('[data-testid="stSidebar"] a')];
  const bad = links.find(a => /^(app|arena|attention|home|path_length)$/.test(a.innerText.trim()));
  return bad ? bad.innerText : null;
}"""


def test_first_request_never_shows_the_file_name_navigation(browser, tmp_path):
    """A fresh server, its first request a page link: DOM checked every 200 ms from the
    first paint until the app is ready, then once more."""
    app = copy_app(tmp_path)
    srv = start_server(app, tmp_path / "server.log")
    try:
        context = browser.new_context(viewport=DESKTOP, locale="zh-CN")
        page = context.new_page()
        try:
            page.goto(srv.url("/attention?lang=zh"), wait_until="commit")
            seen: list[str] = []
            deadline = time.monotonic() + 180
            checks = 0
            while time.monotonic() < deadline:  # bounded
                hit = page.evaluate(_LEGACY_JS)
                checks += 1
                if hit:
                    seen.append(hit)
                ready = page.evaluate(
                    """() => {
                      const a = document.querySelector('[data-testid="stApp"]');
                      return !!(a && a.getAttribute('data-test-script-state') === 'notRunning'
                        && document.querySelector('[data-testid="stMain"] h1'));
                    }"""
                )
                if ready and checks > 3:
                    break
                page.wait_for_timeout(200)
            wait_ready(page)
            seen += [h for h in [page.evaluate(_LEGACY_JS)] if h]
            assert seen == [], f"file-name navigation shown: {seen}"
            h1 = page.locator('[data-testid="stMain"] h1').first.inner_text().strip()
            assert h1 == translate("page.attention.title", "zh")
            # the app's own navigation instead: every page by its title, in Chinese
            links = page.locator('[data-testid="stSidebar"] a').all_inner_texts()
            titles = [
                translate(f"page.{s.slug}.title", "zh")
                for s in PAGES
                if s.listed and is_built(s.slug)
            ]
            assert [x.strip() for x in links if x.strip() in titles] == titles
        finally:
            context.close()
    finally:
        stop_server(srv)
