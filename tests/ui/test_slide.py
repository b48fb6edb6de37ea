"""``ui.slide``: the places of a part, keyed for the stylesheet that holds what is under a
chart still to come (ui.style.HOLD). The keys are the same on every run and a line of code
that makes two slides in one run still works."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ui import style
from ui.slide import CHART_KEY, SLIDE_KEY, UNDER_KEY


def _page():
    import streamlit as st

    import ui

    for n in range(2):  # one line of code, two slides in one run
        s = ui.slide(f"lead {n}")
        with s.control:
            st.slider(f"control {n}", 0, 9, n, key=f"control{n}")
        with s.chart:
            st.markdown(f"chart {n}")
        with s.words:
            st.caption(f"words {n}")


def _keys(at: AppTest) -> list[str]:
    out = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        ident = getattr(proto, "id", "") if proto is not None else ""
        if ident and "road_" in ident:
            out.append(ident.rsplit("-", 1)[-1])
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)  # noqa: SLF001 - the whole element tree, blocks included
    return out


def test_a_slides_places_carry_the_keys_the_stylesheet_reads():
    at = AppTest.from_function(_page).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["lead 0", "chart 0", "lead 1", "chart 1"]
    keys = _keys(at)
    # the first slide of the line keyed (slide, its chart's place, what is under it), the
    # second one, whose keys are taken, plain
    assert [k.split("_")[1] for k in keys] == ["slide", "chart", "under"], keys
    assert len({k.rsplit("_", 1)[-1] for k in keys}) == 1  # one name for the three
    for prefix in (SLIDE_KEY, CHART_KEY, UNDER_KEY):
        assert f"st-key-{prefix}" in style.BASE_CSS
    # the same keys on the next run (a fragment's too: the name is the line of code's)
    at.slider(key="control1").set_value(5).run()
    assert not at.exception and _keys(at) == keys
