"""What several RNN-gradient parts share: the number format, the models' looks, a choice
kept in the URL and the quantity parts 1 and 2 measure (one URL parameter ``q``, the same
control in both parts)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import ui
from core import probes_data
from lessons import controls

QUANTITIES = ("state", "input")
# parts 3 and 4 measure the same probes at the same distances: one axis (the key lies at most
# MAX_DISTANCE back in training and in every measurement)
PROBE_DISTANCE_AXIS = {"range": [0, probes_data.MAX_DISTANCE], "dtick": 10}
FAR = 40  # the distance parts 3 and 4 read their numbers at (one of EVAL_DISTANCES)


def probe_sizes(entry: dict) -> dict[str, int]:
    """What the probes' words quote of their task and models (``entry``: a probe's manifest
    record): the sequence length, the farthest key, the held-out sequences per distance and
    the units of each probe."""
    from core.models.probes import ProbeConfig

    _, answers = probes_data.eval_set(probes_data.EVAL_DISTANCES[0])
    return {
        "seq_len": probes_data.SEQ_LEN,
        "max_d": probes_data.MAX_DISTANCE,
        "n_eval": int(answers.shape[0]),
        "hidden": ProbeConfig(**entry.get("config", {})).hidden,
    }


def both_numbers(trained: dict, entry: dict) -> dict[str, str]:
    """What parts 3 and 4 say together of the plain RNN at distance ``FAR``: its trained
    signal there (``trained``: the probes' measurement) beside its recorded accuracy there
    and at the farthest distance measured (``entry``: its manifest record)."""
    acc = entry["metrics"]["distance"]
    far = str(probes_data.EVAL_DISTANCES[-1])
    return {
        "d": str(FAR),
        "grad": sci(float(trained["rnn"]["state"][FAR])),
        "acc": f"{acc[str(FAR)]:.0%}",
        "far": far,
        "acc_far": f"{acc[far]:.0%}",
        "chance": f"{1 / probes_data.N_KEYS:.0%}",
    }


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
