"""Shared helpers for the app tests (AppTest) and the browser tests."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import core  # noqa: F401  (caps BLAS/OpenMP threads before any test module imports torch)
from ui.headless import make_app, read_our_elements

ROOT = Path(__file__).resolve().parent.parent


def element_kind(element) -> str:
    """A sent element's type (``Element.WhichOneof("type")``), the app's chart element read as
    the ``plotly_chart`` it replaces (for tests that read the wire)."""
    from ui import markup, plot

    kind = element.WhichOneof("type")
    if kind == "bidi_component" and element.bidi_component.component_name == plot.NAME:
        return "plotly_chart"
    if kind == "bidi_component" and element.bidi_component.component_name == markup.NAME:
        return "html"
    return kind


# Class polls of the test run (AppTest and the servers the tests start, which inherit the
# environment) go to a folder of their own, never to the user's data directory.
os.environ.setdefault("ROAD_DATA_DIR", tempfile.mkdtemp(prefix="road-test-data-"))
APP = ROOT / "app.py"
# The app's Python packages (what the image ships and a server of a test's own copies)
APP_PACKAGES = ("charts", "core", "lessons", "pages", "poll", "serve", "ui")
MAX_WORKERS = 4  # pytest -n auto: one worker per core, at most this many
# AppTest reads our chart and html elements as the plotly_chart and html they replace
read_our_elements()

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
_CODE = re.compile(r"`[^`]*`")


def need(what: str, ok: bool, how: str) -> None:
    """Skip the test, with what is missing and ``how`` to get it, unless ``ok``; in CI
    (``CI`` set) a missing tool is a failure: CI installs everything the tests need."""
    if ok:
        return
    msg = f"{what} not found: {how}"
    if os.environ.get("CI"):
        pytest.fail(msg + " -- CI is set, so this is a failure, not a skip")
    pytest.skip(msg)


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


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto`` (pyproject.toml): one worker per core, capped, because every worker that
    runs a browser test starts its own app server and Chromium (~1 GB together). The suite
    keeps the cores busy (/proc/stat: 99 % busy over a whole run with three workers):
    a third worker on two cores made it slower (26 min against 24), not faster."""
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def in_fresh_thread(test):
    """Run a test's body in a new thread: one with no event loop. A worker that has run a
    browser test holds the session's Playwright (its sync API runs an asyncio loop in the
    worker's main thread), so ``asyncio.run`` or a second Playwright there would fail."""
    import functools
    from concurrent.futures import ThreadPoolExecutor

    @functools.wraps(test)
    def run(*args, **kwargs):
        with ThreadPoolExecutor(1, thread_name_prefix="fresh-thread") as pool:
            return pool.submit(test, *args, **kwargs).result()

    return run


