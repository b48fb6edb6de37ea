"""A class of simulated students: Streamlit's own websocket protocol, no browser.

A :class:`Student` does what Streamlit's frontend (1.67) does (the page, the health probe
for the XSRF cookie, host-config, ``/_stcore/stream``, ``BackMsg.rerun_script``); an action
is timed from sending to ``script_finished``. :func:`run_class` plays a class.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import requests
import websockets
from requests.adapters import HTTPAdapter
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench import procs
from bench.stats import percentile

XSRF_COOKIE = "_streamlit_xsrf"
FINISHED = ForwardMsg.ScriptFinishedStatus
DONE = {
    FINISHED.FINISHED_SUCCESSFULLY: None,
    FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: None,
    FINISHED.FINISHED_WITH_COMPILE_ERROR: "script finished with a compile error",
}
CONTEXT = {  # what a browser in a classroom reports (frontend: sendRerunBackMsg)
    "timezone": "UTC",
    "timezone_offset": 0,
    "locale": "en-US",
    "is_embedded": False,
    "color_scheme": "light",
}
MAX_MESSAGE = 256 * 2**20  # a page with many charts sends several MB in one delta
BLOCK = Element()  # a container in Student.elements: no text, no widget, its place drawn
TEACHER_PAGE = ("attention", "lang=zh&part=align")  # the page of the "page" scenario
SETTABLE = ("slider", "button_group", "selectbox", "radio", "checkbox", "button")
NEXT_LINK_SHARE = 0.15  # share of clicks that follow the deck's "next" link on the page


@functools.cache
def _http_pool() -> ThreadPoolExecutor:
    """Threads for the blocking HTTP GETs: a wave of arrivals is not queued here."""
    return ThreadPoolExecutor(max_workers=128, thread_name_prefix="student-http")


@dataclass
class Action:
    """One thing a student did and how long the server took to answer it."""

    kind: str  # "arrive", "click" (link, query), "press" (button), "set", "refresh" (run_every)
    page: str  # the page's url path after the action ("" is the default page, home)
    seconds: float | None  # send -> script_finished (arrive: from the HTTP GET); None: lost
    ok: bool
    error: str | None = None
    query: str = ""  # the query string after the action (what the address bar shows)
    phases: dict[str, float] = field(default_factory=dict)  # arrive: http, connect, run


class SourceAddressAdapter(HTTPAdapter):
    """``requests`` connections from a chosen local address (a class behind one NAT)."""

    def __init__(self, source_address: str, **kwargs) -> None:
        self.source_address = (source_address, 0)
        super().__init__(**kwargs)

    def init_poolmanager(self, connections, maxsize, block=False, **kwargs):
        kwargs["source_address"] = self.source_address
        super().init_poolmanager(connections, maxsize, block, **kwargs)


class StudentError(RuntimeError):
    """The student could not do what was asked (no such widget, not connected...)."""


def _widget(element) -> tuple[str, Any] | None:
    """``(element type, proto)`` of a widget element (one with an ``id``), else ``None``."""
    kind = element.WhichOneof("type")
    proto = getattr(element, kind) if kind else None
    if proto is None or "id" not in proto.DESCRIPTOR.fields_by_name or not proto.id:
        return None
    return kind, proto


def _texts(element) -> list[str]:
    """The visible text of an element (markdown, headings, alerts, labels, captions)."""
    kind = element.WhichOneof("type")
    proto = getattr(element, kind) if kind else None
    names = proto.DESCRIPTOR.fields_by_name if proto is not None else ()
    values = [getattr(proto, n) for n in ("body", "label", "text") if n in names]
    return [v for v in values if isinstance(v, str) and v]


class Student:
    """One student's tab, without a browser: ``async with Student(url) as s: await s.arrive()``."""

    def __init__(self, base_url: str, *, timeout=60.0, name="student", source_address=None):
        parsed = urllib.parse.urlsplit(base_url)
        self.base = base_url.rstrip("/")
        self.origin = f"{parsed.scheme}://{parsed.netloc}"
        self.timeout, self.name = timeout, name
        self.source_address = source_address  # e.g. "127.0.0.2", for HTTP and websocket
        self.http = requests.Session()
        self.http.headers["User-Agent"] = "road-to-attention-classroom/1 (bench)"
        if source_address:
            self.http.mount("http://", SourceAddressAdapter(source_address))
        self.ws = None
        self.actions: list[Action] = []
        # what the browser holds: address bar, current page, the elements on screen
        self.query = self.page = self.page_script_hash = ""
        self.pages: dict[str, str] = {}  # url path -> page_script_hash
        self.elements: dict[tuple[int, ...], tuple[Any, str, int]] = {}  # (el, frag, stamp)
        self.received: list[Any] = []  # every element of the current action, in order
        self.auto_reruns: dict[str, float] = {}  # fragment id -> s between its reruns
        self._stamp = 0
        self._errors: list[str] = []
        self._waiter: asyncio.Future | None = None
        self._reader: asyncio.Task | None = None
        self._closed: str | None = None

    async def __aenter__(self) -> Student:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
        self.close_http()

    @property
    def cookies(self) -> dict[str, str]:
        """The cookies the server (or a load balancer in front of it) has set."""
        return {c.name: c.value for c in self.http.cookies}

    @property
    def connected(self) -> bool:
        return self.ws is not None and self._closed is None

    def texts(self) -> list[str]:
        """Every visible text on screen now, in delta-path order."""
        return [t for _, (el, _, _) in sorted(self.elements.items()) for t in _texts(el)]

    def widgets(self) -> dict[str, tuple[str, Any]]:
        """Widgets on screen by element id: ``{id: (element type, proto)}``."""
        found = (_widget(el) for el, _, _ in self.elements.values())
        return {w[1].id: w for w in found if w is not None}

    def widget(self, key: str) -> tuple[str, Any, str]:
        """``(type, proto, fragment id)`` of the widget made with ``key=key``."""
        found = []
        for el, frag, _ in self.elements.values():
            w = _widget(el)
            if w is not None and (w[1].id == key or w[1].id.endswith("-" + key)):
                found.append((w[0], w[1], frag))
        if not found:
            keys = sorted(i.rsplit("-", 1)[-1] for i in self.widgets())
            raise StudentError(f"no widget with key {key!r} on {self.page or 'home'}: {keys}")
        return found[0]

    def options(self, key: str) -> list[str]:
        """The option labels of a select / radio / segmented control / select slider."""
        kind, proto, _ = self.widget(key)
        return _labels(kind, proto)

    def page_links(self) -> list[Any]:
        """Every ``st.page_link`` on screen (the deck's links, the page list)."""
        on_screen = [el for _, (el, _, _) in sorted(self.elements.items())]
        return [el.page_link for el in on_screen if el.WhichOneof("type") == "page_link"]

    async def arrive(self, page: str = "", query: str = "") -> Action:
        """Open ``<base>/<page>?<query>`` as a new tab: HTTP, websocket, first run."""
        await self.close()
        self._closed = None
        self.elements.clear()
        page = page.strip("/")
        if page == "home":
            page = ""
        url = f"{self.base}/{page}" + (f"?{query}" if query else "")
        t0 = time.monotonic()
        phases: dict[str, float] = {}
        try:
            for u in (url, f"{self.base}/_stcore/health", f"{self.base}/_stcore/host-config"):
                await self._get(u)
            phases["http"] = round(time.monotonic() - t0, 4)
            t1 = time.monotonic()
            await asyncio.wait_for(self._connect(), self.timeout)
            phases["connect"] = round(time.monotonic() - t1, 4)
        except Exception as exc:  # noqa: BLE001 - any failure to load is the student's error
            return self._record("arrive", None, f"load {url}: {type(exc).__name__}: {exc}")
        self.query = query
        self.page = page
        t2 = time.monotonic()
        action = await self._rerun("arrive", query, page_name=page, url=url, t0=t0)
        action.phases = dict(phases, run=round(time.monotonic() - t2, 4))
        return action

    async def click(self, query: str, page: str | None = None) -> Action:
        """A link to ``page`` (url path; default: this page) with ``query``, as ``st.page_link``."""
        target = self.page if page is None else ("" if page == "home" else page.strip("/"))
        script_hash = self.pages.get(target)
        if script_hash is None:
            return self._record("click", None, f"no page {target!r} in {sorted(self.pages)}")
        return await self._rerun("click", query, script_hash)

    async def open_link(self, link) -> Action:
        """Click an ``st.page_link`` element (its page and query string)."""
        return await self._rerun("click", link.query_string, link.page_script_hash)

    async def press(self, key: str) -> Action:
        """Press the button made with ``key=key``."""
        try:
            kind, proto, frag = self.widget(key)
        except StudentError as exc:
            return self._record("press", None, str(exc))
        if kind not in ("button", "download_button"):
            return self._record("press", None, f"{key!r} is a {kind}, not a button")
        state = WidgetState(id=proto.id, trigger_value=True)
        return await self._rerun("press", self.query, self.page_script_hash, state, frag)

    async def press_labelled(self, label: str) -> Action:
        """Press the button whose label is ``label`` (a button made without a key)."""
        found = [
            (w[1], frag)
            for el, frag, _ in self.elements.values()
            if (w := _widget(el)) is not None and w[0] == "button" and w[1].label == label
        ]
        if not found:
            return self._record("press", None, f"no button labelled {label!r}")
        proto, frag = found[0]
        state = WidgetState(id=proto.id, trigger_value=True)
        return await self._rerun("press", self.query, self.page_script_hash, state, frag)

    async def refresh(self, fragment: str) -> Action:
        """The browser's timed rerun of a fragment made with ``run_every``."""
        return await self._rerun(
            "refresh", self.query, self.page_script_hash, None, fragment, auto=True
        )

    def set_cookie(self, name: str, value: str) -> None:
        """A cookie the browser holds already (e.g. one a page wrote with JavaScript)."""
        self.http.cookies.set(name, value)

    def charts(self, name: str = "road_chart") -> list[tuple[str, dict]]:
        """``(element id, {"alt", "spec", "config"})`` of each app chart on screen, in order."""
        out = []
        for _, (el, _, _) in sorted(self.elements.items()):
            if (
                el.WhichOneof("type") == "bidi_component"
                and el.bidi_component.component_name == name
            ):
                with contextlib.suppress(ValueError):
                    out.append((el.bidi_component.id, json.loads(el.bidi_component.bytes)))
        return out

    async def set(self, key: str, value: Any) -> Action:
        """Give the widget made with ``key=key`` a new value, as its user would."""
        try:
            kind, proto, frag = self.widget(key)
            state = _state_for(kind, proto, value)
        except (StudentError, ValueError) as exc:
            return self._record("set", None, str(exc))
        return await self._rerun("set", self.query, self.page_script_hash, state, frag)

    async def close(self) -> None:
        """Close the tab (the websocket; the server then ends the session)."""
        ws, self.ws = self.ws, None
        if ws is not None:  # closing a dead socket may fail any way
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 5)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None

    def close_http(self) -> None:
        self.http.close()

    async def _get(self, url: str) -> None:
        get = functools.partial(self.http.get, url, timeout=self.timeout)
        resp = await asyncio.get_running_loop().run_in_executor(_http_pool(), get)
        if resp.status_code != 200:
            raise StudentError(f"HTTP {resp.status_code} for {url}")

    async def _connect(self) -> None:
        uri = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        xsrf = self.cookies.get(XSRF_COOKIE) or "PLACEHOLDER_AUTH_TOKEN"
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = {"Origin": self.origin} | ({"Cookie": cookie} if cookie else {})
        bind = {"local_addr": (self.source_address, 0)} if self.source_address else {}
        self.ws = await websockets.connect(
            uri,
            subprotocols=["streamlit", xsrf],
            additional_headers=headers,
            user_agent_header=self.http.headers["User-Agent"],
            max_size=MAX_MESSAGE,
            ping_interval=None,  # a browser never pings; the server's pings are answered
            open_timeout=self.timeout,
            close_timeout=5,
            **bind,  # passed on to loop.create_connection
        )
        self._reader = asyncio.create_task(self._read(self.ws), name=f"{self.name}-reader")

    async def _read(self, ws) -> None:
        try:
            async for raw in ws:
                self._handle(ForwardMsg.FromString(raw))
        except websockets.ConnectionClosed as exc:
            self._closed = f"disconnected ({exc})"
        except Exception as exc:  # noqa: BLE001 - a bad frame ends this tab, reported
            self._closed = f"reader failed: {type(exc).__name__}: {exc}"
        else:
            self._closed = "disconnected by the server"
        finally:
            if self._closed is None:
                self._closed = "disconnected"
            self._finish(self._closed)

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            ns = msg.new_session
            self._stamp += 1  # a full run starts: what it does not redraw is stale after it
            if not msg.metadata.run.fragment_ids:  # a full run registers its fragments again
                self.auto_reruns.clear()
            # before st.navigation has run, the pages are the files of pages/ (legacy mode)
            self._learn_pages(ns.app_pages, ns.page_script_hash, first=not self.pages)
        elif kind == "navigation":
            nav = msg.navigation
            self._learn_pages(nav.app_pages, nav.page_script_hash, first=True)
        elif kind == "auto_rerun":  # a fragment with run_every: the browser reruns it
            self.auto_reruns[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "stop_auto_rerun":
            for frag in msg.stop_auto_rerun.fragment_ids:
                self.auto_reruns.pop(frag, None)
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self._errors.append(f"page not found: {msg.page_not_found.page_name!r}")
        elif kind == "delta":
            self._delta(msg)
        elif kind == "script_finished":
            status = msg.script_finished
            if status in DONE:
                self._prune(status)
                self._finish(DONE[status])

    def _learn_pages(self, app_pages: Iterable[Any], current: str, first: bool) -> None:
        """The app's pages by URL path (``st.navigation``'s list) and the current page."""
        if first:
            self.pages = {p.url_pathname: p.page_script_hash for p in app_pages} or self.pages
        if current:
            self.page_script_hash = current
            self.page = next((p for p, h in self.pages.items() if h == current), self.page)

    def _delta(self, msg: ForwardMsg) -> None:
        delta = msg.delta
        path = tuple(msg.metadata.delta_path)
        if delta.WhichOneof("type") == "new_element":
            el = delta.new_element
            self.elements[path] = (el, delta.fragment_id, self._stamp)
            self.received.append(el)
            if el.WhichOneof("type") == "exception" and not el.exception.is_warning:
                self._errors.append(f"exception {el.exception.type}: {el.exception.message[:300]}")
        elif delta.WhichOneof("type") == "add_block":
            # a container: kept (with no widget) so that its place counts as drawn
            self.elements[path] = (BLOCK, delta.fragment_id, self._stamp)

    def _prune(self, status: int) -> None:
        """Drop what the run just finished did not redraw (the browser's stale elements)."""
        everything = status != FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY  # else the fragment
        for p, (_, f, s) in list(self.elements.items()):
            if s < self._stamp and (everything or f == self._fragment):
                del self.elements[p]

    def _finish(self, error: str | None) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(error)

    async def _rerun(
        self,
        kind,
        query,
        page_hash="",
        widget=None,
        fragment="",
        page_name="",
        url=None,
        t0=None,
        auto=False,
    ) -> Action:
        """Send ``rerun_script`` (with a ``widget``'s change) and wait for the run's end."""
        t0 = time.monotonic() if t0 is None else t0
        if not self.connected:
            return self._record(kind, None, self._closed or "not connected: arrive first")
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string, cs.page_script_hash, cs.page_name = query, page_hash, page_name
        if widget is not None:
            cs.widget_states.widgets.append(widget)
        if fragment:
            cs.fragment_id = fragment
        cs.is_auto_rerun = auto
        for name, value in CONTEXT.items():
            setattr(cs.context_info, name, value)
        cs.context_info.url = url or f"{self.base}/{self.page}" + (f"?{query}" if query else "")
        self._errors = []
        self.received = []
        self._fragment = fragment
        self._stamp += 1  # a fragment run sends no new_session: stamp it here
        self._waiter = asyncio.get_running_loop().create_future()
        if query != self.query and widget is None:
            self.query = query  # the address bar follows the link at once
        try:
            await self.ws.send(msg.SerializeToString())
            error = await asyncio.wait_for(asyncio.shield(self._waiter), self.timeout)
        except TimeoutError:
            error = f"no script_finished within {self.timeout:g} s"
        except websockets.ConnectionClosed as exc:
            error = f"disconnected ({exc})"
        finally:
            self._waiter = None
        seconds = time.monotonic() - t0
        problems = "; ".join(self._errors + ([error] if error else [])) or None
        lost = error and ("disconnected" in error or error.startswith("no script_finished"))
        return self._record(kind, None if lost else seconds, problems)

    def _record(self, kind: str, seconds: float | None, error: str | None) -> Action:
        ok = error is None and seconds is not None
        seconds = None if seconds is None else round(seconds, 4)
        self.actions.append(Action(kind, self.page, seconds, ok, error, self.query))
        return self.actions[-1]


def _labels(kind: str, proto: Any) -> list[str]:
    if kind == "button_group":
        return [o.content for o in proto.options]
    return list(getattr(proto, "options", []))


def _state_for(kind: str, proto: Any, value: Any) -> WidgetState:
    """The ``WidgetState`` a browser sends for ``value`` in this widget."""
    state = WidgetState(id=proto.id)
    values = value if isinstance(value, list | tuple) else [value]
    labels = _labels(kind, proto)
    missing = [v for v in values if str(v) not in labels]
    if kind == "button_group" or (kind == "slider" and len(labels)):
        if missing:  # a select slider's options are labels too
            raise ValueError(f"{missing} not among the options {labels}")
        state.string_array_value.data.extend(str(v) for v in values)
    elif kind == "slider":
        state.double_array_value.data.extend(float(v) for v in values)
    elif kind in ("selectbox", "radio"):
        if missing:
            raise ValueError(f"{value!r} is not among the options {labels}")
        state.string_value = str(value)
    elif kind == "checkbox":
        state.bool_value = bool(value)
    else:
        raise ValueError(f"setting a {kind} is not supported by the simulator")
    return state


def summary_s(values: list[float]) -> dict[str, float | None]:
    """``{"p50", "p95", "max"}`` of seconds (``None`` each when nothing was measured)."""
    if not values:
        return {"p50": None, "p95": None, "max": None}
    q = {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": max(values)}
    return {k: round(v, 3) for k, v in q.items()}


def widget_key(element_id: str) -> str:
    """The user key inside a Streamlit element id (``$$ID-<hash>-<key>``)."""
    parts = element_id.split("-", 2)
    return parts[2] if len(parts) == 3 else element_id


def _current_index(kind: str, proto: Any) -> int:
    """Index of a select-like widget's current option (set by the page, else its default)."""
    if kind == "slider":  # a select slider: value / default are option indices
        vals = list(proto.value) if proto.set_value else list(proto.default)
        return int(vals[0]) if vals else 0
    if kind == "button_group":
        vals = list(proto.default)
        return int(vals[0]) if vals else -1
    if kind in ("selectbox", "radio"):
        if proto.set_value and proto.HasField("raw_value") and proto.raw_value in proto.options:
            return list(proto.options).index(proto.raw_value)
        return int(proto.default) if proto.HasField("default") else 0
    return 0


def choose_click(s: Student, rng: random.Random) -> tuple[str, Any] | None:
    """A student's next click: ``(how, what)`` (one of the part's controls, or now and then the
    deck's "next" link when it stays on this page), or ``None``."""
    here = s.pages.get(s.page)
    links = s.page_links()
    nxt = [x for x in links if x.page_script_hash == here and "part=" in x.query_string]
    if nxt and rng.random() < NEXT_LINK_SHARE:
        return "link", nxt[-1]  # the deck's links come last: "◂ previous", then "next ▸"
    choices = []
    for wid, (kind, proto) in s.widgets().items():
        key = widget_key(wid)
        if not key.startswith("ui_") and kind in SETTABLE and not getattr(proto, "disabled", False):
            choices.append((key, kind, proto))
    if not choices:
        return ("link", nxt[-1]) if nxt else None
    key, kind, proto = rng.choice(sorted(choices, key=lambda c: c[0]))
    if kind == "button":
        return "press", key
    if kind == "checkbox":
        return "set", (key, not (proto.value if proto.set_value else proto.default))
    labels = s.options(key)
    if kind == "slider" and len(labels) != 1:  # a slider, or a select slider's labels
        return "set", (key, notch(s, key, lambda: rng.random() < 0.5))
    if len(labels) < 2:
        return None
    i = _current_index(kind, proto)
    return "set", (key, labels[rng.choice([k for k in range(len(labels)) if k != i])])


def notch(s: Student, key: str, want_up: Callable[[], bool]) -> Any:
    """A slider's value one notch (an arrow key) from its current one: up when there is room
    and (at the bottom or ``want_up()``), else down."""
    kind, proto, _ = s.widget(key)
    if len(proto.options):  # a select slider: value / default are option indices
        labels = s.options(key)
        return labels[_step(_current_index(kind, proto), 0, len(labels) - 1, 1, want_up)]
    vals = list(proto.value) if proto.set_value else list(proto.default)
    value = _step(vals[0] if vals else proto.min, proto.min, proto.max, proto.step or 1, want_up)
    return [value] + vals[1:2] if len(vals) == 2 else value


def _step(now, lo, hi, step, want_up: Callable[[], bool]):
    up = now + step <= hi and (now - step < lo or want_up())
    return now + step if up else now - step


async def do_click(s: Student, rng: random.Random) -> Action:
    """One realistic click (see :func:`choose_click`)."""
    choice = choose_click(s, rng)
    if choice is None:
        return s._record("click", None, f"nothing to click on {s.page or 'home'}")
    how, what = choice
    if how == "link":
        return await s.open_link(what)
    return await (s.press(what) if how == "press" else s.set(*what))


def walk_stops(lang: str = "zh") -> list[tuple[str, str]]:
    """The deck as ``(page, query)`` stops, as its "next ▸" links write them."""
    from ui.nav import deck

    out = []
    for stop in deck():
        query = f"lang={lang}&present=0" + (f"&part={stop.part}" if stop.part else "")
        out.append(("" if stop.slug == "home" else stop.slug, query))
    return out


@dataclass
class ClassPlan:
    """A class to play; through nginx also its port and the logs' folder."""

    sizes: list[int]
    page: tuple[str, str] = TEACHER_PAGE
    scenario: str = "page"  # "page": the teacher's page and its controls; "walk": the deck
    arrive_within: float = 10.0
    duration: float = 120.0  # s of clicks after each student's arrival
    click_every: tuple[float, float] = (5.0, 10.0)
    seed: int = 0
    timeout: float = 60.0  # s before an action (or an arrival's HTTP request) is lost
    port: int | None = None
    keep_logs: Any = None  # a Path

    @classmethod
    def from_args(cls, args, **more) -> ClassPlan:
        """The plan of ``python -m bench class`` (its parsed arguments)."""
        page = TEACHER_PAGE if args.scenario == "page" else ("", "lang=zh")
        return cls(
            args.klass, page, args.scenario, args.class_arrive, args.class_duration,
            seed=args.seed, timeout=args.class_timeout, port=args.port, **more,
        )  # fmt: skip

    def meta(self) -> dict:
        return {
            "scenario": self.scenario,
            "class_sizes": self.sizes,
            "arrive_within_s": self.arrive_within,
            "duration_s": self.duration,
            "click_every_s": list(self.click_every),
            "seed": self.seed,
        }


async def _student(s: Student, start: float, rng: random.Random, plan: ClassPlan, stops) -> None:
    """One student: arrives at ``start`` (time.monotonic()), then clicks for ``plan.duration`` s."""
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    arrival = await s.arrive(*stops[0])
    end = time.monotonic() + plan.duration
    k = 0
    while arrival.ok and s.connected:
        wait = rng.uniform(*plan.click_every)
        if time.monotonic() + wait >= end:
            break
        await asyncio.sleep(wait)
        if plan.scenario == "walk":
            k = (k + 1) % len(stops)
            await s.click(stops[k][1], page=stops[k][0] or "home")
        else:
            await do_click(s, rng)


async def run_class(
    base_url: str, n: int, plan: ClassPlan, server_pid: int | None = None, source: str | None = None
) -> dict:
    """``n`` students of ``plan`` (from the local address ``source``, one school NAT): the
    figures of :func:`class_stats`, within ``arrive_within + duration`` and a few timeouts."""
    lang = urllib.parse.parse_qs(plan.page[1]).get("lang", ["zh"])[-1]
    stops = walk_stops(lang) if plan.scenario == "walk" else [plan.page]
    master = random.Random(plan.seed)
    offsets = sorted(master.uniform(0, plan.arrive_within) for _ in range(n))
    rngs = [random.Random(master.random()) for _ in range(n)]
    load_start = procs.load_average()
    cpu0 = procs.cpu_seconds(server_pid) if server_pid else None
    students = [
        Student(base_url, timeout=plan.timeout, name=f"student{i}", source_address=source)
        for i in range(n)
    ]
    with procs.RssSampler({"peak": server_pid} if server_pid else {}) as rss:
        t0 = time.monotonic()
        await asyncio.gather(
            *(_student(s, t0 + off, r, plan, stops) for s, off, r in zip(students, offsets, rngs))
        )
        wall = time.monotonic() - t0
        connected = sum(s.connected for s in students)
    cpu1 = procs.cpu_seconds(server_pid) if server_pid else None
    await asyncio.gather(*(s.__aexit__() for s in students))
    extra = {"scenario": plan.scenario, "page": stops[0][0] or "home", "query": stops[0][1]}
    extra |= {k: v for k, v in plan.meta().items() if k not in ("scenario", "class_sizes")}
    extra |= {"connected_at_end": connected, "load_start": load_start}
    extra["load_end"] = procs.load_average()
    cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    return class_stats(students, n, wall, cpu, rss.peak("peak")) | extra


def class_stats(students: list[Student], n: int, wall: float, cpu, rss_peak) -> dict:
    """The figures of a class: arrive_s, click_s, errors, sessions, rss_mb, cpu_s, details."""
    actions = [a for s in students for a in s.actions]
    arrivals = [a for a in actions if a.kind == "arrive"]
    clicks = [a for a in actions if a.kind != "arrive"]
    failed = [a for a in actions if not a.ok]
    samples = Counter(f"{a.kind}: {(a.error or '?')[:160]}" for a in failed)
    phases = {
        name: summary_s([a.phases[name] for a in arrivals if a.ok and name in a.phases])
        for name in ("http", "connect", "run")
    }
    return {
        "arrive_s": summary_s([a.seconds for a in arrivals if a.ok]),
        "click_s": summary_s([a.seconds for a in clicks if a.ok]),
        "errors": len(failed),
        "sessions": n,
        "rss_mb": rss_peak,
        "cpu_s": None if cpu is None else round(cpu, 2),
        "arrived": sum(a.ok for a in arrivals),
        "clicks": len(clicks),
        "clicks_ok": sum(a.ok for a in clicks),
        "arrive_phases_s": phases,
        "wall_s": round(wall, 1),
        "cpu_cores_busy": None if cpu is None or wall <= 0 else round(cpu / wall, 2),
        "error_samples": dict(samples.most_common(8)),
    }
