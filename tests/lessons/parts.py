"""What every lesson page's parts promise, checked the same way on each page."""

from __future__ import annotations

from tests.conftest import make_app


def chart_keys(at, charts: dict[str, list[str]]) -> list[str]:
    """The keys of the charts shown, in page order (an element's id ends with its key)."""
    ids = [el.proto.id for el in at.get("plotly_chart")]
    return [key for i in ids for keys in charts.values() for key in keys if key in i]


def runs_alone(page: str, selector: str, part: str, lang: str, charts: dict[str, list[str]]):
    """Open ``part`` of ``page`` by link: it runs without exception, the part selector
    (``selector``) and the URL show it, it draws its own charts (``charts[part]``) and no
    other, and one takeaway closes it. Returns the AppTest for more checks."""
    at = make_app(page, lang=lang, part=part).run(timeout=120)
    assert not at.exception, [e.value for e in at.exception]
    assert at.segmented_control(key=selector).value == part
    assert at.query_params["part"] == part
    assert chart_keys(at, charts) == charts[part]
    assert len(at.get("plotly_chart")) == len(charts[part])
    assert len(at.success) == 1  # the takeaway (and "try this") close every part
    return at