def pytest_collection_modifyitems(config, items) -> None:
    """Tests marked ``long`` first (a stable sort: the rest keep their order), so a worker
    starts them early and the other worker's queue, then stealing, fills the time instead
    of one worker running a long test alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True)
def _charts_drawn_afresh():
    """Every test starts with an empty store of drawn charts (``ui.plot.DRAWN``, kept for
    the whole server): a test's fake models or manifest never meet a chart drawn from
    another test's (as the tests clear Streamlit's own caches). Not through ``monkeypatch``:
    an autouse fixture holding it would set it up before a test's other fixtures and undo a
    test's own patches after theirs (``dev_zoo``'s ``load_model`` put back for good)."""
    from ui import plot

    kept = plot.DRAWN
    plot.DRAWN = plot.Drawn(kept.max_items, kept.max_bytes)
    yield
    plot.DRAWN = kept


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


@pytest.fixture
def no_zoo(monkeypatch):
    """Pretend nothing has been built: no manifest, no vocabularies, no weights."""
    import core.zoo as zoo

    def missing(*_a, **_k):
        raise zoo.ZooError("assets/models/manifest.json", "missing")

    for name in ("load_model", "load_vocabs", "load_manifest"):
        monkeypatch.setattr(zoo, name, missing)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield
    st.cache_resource.clear()
    st.cache_data.clear()


# --- an untrained zoo, written by the real training code -------------------------------------


def write_dev_zoo(out: Path) -> dict:
    """A small *untrained* zoo in ``out``: every translation model, distance probe and
    language model as
    ``core.train`` writes it after 0 steps (random weights, the real architectures and
    sizes), a vocabulary from the grammar and made-up metrics. Returns the manifest."""
    from core import corpus, train
    from core import zoo as zoo_
    from core.analysis import bottleneck as bn
    from core.analysis.arena import grammar_pair
    from core.vocab import Vocab

    # sentences the page tests open: the arena's default and a deep-linked grammar sentence,
    # the bottleneck page's example sentences (its EXAMPLE_SEED 2015 + length)
    extra = [grammar_pair(1, 30), grammar_pair(1, 40), grammar_pair(42, 12)]
    extra += [bn.sample_sentences(2015 + n, 1, n, n)[0] for n in (8, 16, 24, 32, 44)]
    pairs = corpus.generate(3000, seed=5) + list(corpus.LESSON_PAIRS) + extra
    src_vocab = Vocab.build(p.src for p in pairs)
    tgt_vocab = Vocab.build(p.tgt for p in pairs)
    data = (corpus.Splits(tuple(pairs), (), ()), src_vocab, tgt_vocab)
    entries = {}
    for i, name in enumerate(zoo_.TRANSLATION_MODELS + zoo_.PROBE_MODELS + zoo_.LM_MODELS):
        entry = train.train_one(name, train.SPECS[name], out, data=data, steps=0, evaluate=False)
        if entry["task"] == "translation":
            entry["metrics"] = {
                "by_length": {
                    b: {
                        "exact": round(max(0.0, 1 - 0.1 * i * k), 3),
                        "token_acc": round(0.9 - 0.01 * k, 3),
                        "edit_acc": round(0.95 - 0.02 * i, 3),
                        "n": 40 + k,
                    }
                    for k, b in enumerate(corpus.BUCKETS)
                }
            }
        elif entry["task"] == "lm":
            entry["metrics"] = {"test_ppl": 99.0, "you_should": ["<unk>"]}
        else:
            entry["metrics"] = {
                "distance": {str(d): round(max(0.1, 1 - d / 100), 3) for d in (5, 30, 60)}
            }
        entries[name] = entry
    path = train.write_manifest(entries, out, data)
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def dev_zoo_dir(tmp_path_factory) -> Path:
    """The untrained zoo of :func:`write_dev_zoo`, written once per test session."""
    out = tmp_path_factory.mktemp("dev_zoo")
    write_dev_zoo(out)
    return out


@contextmanager
def dev_zoo_loaded(root: Path) -> Iterator[dict]:
    """Point ``core.zoo`` at the zoo in ``root`` (caches cleared before and after); yields
    its manifest."""
    import core.zoo as zoo

    real_model, real_vocabs = zoo.load_model, zoo.load_vocabs
    manifest_path = root / "manifest.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(zoo, "load_manifest", lambda path=None: json.loads(manifest_path.read_text()))
        mp.setattr(zoo, "load_model", lambda name, models_dir=None: real_model(name, root))
        mp.setattr(zoo, "load_vocabs", lambda models_dir=None: real_vocabs(root))
        st.cache_resource.clear()
        st.cache_data.clear()
        yield json.loads(manifest_path.read_text())
    st.cache_resource.clear()
    st.cache_data.clear()


@pytest.fixture
def dev_zoo(dev_zoo_dir) -> Iterator[dict]:
    """The untrained zoo for one test (cached models forgotten before and after)."""
    with dev_zoo_loaded(dev_zoo_dir) as manifest:
        yield manifest


def md_tables(at) -> list[list[list[str]]]:
    """The Markdown tables (core.mdtable) of the main area, each as rows of unescaped cells,
    header first."""
    from core import mdtable

    tables = (mdtable.parse(str(m.value)) for m in at.main.markdown)
    return [t for t in tables if t is not None]


@contextmanager
def fragment_rerun(fragment_id: str) -> Iterator[None]:
    """Inside it, ``at.run()`` reruns only the fragment ``fragment_id``, as the browser asks
    after a click on a widget of that fragment (AppTest itself reruns the whole script).
    Patches AppTest's runner, a Streamlit internal: 1.67 is pinned in requirements.txt."""
    import functools

    import streamlit.testing.v1.local_script_runner as lsr

    plain = lsr.RerunData
    lsr.RerunData = functools.partial(plain, fragment_id_queue=[fragment_id])
    try:
        yield
    finally:
        lsr.RerunData = plain


