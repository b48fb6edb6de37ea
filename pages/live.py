"""Train it yourself: two small encoder-decoders, with and without attention, trained from
scratch while the class watches. The part is ``lessons/live/race``."""

from __future__ import annotations

import ui
from lessons.live import race

ui.begin_page("live")
ui.show_part("live", {"race": race.show})
