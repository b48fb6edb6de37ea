"""Build the handout: every stop of a path, in one language, as one HTML file and a PDF.

``python -m lessons handout --out DIR [--lang en|zh|all] [--path class|full]`` (see
``lessons/__main__.py``) calls :func:`build`. Per stop: the page's title and claim, the
part's sentence, its chart as an image drawn from the page's own figure spec, the new words,
the takeaway, the numbers behind the chart and the words under it; the first stop (home) is
the cover, with the models' names and training facts from the manifest (the home page's own
tables), the date and the app's version. Each stop is one A4 page of the PDF.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import html
import os
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from charts import describe
from core.i18n import LANGS
from lessons.handout import page, render, stops
from serve import warmup
from ui.nav import ROOT, deck

Progress = Callable[[int, int, str], None]  # (done, total, what is being done)
# A stop keeps the words under its chart that fit its printed A4 page: the last paragraphs
# that would push it past are dropped (the page has them; the stop then says so). The
# result per stop: paragraphs dropped, or -1 when it does not fit even without them.
_FIT = """() => {
  const cut = [];
  const over = (stop) => stop.scrollHeight > stop.clientHeight + 1;
  for (const stop of document.querySelectorAll("section.stop")) {
    const words = [...stop.querySelectorAll(".word")];
    let n = 0;
    const note = stop.querySelector(".cut");
    if (note && over(stop) && words.length) note.hidden = false;
    while (over(stop) && words.length) {
      words.pop().remove();
      n += 1;
    }
    cut.push(over(stop) ? -1 : n);
  }
  return cut;
}"""


@dataclass(frozen=True)
class Built:
    """One language's handout: its files and what went into them."""

    lang: str
    path: str
    html: Path
    pdf: Path | None
    pages: int | None  # the PDF's pages (one per stop)
    stops: list[stops.StopView]
    images: list[render.Image | None]  # per stop, its chart drawn, or None
    seconds: float


