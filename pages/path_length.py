"""Path length (lesson 2.1, 2.4): how many steps the signal takes between two words.

One part at a time (``?part=``): ``table`` (Table 1 of Vaswani et al. 2017 against n),
``pair`` (two words, the path in each architecture), ``cicadas`` (the lesson's long
dependency in every translation model, by distance), ``probes`` (every distance probe,
measured), ``problems`` (the three problems and their remedies). Each part lives in
``lessons/path_length/<part>.py``.
"""

import ui
from lessons.path_length import cicadas, pair, probes, problems, table

ui.begin_page("path_length")
ui.show_part(
    "path_length",
    {
        "table": table.show,
        "pair": pair.show,
        "cicadas": cicadas.show,
        "probes": probes.show,
        "problems": problems.show,
    },
)
