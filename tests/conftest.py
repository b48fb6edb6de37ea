"""Shared helpers for the app tests (AppTest) and the browser tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_CODE = re.compile(r"`[^`]*`")


def make_app(
    page: str | None = None,
    *,
    lang: str | None = None,
    present: str | None = None,
    locale: str | None = None,
    **params: str,
) -> AppTest:
    """An AppTest of ``app.py`` (optionally on ``page``), with URL parameters, not yet run."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    if lang is not None:
        at.query_params["lang"] = lang
    if present is not None:
        at.query_params["present"] = present
    for key, value in params.items():
        at.query_params[key] = value
    if locale is not None:
        at.context = {"locale": locale}
    if page is not None:
        at.switch_page(page)
    return at


def main_text(at: AppTest) -> str:
    """All prose the main area shows: titles, headers, markdown, captions, alerts."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "warning", "info"):
        parts += [str(el.value) for el in getattr(at.main, kind)]
    return "\n".join(parts)


def cjk_share(text: str) -> float:
    """Share of Chinese characters among letters (code spans and model names excluded)."""
    text = _CODE.sub("", text)
    cjk = len(_CJK.findall(text))
    latin_words = len(re.findall(r"[A-Za-z]+", text))
    return cjk / max(1, cjk + latin_words)


def has_latin(text: str) -> bool:
    return bool(_LATIN.search(text))


@pytest.fixture
def no_manifest(monkeypatch):
    """Pretend the model manifest has not been built (the state before training)."""
    import core.zoo as zoo

    def missing(*_a, **_k):
        raise zoo.ZooError("assets/models/manifest.json", "missing")

    monkeypatch.setattr(zoo, "load_manifest", missing)


@pytest.fixture
def fake_manifest(monkeypatch):
    """A small manifest with every model, as the training run would write it."""
    import core.zoo as zoo

    models = {}
    for i, name in enumerate(zoo.MODEL_NAMES):
        task = (
            "translation"
            if name in zoo.TRANSLATION_MODELS
            else "lm"
            if name in zoo.LM_MODELS
            else "probe"
        )
        models[name] = {
            "family": name.split("_")[0],
            "task": task,
            "params": 10_000 * (i + 1),
            "config": {},
            "data_seed": 1234,
            "steps": 3000,
            "train_time_s": 100.0 + i,
            "metrics": {"exact": 0.5 + i / 100},
            "sha256": "0" * 64,
            "file": f"{name}.pt",
        }
    manifest = {"corpus": {"seed": 1234}, "models": models}
    monkeypatch.setattr(zoo, "load_manifest", lambda *_a, **_k: manifest)
    return manifest
