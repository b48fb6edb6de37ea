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
    "rnn_plain_256",
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
ENCODER_MODELS: tuple[str, ...] = ("coref_encoder",)  # self-attention encoders, no decoder
# The pages' list. The plain tanh RNN (the translation model whose gradients fade) is a
# translation model like the others; the coreference encoder has no decoder.
MODEL_NAMES: tuple[str, ...] = TRANSLATION_MODELS + LM_MODELS + PROBE_MODELS + ENCODER_MODELS
# Translation models shipped for one example only and not listed by the pages (none today).
EXAMPLE_TRANSLATION_MODELS: tuple[str, ...] = ()
SHIPPED_MODELS: tuple[str, ...] = MODEL_NAMES + EXAMPLE_TRANSLATION_MODELS


class ZooError(RuntimeError):
    """A shipped file is missing, unreadable or fails its checksum.

    ``filename`` is the file's name relative to the repository, ``reason`` one of
    ``"missing"``, ``"corrupt"``, ``"checksum"``, ``"unknown_model"``, and ``command``
    the shell command that rebuilds it.
    """

    def __init__(
        self, filename: str, reason: str, detail: str = "", command: str = REBUILD_COMMAND
    ):
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
        raise ZooError(
            _rel(MANIFEST_PATH),
            "unknown_model",
            name,
            command=f"python -m core.train --model {name}",
        )
    return manifest["models"][name]


# --- building and loading models -----------------------------------------------------------


def _families() -> dict[str, tuple[type, type]]:
    """family name → (config dataclass, module class). Imported lazily: torch is heavy."""
    from core.models.cnn_seq2seq import CNNSeq2Seq, CNNSeq2SeqConfig
    from core.models.coref_encoder import CorefEncoder, CorefEncoderConfig
    from core.models.lm import GRULanguageModel, GRULMConfig
    from core.models.probes import DistanceProbe, ProbeConfig
    from core.models.rnn_seq2seq import RNNSeq2Seq, RNNSeq2SeqConfig
    from core.models.transformer import Transformer, TransformerConfig

    return {
        "rnn_seq2seq": (RNNSeq2SeqConfig, RNNSeq2Seq),
        "cnn_seq2seq": (CNNSeq2SeqConfig, CNNSeq2Seq),
        "transformer": (TransformerConfig, Transformer),
        "lm_gru": (GRULMConfig, GRULanguageModel),
        "coref_encoder": (CorefEncoderConfig, CorefEncoder),
        "probe": (ProbeConfig, DistanceProbe),
    }


def build_model(family: str, config: dict[str, Any]):
    """A freshly initialised model of ``family`` from a plain config dict."""
    fams = _families()
    if family not in fams:
        raise ValueError(f"unknown model family {family!r}; known: {', '.join(sorted(fams))}")
    cfg_cls, model_cls = fams[family]
    return model_cls(cfg_cls(**config))


def sha256_of(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _checked_file(entry_file: str, sha256: str, cmd: str, models_dir: Path) -> Path:
    path = models_dir / entry_file
    if not path.is_file():
        raise ZooError(_rel(path), "missing", command=cmd)
    if sha256_of(path) != sha256:
        raise ZooError(_rel(path), "checksum", "the file differs from the manifest", command=cmd)
    return path


def load_model(name: str, models_dir: Path = ASSETS_DIR):
    """Load a pretrained model by name, checksum verified, in ``eval()`` mode.

    Raises ``ZooError`` (naming the file and the rebuild command) when the manifest or the
    weights are missing, corrupted or do not match their checksum.
    """
    import torch

    manifest = load_manifest(models_dir / "manifest.json")
    entry = model_info(name, manifest)
    path = _checked_file(
        entry["file"], entry["sha256"], f"python -m core.train --model {name}", models_dir
    )
    model = build_model(entry["family"], entry["config"])
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except Exception as exc:  # a truncated zip, a wrong shape, a pickle error, ...
        raise ZooError(
            _rel(path), "corrupt", type(exc).__name__, f"python -m core.train --model {name}"
        ) from exc
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def load_vocabs(models_dir: Path = ASSETS_DIR):
    """The source (English) and target (Chinese) vocabularies the models were trained with."""
    from core.vocab import Vocab

    manifest = load_manifest(models_dir / "manifest.json")
    out = []
    for side in ("src", "tgt"):
        entry = manifest["vocab"][side]
        path = _checked_file(entry["file"], entry["sha256"], REBUILD_COMMAND, models_dir)
        try:
            out.append(Vocab.from_json(json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, TypeError) as exc:
            raise ZooError(_rel(path), "corrupt", str(exc)) from exc
    return out[0], out[1]
