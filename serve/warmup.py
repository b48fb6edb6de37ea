"""Warm the server up in the background once the first page has been drawn.

The home page needs neither torch nor pandas, so a cold server shows it without paying
for them (~2 s on 2 cores). The first lesson page a teacher opens next would pay instead;
so, once the first run of the process has finished drawing its page, one daemon thread
imports what the lesson pages need. A page that needs a module before the thread is done
simply waits on Python's import lock for the rest of the import (never twice), and a
failed import here is ignored: the page importing it will report the error itself.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable

from core.i18n import LANGS, translate

# torch (~1.5 s) and what builds on it, then pandas (~0.5 s; the attention page's score
# table). plotly looks pandas up in sys.modules without importing it, where a module being
# imported sits half-built (a page's figure once raised on it): ``core`` makes that lookup
# pass over a module still being imported (core._guard_plotly_peeks), so the import can run
# beside the pages instead of delaying the first one (importing pandas whole in app.py cost
# a cold start ~0.45 s).
MODULES = (
    "torch",
    "core.models.rnn_seq2seq",
    "core.models.cnn_seq2seq",
    "core.models.transformer",
    "core.models.lm",
    "core.models.probes",
    "core.translate",
    "pandas",
)

# The line the server log gets when the app's warm-up has finished: the class bench waits
# for it before a class arrives (as a teacher opens the lesson before the students do),
# and an operator can read how long a fresh replica takes to be warm.
DONE = "road-to-attention: warm-up done in"
# The first page is drawn by the browser after the server's run has finished: the messages
# still go out through the server's event loop, which a thread importing torch would starve
# of the GIL. So the warm-up waits this long first (measured: cold start of the home page
# against `streamlit hello`, see bench).
DELAY_S = 2.0
THREAD_NAME = "road-warm-up"  # the warm-up thread's name (a test tells its calls apart)
READY_ENV = "ROAD_READY_FILE"  # written once warm (deploy/k8s: the readiness probe)
DATABASE_ENV = "ROAD_DATABASE_URL"  # the polls' PostgreSQL (poll/store.py), if one is set
# A replica whose database does not answer would take a class and fail its polls and races:
# it stays unready, says why in its log and asks again this often until the database answers.
DATABASE_RETRY_S = 5.0
DATABASE_TIMEOUT_S = 5  # seconds one attempt may take to connect (libpq's connect_timeout)
DATABASE_WAITING = "road-to-attention: not ready: the poll database"  # the log line's start

# What the capacity bench measured (bench/results/capacity.json; tests/bench/test_capacity.py
# keeps these equal to it): the students whose clicks one process alone, and one machine of
# MEASURED_CORES cores behind nginx, kept within CLICK_GOAL_S at p95, everyone admitted. Said
# to whoever started the server once it is warm: a teacher with a lecture hall reads there
# when to start more processes.
STUDENTS_PER_PROCESS: int | None = 200
STUDENTS_PER_MACHINE: int | None = 300
MEASURED_CORES = 2
CLICK_GOAL_S = 1


def capacity_hint(lang: str) -> str | None:
    """How many students this process holds and when to start more, in ``lang``."""
    if STUDENTS_PER_PROCESS is None or STUDENTS_PER_MACHINE is None:
        return None
    return translate(
        "serve.capacity",
        lang,
        seconds=CLICK_GOAL_S,
        students=STUDENTS_PER_PROCESS,
        cores=MEASURED_CORES,
        machine=STUDENTS_PER_MACHINE,
    )


_lock = threading.Lock()
_thread: threading.Thread | None = None
# Set when the process exits: the warm-up stops between two of its steps. A daemon thread
# still inside torch when the interpreter finalises takes the process down with it
# ("terminate called without an active exception", exit -6: a short script or a test
# process that ran a page and exits while the warm-up translates).
_stop = threading.Event()
EXIT_WAIT_S = 30.0  # the longest single step (the n-gram counts, ~8 s on one core) and more


def stopping() -> bool:
    """Whether the process is exiting: a warm-up step that loops checks it between items."""
    return _stop.is_set()


@atexit.register
def _stop_and_wait() -> None:
    """At exit: ask the warm-up to stop and wait (bounded) until it has."""
    _stop.set()
    thread = _thread
    if thread is not None and thread.is_alive() and thread is not threading.current_thread():
        thread.join(EXIT_WAIT_S)


def _delay_s() -> float:
    """Seconds the warm-up waits before it starts importing (``ROAD_WARMUP_DELAY_S``, default
    :data:`DELAY_S`; a bad value means the default)."""
    try:
        return max(0.0, float(os.environ.get("ROAD_WARMUP_DELAY_S", DELAY_S)))
    except ValueError:
        return DELAY_S


def _import_all(
    modules: tuple[str, ...],
    corpus: bool = False,
    delay: float = 0.0,
    warm_ups: WarmUps | None = None,
) -> None:
    start = time.perf_counter()
    if _stop.wait(delay):
        return
    for name in modules:
        if _stop.is_set():
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (the page that needs it will raise and explain)
            continue
    if corpus:
        _warm_corpus()
        _warm_lessons(warm_ups)
        if _stop.is_set():
            return
        _freeze()
        print(f"{DONE} {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
        for lang in LANGS:
            hint = capacity_hint(lang)
            if hint:
                print(hint, file=sys.stderr, flush=True)
        if wait_for_database(os.environ.get(DATABASE_ENV, "").strip()):
            _mark_ready()


def database_problem(url: str) -> str | None:
    """None when the PostgreSQL at ``url`` answers a query, else what went wrong (one line,
    no password). An SQLite URL is a local file: nothing to ask."""
    import sqlalchemy as sa  # here, not at the top: the home page's cold start never needs it

    try:
        parsed = sa.engine.make_url(url)
    except Exception as err:  # noqa: BLE001  (a malformed URL is the reason to report)
        return f"{DATABASE_ENV} is not a database URL ({type(err).__name__})"
    if parsed.get_backend_name() != "postgresql":
        return None
    engine = sa.create_engine(
        parsed, poolclass=sa.pool.NullPool, connect_args={"connect_timeout": DATABASE_TIMEOUT_S}
    )
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        return None
    except Exception as err:  # noqa: BLE001  (any failure keeps the replica unready)
        lines = [ln.strip() for ln in str(getattr(err, "orig", None) or err).splitlines()]
        return " ".join(ln for ln in lines if ln)[:300] or type(err).__name__
    finally:
        engine.dispose()


def wait_for_database(url: str) -> bool:
    """Return once the poll database at ``url`` answers (at once without a URL): True, or
    False if the process exits first. While it does not, the log says why and where, once
    for each new reason and again every minute."""
    if not url:
        return True
    import sqlalchemy as sa

    try:
        where = sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001  (database_problem reports it)
        where = DATABASE_ENV
    since, said, said_at = time.monotonic(), None, 0.0
    while True:
        problem = database_problem(url)
        if problem is None:
            if said is not None:
                waited = time.monotonic() - since
                print(
                    f"road-to-attention: the poll database answers after {waited:.0f} s: ready",
                    file=sys.stderr,
                    flush=True,
                )
            return True
        now = time.monotonic()
        if problem != said or now - said_at >= 60:
            print(
                f"{DATABASE_WAITING} at {where} does not answer: {problem}; "
                f"asking again every {DATABASE_RETRY_S:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            said, said_at = problem, now
        if _stop.wait(DATABASE_RETRY_S):
            return False


def _mark_ready() -> None:
    """Write the file ``ROAD_READY_FILE`` names (if set): a pod's readiness probe tests it,
    so a replica takes students only once it is warm."""
    path = os.environ.get(READY_ENV, "").strip()
    if path:
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write("warm\n")
        except OSError as err:  # a read-only or missing folder: say so, never crash
            print(f"road-to-attention: cannot write {READY_ENV}={path}: {err}", file=sys.stderr)


def _warm_corpus() -> None:
    """The corpus splits behind the autoregressive and compression parts (~2.5 s on one
    core), the compression page's n-gram counts (~8 s), its default prompt (~2 s), the
    RNN-gradients page's first study (~3 s), built once in the background so the first class
    to open them does not wait."""
    try:
        from core import corpus, zoo
        from core.analysis import compression, ngram

        seed = int(zoo.load_manifest().get("corpus", {}).get("seed", 1234))
        for step in (corpus.shared_splits, ngram.corpus_stats, compression.corpus_window_example):
            if _stop.is_set():
                return
            step(seed)
    except Exception:  # noqa: BLE001  (the page that needs them will raise and explain)
        return
    try:
        from core.analysis import influence

        if _stop.is_set():
            return
        influence.fade_study()  # the RNN-gradients page's first part (~3 s)
    except Exception:  # noqa: BLE001  (missing weights: the page says which)
        return


# What the lessons register (``lessons.warm_ups``, handed over by the app's frame): a function
# that gives the warm-ups, each a function of no argument that checks :func:`stopping` between
# its items.
WarmUps = Callable[[], Iterable[Callable[[], object]]]


def _warm_lessons(warm_ups: WarmUps | None) -> None:
    """The lessons' own warm-ups (the sliders a teacher drags, on their defaults), one after
    the other; one that fails is skipped (the page reports its own errors)."""
    if warm_ups is None:
        return
    try:
        steps = tuple(warm_ups())
    except Exception:  # noqa: BLE001  (missing weights or data: the page says which)
        return
    for step in steps:
        if _stop.is_set():
            return
        try:
            step()
        except Exception:  # noqa: BLE001  (the page reports its own errors)
            continue


def _freeze() -> None:
    """Move every object alive now (modules, torch, the corpus: ~320,000 objects) out of the
    garbage collector's reach. They live as long as the process; without this, each of
    Python's full collections walked them all (~250-300 ms on this machine, measured with
    the corpus loaded), and one could fall in the middle of any student's click. Objects
    made later (sessions, figures) are collected as usual."""
    gc.collect()  # what is garbage already is freed, not frozen
    gc.freeze()


def start(modules: tuple[str, ...] = MODULES, warm_ups: WarmUps | None = None) -> threading.Thread:
    """Start the warm-up thread (once per process) and return it. The app's own warm-up
    (``MODULES``) also builds the shared corpus splits, then runs ``warm_ups``' steps."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(
                target=_import_all,
                args=(
                    modules,
                    modules is MODULES,
                    _delay_s() if modules is MODULES else 0.0,
                    warm_ups,
                ),
                name=THREAD_NAME,
                daemon=True,
            )
            _thread.start()
        return _thread