@dataclass(frozen=True)
class Sent:
    """One element a run sent: where it goes, the fragment that drew it, what it is."""

    path: tuple[int, ...]
    fragment: str
    type: str
    key: str  # a widget's or chart's key among those asked for ("" otherwise)
    body: str


def record_sent(monkeypatch, keys: Sequence[str]) -> list[Sent]:
    """Every element the app's runs send from now on, in order (clear it as needed): with
    :func:`fragment_rerun`, what a click really redraws, and where. ``keys``: the widgets'
    and charts' keys to name (their element id ends with the key)."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    log: list[Sent] = []
    enqueue = ForwardMsgQueue.enqueue

    def record(self, msg):
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            kind = el.WhichOneof("type")
            proto = getattr(el, kind)
            ident = getattr(proto, "id", "") or ""
            key = next((k for k in keys if ident.endswith("-" + k)), "")
            body = getattr(proto, "body", "") if kind in ("markdown", "alert") else ""
            log.append(Sent(tuple(msg.metadata.delta_path), msg.delta.fragment_id, kind, key, body))
        return enqueue(self, msg)

    monkeypatch.setattr(ForwardMsgQueue, "enqueue", record)
    return log


def fragment_of(log: list[Sent], key: str) -> str:
    """The id of the fragment that drew the element ``key``."""
    return next(s.fragment for s in log if s.key == key)


def what(log: list[Sent]) -> list[str]:
    """The elements sent, by key (widgets, charts) or type (text)."""
    return [s.key or s.type for s in log]


def rerun_alone(at, log: list[Sent], fragment: str, change, timeout: float = 300) -> list[str]:
    """A click replayed as the browser sends it: ``change()`` (returning the element to run,
    e.g. ``lambda: at.slider(key="k").set_value(7)``), then a rerun of ``fragment`` alone.
    Checks that it raised nothing, that only ``fragment`` drew and that each named element
    the runs logged before had placed went to the same place; returns what it sent
    (:func:`what`)."""
    places = {s.key: s.path for s in log if s.key}
    log.clear()
    with fragment_rerun(fragment):
        change().run(timeout=timeout)
    assert not at.exception, [e.value for e in at.exception]
    assert {s.fragment for s in log} == {fragment}, log
    assert all(places[s.key] == s.path for s in log if s.key in places), log
    return what(log)


def as_a_phone(monkeypatch) -> None:
    """Take this test's visitor for a phone everywhere the app asks (AppTest sends no
    User-Agent): the lessons ask ``ui.on_a_phone``, the chart element and the frame
    ``ui.draw.on_a_phone``."""
    import ui
    from ui import draw

    monkeypatch.setattr(ui, "on_a_phone", lambda: True)
    monkeypatch.setattr(draw, "on_a_phone", lambda: True)


def run_page(page: str, *, timeout: float = 300, **params):
    """A page's run through AppTest (``lang`` and the link's parameters as keywords), failed
    on any exception it shows."""
    lang = params.pop("lang", "en")
    at = make_app(page, lang=lang, **params).run(timeout=timeout)
    assert not at.exception, [e.value for e in at.exception]
    return at


def chart_spec(at, key: str) -> dict:
    """The plotly figure (as JSON) of the chart whose element key holds ``key``."""
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return json.loads(el.proto.spec)
    raise AssertionError(f"no chart {key!r}")
