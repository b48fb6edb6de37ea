"""Train it yourself: two small encoder-decoders, with and without attention, trained from
scratch while the class watches, or (the "which race" choice) a self-attention encoder that
learns what "it" means. The part is ``lessons/live/race`` (the second race:
``lessons/live/it_race``)."""

from __future__ import annotations

import ui
from lessons.live import race

ui.begin_page("live")
ui.show_part("live", {"race": race.show})
