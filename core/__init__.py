"""Road to Attention: the shared model package (no streamlit here).

Importing ``core`` caps the BLAS/OpenMP thread pools before torch is imported, so that
many Streamlit sessions (each running in its own thread) do not oversubscribe a small
server. Set the variables yourself before importing to override.
"""

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _guard_plotly_peeks() -> None:
    """plotly looks an optional module up in ``sys.modules`` without importing it
    (``get_module(name, should_load=False)``: pandas, numpy, ...) and uses it at once; a module
    another thread is importing sits there half-built (a first visit to a page that imports
    pandas beside a page that builds a figure: "partially initialized module 'pandas' has no
    attribute 'Series'"). The lookup here passes over a module still being imported, as
    CPython's own import does and narwhals' (``dependencies._get_imported_module``): no value
    can be of a module that has not finished importing. Modules that took the function
    before this ran get this one too."""
    import sys

    from _plotly_utils import optional_imports

    original = optional_imports.get_module
    if getattr(original, "road_guard", False):
        return

    def get_module(name: str, should_load: bool = True):  # noqa: ANN202 (plotly's signature)
        if not should_load:
            module = sys.modules.get(name)
            if getattr(getattr(module, "__spec__", None), "_initializing", False):
                return None
            return module
        return original(name, should_load)

    get_module.road_guard = True  # type: ignore[attr-defined]
    get_module.unguarded = original  # type: ignore[attr-defined]
    optional_imports.get_module = get_module
    for module in list(sys.modules.values()):
        if getattr(module, "get_module", None) is original:
            module.get_module = get_module


_guard_plotly_peeks()
