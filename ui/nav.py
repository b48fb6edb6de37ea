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

    @property
    def path(self) -> str:
        return f"pages/{self.slug}.py"


# The pages that exist, in navigation order. One line per page.
# (No page icons: Streamlit turns a page's material icon into a favicon fetched from the
# internet, which fails in an offline classroom and logs a console error.)
PAGES: tuple[PageSpec, ...] = (
    PageSpec("home"),
    PageSpec("autoregressive"),
    PageSpec("bottleneck"),
    PageSpec("path_length"),
    PageSpec("cnn_receptive_field"),
    PageSpec("rnn_gradients"),
    PageSpec("attention"),
    PageSpec("arena"),
)


@dataclass(frozen=True)
class LessonStop:
    sections: str  # lesson section numbers, e.g. "1.2–1.3"
    slug: str  # the page that makes the claim


# The lesson, section by section, and the page that shows each claim (see DESIGN.md).
LESSON_MAP: tuple[LessonStop, ...] = (
    LessonStop("1.2–1.3", "autoregressive"),
    LessonStop("1.4–1.6", "bottleneck"),
    LessonStop("2.1, 2.4", "path_length"),
    LessonStop("2.2", "cnn_receptive_field"),
    LessonStop("2.3", "rnn_gradients"),
    LessonStop("3.1–3.2", "attention"),
    LessonStop("1–3", "arena"),
)


def page_spec(slug: str) -> PageSpec | None:
    """The registered page with this slug, or ``None`` if it is not built yet."""
    return next((p for p in PAGES if p.slug == slug), None)


def is_built(slug: str) -> bool:
    """A lesson page is live when it is registered and its file exists."""
    spec = page_spec(slug)
    return spec is not None and (ROOT / spec.path).is_file()
