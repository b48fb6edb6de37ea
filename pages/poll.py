"""The class poll (a room, not a lesson page): the room predicts, then the model answers
(``poll.page``)."""

import ui
from poll import page

ui.begin_page("poll")
page.show()
