"""ui.cache.data: each decorated function has its own cache, keyed on its arguments and on
the shipped models' checksums."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script() -> None:
    import streamlit as st

    from ui import cache

    calls = st.session_state.setdefault("calls", [])

    @cache.data(max_entries=4)
    def square(x):
        calls.append(("square", x))
        return x * x

    @cache.data
    def cube(x):
        calls.append(("cube", x))
        return x**3

    st.write(repr((square(3), square(3), cube(3), cube(3), square(x=2))))
    st.write(repr(calls))


def test_each_function_caches_its_own_values_keyed_on_the_models(monkeypatch):
    from core import zoo
    from ui import cache

    monkeypatch.setattr(zoo, "load_manifest", lambda: {"models": {"m": {"sha256": "old"}}})
    cache.zoo_key.clear()
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert at.markdown[0].value == "(9, 9, 27, 27, 4)"
    # one call each: the second square(3) and cube(3) came from the cache, and cube(3)
    # was not answered from square's cache (same code, other function)
    assert at.markdown[1].value == "[('square', 3), ('cube', 3), ('square', 2)]"
    at.run()  # the same models: every value from the caches
    assert at.markdown[1].value == "[('square', 3), ('cube', 3), ('square', 2)]"
    # retrained weights: a new checksum in the manifest, new entries
    monkeypatch.setattr(zoo, "load_manifest", lambda: {"models": {"m": {"sha256": "new"}}})
    cache.zoo_key.clear()
    at.run()
    assert at.markdown[1].value.startswith(
        "[('square', 3), ('cube', 3), ('square', 2), ('square', 3), ('cube', 3)"
    )
    cache.zoo_key.clear()
