"""What several RNN-gradient parts share: the number format, the models' looks, a choice
kept in the URL and the quantity parts 1 and 2 measure (one URL parameter ``q``, the same
control in both parts)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import ui
from lessons import controls

QUANTITIES = ("state", "input")


def sci(x: float) -> str:
    """A number for a caption: two significant digits, scientific when tiny or huge."""
    return f"{x:.2g}" if 1e-2 <= abs(x) < 1e4 else f"{x:.1e}"


def names(models: Iterable[str]) -> dict[str, str]:
    """{display name: model} for a figure's ``looks``."""
    return {ui.model_name(m): m for m in models}


def choice(
    label: str,
    options: Sequence[str],
    *,
    param: str,
    default: str,
    key: str,
    format_func: Callable[[str], str] = str,
) -> str:
    """One of ``options`` on a segmented control, in the URL as ``param`` (a bad value falls
    back to ``default`` with the usual notice)."""
    value = ui.params.get_choice(param, options, default=default)
    return controls.segmented(label, options, value, param=param, key=key, format_func=format_func)


def quantity_picker() -> str:
    """What parts 1 and 2 measure (one URL parameter, the same control in both parts)."""
    return choice(
        ui.t("rnn_gradients.fresh.quantity"),
        QUANTITIES,
        param="q",
        default="state",
        key="rnng_q",
        format_func=ui.labeler("rnn_gradients.q."),
    )
