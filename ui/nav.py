"""The page registry and the lesson map.

To add a page: write ``pages/<slug>.py`` (start it with ``ui.begin_page("<slug>")``), add
one ``PageSpec`` line to ``PAGES`` and the keys ``page.<slug>.title`` and
``page.<slug>.claim`` to both catalogues in ``assets/i18n/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageSpec:
    slug: str  # url path, file stem and i18n key stem: page.<slug>.title / .claim
    # The page's parts in lesson order (the ``part=`` values of its part selector; labels
    # ``<slug>.part.<name>``). Declared here, not in the page, so the deck (every part of
    # every page, in order) is known without running a page. Home has none.
    parts: tuple[str, ...] = ()
    # Listed pages are in the sidebar, the home map and the deck; an unlisted page (the
    # class poll's room) is reached only by its links.
    listed: bool = True

    @property
    def path(self) -> str:
        return f"pages/{self.slug}.py"


# The pages that exist, in navigation order. One line per page.
# (No page icons: Streamlit turns a page's material icon into a favicon fetched from the
# internet, which fails in an offline classroom and logs a console error.)
# Path length compares every architecture, so it comes after the CNN and RNN pages.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("home"),
    PageSpec("autoregressive", ("lm", "translate", "wrong", "cost")),
    PageSpec("bottleneck", ("latent", "read", "side", "length", "stretch", "probe")),
    PageSpec("compression", ("markov", "priors")),
    PageSpec("cnn_receptive_field", ("theory", "measured", "probes")),
    PageSpec("rnn_gradients", ("fade", "fresh", "trained", "learn", "words", "explode")),
    PageSpec("path_length", ("table", "pair", "cicadas", "probes", "problems")),
    PageSpec("attention", ("align", "pairs", "self", "score", "buys")),
    PageSpec("live", ("race",)),
    PageSpec("arena", ("sentence", "evidence")),
    PageSpec("poll", listed=False),
)


@dataclass(frozen=True)
class LessonStop:
    sections: str  # lesson section numbers, e.g. "1.2–1.3"
    slug: str  # the page that makes the claim


# The lesson, section by section, and the page that shows each claim (see DESIGN.md).
LESSON_MAP: tuple[LessonStop, ...] = (
    LessonStop("1.2–1.3", "autoregressive"),
    LessonStop("1.4–1.5", "bottleneck"),
    LessonStop("1.6", "compression"),
    LessonStop("2.1–2.2", "cnn_receptive_field"),
    LessonStop("2.3", "rnn_gradients"),
    LessonStop("2.1, 2.4", "path_length"),
    LessonStop("3.1–3.2", "attention"),
    LessonStop("1–3", "live"),
    LessonStop("1–3", "arena"),
)


def page_spec(slug: str) -> PageSpec | None:
    """The registered page with this slug, or ``None`` if it is not built yet."""
    return next((p for p in PAGES if p.slug == slug), None)


def is_built(slug: str) -> bool:
    """A lesson page is live when it is registered and its file exists."""
    spec = page_spec(slug)
    return spec is not None and (ROOT / spec.path).is_file()


def page_parts(slug: str) -> tuple[str, ...]:
    """The parts of the page ``slug`` in order (``()`` for home or an unknown page)."""
    spec = page_spec(slug)
    return spec.parts if spec is not None else ()


@dataclass(frozen=True)
class Stop:
    """One step of the deck: a page and one of its parts (``part`` is ``None`` for home)."""

    slug: str
    part: str | None


# Two ways through one deck. "class" (the default) walks the lesson's argument in its order,
# each claim once with the chart that proves it, each picture once; "full" is every part of
# every page. The presenter picks one in the sidebar (``path=`` in the link; the default is
# left out of links).
PATHS = ("class", "full")
DEFAULT_PATH = "class"
CLASS_PATH: tuple[Stop, ...] = (
    Stop("home", None),
    # 1.2-1.3 generation, one word at a time, and a slip that carries
    Stop("autoregressive", "lm"),
    Stop("autoregressive", "wrong"),
    # 1.4-1.5 a latent state; the encoder-decoder whose only bridge is C
    Stop("bottleneck", "latent"),
    Stop("bottleneck", "read"),
    Stop("bottleneck", "length"),
    # 1.6 compressing the past: n-gram tables explode
    Stop("compression", "markov"),
    # 2.1-2.2 a long dependency, measured on every translation model; a CNN's window grows
    # only with depth
    Stop("path_length", "cicadas"),
    Stop("cnn_receptive_field", "theory"),
    Stop("cnn_receptive_field", "measured"),
    # 2.3 an RNN's memory fades; its gradients shrink or grow with distance
    Stop("rnn_gradients", "fade"),
    Stop("rnn_gradients", "fresh"),
    # 3.1 attention: alignment, context, self-attention
    Stop("attention", "align"),
    Stop("attention", "pairs"),
    Stop("attention", "self"),
    # 2.4 the three problems side by side, and attention's answer to each: after
    # self-attention, which answers the third, has been taught
    Stop("path_length", "problems"),
    # 3.2 a score becomes a weight
    Stop("attention", "score"),
    # what it buys: the reach measured, a race, the same sentence through every model
    Stop("path_length", "probes"),
    Stop("live", "race"),
    Stop("arena", "sentence"),
)


def _full_deck() -> tuple[Stop, ...]:
    stops: list[Stop] = []
    for spec in PAGES:
        if not (spec.listed and is_built(spec.slug)):
            continue
        stops.extend([Stop(spec.slug, p) for p in spec.parts] or [Stop(spec.slug, None)])
    return tuple(stops)


def deck(path: str = "full") -> tuple[Stop, ...]:
    """The lesson as a slide deck. ``"full"``: home, then every part of every built page in
    the navigation order; ``"class"``: :data:`CLASS_PATH` (its built stops). "next ▸" walks
    it forward, "◂ previous" back."""
    full = _full_deck()
    if path == "full":
        return full
    if path != "class":
        raise ValueError(f"path must be one of {PATHS}, got {path!r}")
    return tuple(stop for stop in CLASS_PATH if stop in full)


def neighbours(
    slug: str, part: str | None, path: str = "full"
) -> tuple[Stop | None, Stop | None, int, int]:
    """``(previous, next, k, n)`` around the stop ``(slug, part)`` on ``path``: ``k`` is its
    1-based place in that deck and ``n`` the deck's length. A part the path passes over
    (``k == 0``) gets the path's stops on either side of it in the lesson's order, so every
    part can step back onto the path; a part that is no stop at all gets none."""
    stops = deck(path)
    here = Stop(slug, part if part in page_parts(slug) else None)
    if here in stops:
        i = stops.index(here)
        prev = stops[i - 1] if i > 0 else None
        nxt = stops[i + 1] if i + 1 < len(stops) else None
        return prev, nxt, i + 1, len(stops)
    full = deck("full")
    if here not in full:
        return None, None, 0, len(stops)
    order = {stop: i for i, stop in enumerate(full)}
    before = [s for s in stops if order[s] < order[here]]
    after = [s for s in stops if order[s] > order[here]]
    return (before[-1] if before else None), (after[0] if after else None), 0, len(stops)
