"""The lesson as an offline handout: ``python -m lessons handout --out DIR``.

:mod:`lessons.handout.stops` reads each stop from its page run without a browser (the page's
words and the page's figure spec); :mod:`lessons.handout.render` draws the charts as SVG and
prints the PDF in Chromium; :mod:`lessons.handout.page` is the HTML template;
:mod:`lessons.handout.build` puts them together.
"""