def version() -> str:
    """The app's version (pyproject.toml)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["project"]["version"])


def file_name(lang: str, path: str) -> str:
    return f"road-to-attention-{path}-{lang}"


@contextlib.contextmanager
def _quiet_process() -> Iterator[None]:
    """While the stops are read: the pages on a throwaway poll store (a handout shows each
    page's default view, never a class's poll or race, and starts nothing: a queued race
    stays queued), and without the server's warm-up (the pages' first run starts it: here
    it would only take a core from the build for a minute)."""
    kept = {k: os.environ.get(k) for k in ("ROAD_DATA_DIR", "ROAD_DATABASE_URL")}
    folder = tempfile.TemporaryDirectory(prefix="road-handout-", ignore_cleanup_errors=True)
    os.environ["ROAD_DATA_DIR"] = folder.name
    os.environ.pop("ROAD_DATABASE_URL", None)
    warmup.start(modules=())  # the process's one warm-up, with nothing to do
    try:
        yield
    finally:
        folder.cleanup()
        for key, value in kept.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _section(
    view: stops.StopView, image: render.Image | None, k: int, n: int, label: page.Labels, foot: str
) -> str:
    e = html.escape
    where = (
        f'<div class="where"><span>{e(view.title)}</span>'
        f"<span>{e(label('handout.stop', k=k, n=n))}</span></div>"
    )
    body = [where, f"<h2>{e(view.part_label or view.title)}</h2>"]
    body.append(f'<p class="claim">{page.inline(view.claim)}</p>')
    if view.lead:
        body.append(page.block(view.lead, "lead"))
    tall = image is not None and image.height >= page.TALL * image.width
    if image is not None:
        spec = view.chart.figure() if view.chart else {}
        alt = describe.describe(spec, view.lang)
        cls = "chart tall" if tall else "chart"
        body.append(f'<img class="{cls}" src="{image.url}" alt="{e(alt)}">')
    elif view.chart is not None and view.chart.has_data():
        # no Chromium to draw it: the page's own drawing code draws it when the file opens
        data = render.payload_json(view.chart.spec, view.chart.config)
        body.append(f'<div class="chart-box" data-chart="{e(data)}"></div>')
    elif view.chart is not None:
        body.append(f'<p class="note">{e(label("handout.no_picture"))}</p>')
    if view.glosses:
        body.append(page.block(view.glosses, "glosses"))
    if view.takeaway:
        body.append(f'<div class="takeaway">{page.block(view.takeaway)}</div>')
    if view.chart is not None and view.chart.has_data():
        body.append(f"<h3>{e(label('handout.numbers'))}</h3>")
        rows = page.TALL_ROWS if tall else page.MAX_ROWS
        body.append(page.numbers(view.chart.tables(view.lang), label, rows))
    # a chart drawn only during a run: the words under it speak of that run ("the answer
    # shows here when training ends"), which a handout does not have
    drawn_live = view.chart is not None and not view.chart.has_data()
    body += [page.block(w, "word") for w in ([] if drawn_live else view.words)]
    body.append(f'<p class="note cut" hidden>{e(label("handout.cut"))}</p>')
    body.append(f"<footer>{e(foot)}</footer>")
    stop_id = f"{view.slug}/{view.part}" if view.part else view.slug
    return f'<section class="stop" data-stop="{e(stop_id)}">{"".join(body)}</section>'


def _cover(view: stops.StopView, n: int, label: page.Labels, path: str, foot: str) -> str:
    e = html.escape
    texts = view.texts
    intro = texts[0] if texts else ""
    tables = [x for x in texts if x.lstrip().startswith("|")]
    models = (
        page.joined_tables(*tables[:2]) if len(tables) >= 2 else "".join(map(page.block, tables))
    )
    kind = label("handout.kind", path=label(f"handout.path.{path}"))
    body = [
        f'<div class="where"><span>{e(kind)}</span>'
        f"<span>{e(label('handout.stop', k=1, n=n))}</span></div>",
        f"<h1>{e(view.title)}</h1>",
        f'<p class="claim">{page.inline(view.claim)}</p>',
        page.block(intro, "lead"),
        f'<p class="note">{e(label("handout.about", n=n))}</p>',
        f"<h3>{e(label('handout.models'))}</h3>",
        models,
        f'<p class="word">{e(label("handout.models_note"))}</p>',
        f"<footer>{e(foot)}</footer>",
    ]
    return f'<section class="stop cover" data-stop="home">{"".join(body)}</section>'


def _draw_script() -> str:
    """For a handout built without Chromium: the app's plotly.js and drawing code inline, and
    a few lines that draw every chart box when the file opens (still no network)."""
    code = render.chart_code().replace("</script", "<\\/script")
    draw = (
        "document.querySelectorAll('.chart-box').forEach(function (box) {"
        "var p = JSON.parse(box.dataset.chart);"
        "box.innerHTML = '<div class=\"stPlotlyChart\"></div>';"
        "window.RoadChart.draw(box, JSON.stringify({alt: '', spec: p.spec, config: p.config}));"
        "});"
    )
    on_load = f"<script>addEventListener('load', function () {{{draw}}});</script>"
    return f"<script>{code}</script>{on_load}"


def build(
    out: Path,
    langs: Sequence[str] = LANGS,
    path: str = "class",
    progress: Progress | None = None,
    use_chromium: bool | None = None,
) -> list[Built]:
    """The handout of ``path`` in each of ``langs``, written into ``out``; ``use_chromium``:
    draw the charts as images and print a PDF (default: where Chromium is installed)."""
    started = time.monotonic()
    the_deck = deck(path)
    total = len(langs) * (len(the_deck) + 1)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, what)

    views: dict[str, list[stops.StopView]] = {lang: [] for lang in langs}
    with _quiet_process():
        for lang in langs:
            for stop in the_deck:
                views[lang].append(stops.read(stop, lang))
                step(f"{lang}:{stop.slug}/{stop.part or ''}")
    built = write(out, views, path, use_chromium, lambda lang: step(f"{lang}:files"))
    spent = time.monotonic() - started
    return [dataclasses.replace(b, seconds=spent) for b in built]


def write(
    out: Path,
    views: dict[str, list[stops.StopView]],
    path: str,
    use_chromium: bool | None = None,
    done: Callable[[str], None] | None = None,
) -> list[Built]:
    """The handout's files of the stops already read (``views``: per language, the path's
    stops in order), into ``out``; ``done(lang)`` after each language."""
    out.mkdir(parents=True, exist_ok=True)
    chromium = render.available() if use_chromium is None else use_chromium
    today = dt.datetime.now(dt.UTC).date().isoformat()
    results: list[Built] = []
    with render.browser() if chromium else contextlib.nullcontext() as context:
        painter = render.Painter(context) if context is not None else None
        for lang, shown in views.items():
            images = [
                painter.svg(v.chart.spec, v.chart.config)
                if painter is not None and v.chart is not None and v.chart.has_data()
                else None
                for v in shown
            ]
            results.append(_write(out, lang, path, shown, images, today, context))
            if done is not None:
                done(lang)
    return results


def _write(
    out: Path,
    lang: str,
    path: str,
    views: list[stops.StopView],
    images: list[render.Image | None],
    today: str,
    context,
) -> Built:
    label = page.Labels(lang)
    n = len(views)
    foot = label("handout.footer", app=label("app.title"), version=version(), date=today)
    sections = [
        _cover(v, n, label, path, foot)
        if v.part is None
        else _section(v, images[k], k + 1, n, label, foot)
        for k, v in enumerate(views)
    ]
    title = f"{label('app.title')} · {label('handout.title')}"
    extra = "" if context is not None else _draw_script()
    document = page.document(lang, title, sections, extra)
    target = out / f"{file_name(lang, path)}.html"
    target.write_text(document, encoding="utf-8")
    pdf, pages = None, None
    if context is not None:
        fitted = _fit(context, target)
        target.write_text(fitted, encoding="utf-8")
        pdf = target.with_suffix(".pdf")
        pages = render.pdf(context, target, pdf)
    return Built(lang, path, target, pdf, pages, views, images, 0.0)


def _fit(context, target: Path) -> str:
    """The handout with each stop's trailing words paragraphs dropped until the stop fits
    its printed A4 page (the page keeps them all); raises if a stop cannot fit."""
    tab = context.new_page()
    tab.goto(target.resolve().as_uri(), wait_until="load")
    tab.emulate_media(media="print")
    cut = tab.evaluate(_FIT)
    if -1 in cut:
        stop = cut.index(-1) + 1
        raise RuntimeError(f"stop {stop} of {target.name} does not fit one A4 page")
    text = tab.content()
    tab.close()
    return text
