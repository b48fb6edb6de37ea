"""The registry of pretrained models shipped in ``assets/models``.

Every model is produced by ``python -m core.train`` and described in
``assets/models/manifest.json`` (config, parameter count, data seed, steps, training
time, metrics, sha256 of the weights). ``load_model(name)`` checks the checksum and
returns a ready ``eval()`` model; anything missing or corrupted raises ``ZooError``
naming the file and the command that rebuilds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets" / "models"
MANIFEST_PATH = ASSETS_DIR / "manifest.json"
REBUILD_COMMAND = "python -m core.train --all"

TRANSLATION_MODELS: tuple[str, ...] = (
    "gru_plain_32",
    "gru_plain_128",
    "gru_plain_256",
    "gru_attention",
    "cnn_s2s",
    "transformer",
)
LM_MODELS: tuple[str, ...] = ("lm_gru",)
PROBE_MODELS: tuple[str, ...] = (
    "probe_rnn",
    "probe_lstm",
    "probe_gru",
    "probe_cnn2",
    "probe_cnn4",
    "probe_cnn8",
    "probe_attention",
)
MODEL_NAMES: tuple[str, ...] = TRANSLATION_MODELS + LM_MODELS + PROBE_MODELS


class ZooError(RuntimeError):
    """A shipped file is missing, unreadable or fails its checksum.

    ``filename`` is the file's name relative to the repository, ``reason`` one of
    ``"missing"``, ``"corrupt"``, ``"checksum"``, ``"unknown_model"``, and ``command``
    the shell command that rebuilds it.
    """

    def __init__(self, filename: str, reason: str, detail: str = "", command: str = REBUILD_COMMAND):
        self.filename = filename
        self.reason = reason
        self.detail = detail
        self.command = command
        msg = f"{filename}: {reason}"
        if detail:
            msg += f" ({detail})"
        super().__init__(f"{msg}. Rebuild it with: {command}")


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ASSETS_DIR.parent.parent))
    except ValueError:
        return str(path)


def load_manifest(path: Path = MANIFEST_PATH) -> dict[str, Any]:
    """Read the manifest; raise ``ZooError`` if it is missing or not valid JSON."""
    path = Path(path)
    if not path.is_file():
        raise ZooError(_rel(path), "missing")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ZooError(_rel(path), "corrupt", str(exc)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ZooError(_rel(path), "corrupt", "no 'models' table")
    return data


def model_info(name: str, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest entry of one model (config, params, metrics, ...)."""
    manifest = load_manifest() if manifest is None else manifest
    if name not in manifest["models"]:
        raise ZooError(_rel(MANIFEST_PATH), "unknown_model", name, command=f"python -m core.train --model {name}")
    return manifest["models"][name]
