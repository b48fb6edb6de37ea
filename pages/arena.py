"""Model arena: the whole argument — the same sentence through every translation model.
Two parts, one on screen at a time (``?part=``), each a module of ``lessons/arena``:
"sentence" (every model on one sentence) and "evidence" (the held-out evidence behind the
verdict)."""

from __future__ import annotations

import ui
from lessons.arena import evidence, sentence

ui.begin_page("arena")
ui.show_part("arena", {"sentence": sentence.show, "evidence": evidence.show})
