"""The face of the Streamlit-side helpers shared by ``app.py``, the lessons and the poll
(``core`` stays UI-free): it only hands names on, from

- ``ui.shell``: ``begin_page(slug)``, ``secondary()``;
- ``ui.i18n``: ``t(key, **fmt)``, ``current_lang()``, ``presenter()``, ``labeler(prefix)``,
  ``model_name(model)``;
- ``ui.slide``: the one part layout ``slide(lead)`` with ``takeaway``, ``try_this``,
  ``curious``, ``mixed`` and ``hold``;
- ``ui.draw``: ``chart(fig)``, ``on_a_phone()``; ``ui.gate``: ``fragment``;
- ``ui.parts``: ``part_selector``, ``show_part``, ``shown_before``, ``page_link``; and the
  deep-link helpers in
  ``ui.params``.
"""

from __future__ import annotations

from ui import params
from ui.draw import chart, on_a_phone
from ui.gate import fragment
from ui.i18n import current_lang, labeler, model_name, presenter, t
from ui.parts import page_link, part_selector, show_part, shown_before
from ui.shell import begin_page, secondary
from ui.slide import curious, hold, mixed, slide, takeaway, try_this

__all__ = [
    "begin_page",
    "chart",
    "current_lang",
    "curious",
    "fragment",
    "hold",
    "labeler",
    "mixed",
    "model_name",
    "on_a_phone",
    "page_link",
    "part_selector",
    "params",
    "presenter",
    "secondary",
    "show_part",
    "shown_before",
    "slide",
    "t",
    "takeaway",
    "try_this",
]
