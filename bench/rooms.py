"""Four classes on one link: each class's teacher opens a poll in a room of its own, its
students arrive (all classes within one minute), vote from their phones and watch the room
refresh every 2 s, then the teacher reveals; through the repo's nginx onto replicas sharing one
PostgreSQL on this machine (``tests/pg.py``'s throwaway server, on a Unix socket).

Every class comes from an address of its own (a school's NAT each). What each simulated phone
and projector was shown is kept (:class:`Seen`: texts, room codes, histograms) and checked
against what its own class did (:class:`Truth`) by :func:`cross_talk`: a class that saw another
room's question, room code or votes is cross-talk.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import random
import secrets
import shutil
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench import procs
from bench import scaleout as S
from bench.capacity import Samplers, pyspy
from bench.classroom import Action, Student, summary_s
from bench.procs import LOGS
from core.i18n import translate

QUESTIONS = ("attention_cat", "rnn_fade", "lm_next", "path_longest")  # a room's question each
LANG = "en"
COOKIE = "road_browser"  # the poll's browser cookie (poll.views.COOKIE)
HIST = "poll_hist"  # the keys of the room's histograms (projector and revealed phone)
KNOB = (20, 30)  # the race's longest sentence, by class (lessons.live.common.LENGTHS)
FIRST_RACER = "plain"  # core.live.MODELS[0]: the loss chart's first line
RACE_CHART = "live_loss"  # the key of the race's loss chart (lessons/live/race.py)
RACE_SLACK_S = 3.0  # a phone may be sent records the bench's sampling of the database saw later
CHANGE_SHARE = 0.3  # students who change their vote once before the reveal


def class_address(k: int) -> str:
    """Class ``k``'s own address (one school NAT each)."""
    return f"127.0.1.{k + 1}"


@dataclass
class Seen:
    """What one phone or projector was shown, from the messages it received."""

    klass: int
    role: str  # "teacher" or "student"
    texts: set[str] = field(default_factory=set)  # every text of every element received
    queries: set[str] = field(default_factory=set)  # the address bar's query strings
    histograms: list[list[int]] = field(default_factory=list)  # every histogram, in order
    revealed: list[int] | None = None  # the last histogram once the poll was revealed
    races: list[RaceView] = field(default_factory=list)  # every race chart it was sent

    def take(self, s: Student) -> None:
        """Keep what the last action of ``s`` received."""
        for el in s.received:
            kind = el.WhichOneof("type")
            proto = getattr(el, kind) if kind else None
            names = proto.DESCRIPTOR.fields_by_name if proto is not None else ()
            for n in ("body", "label", "text", "caption"):
                v = getattr(proto, n) if n in names else None
                if isinstance(v, str) and v:
                    self.texts.add(v)
        self.queries.add(s.query)
        for _, counts in histograms(s):
            self.histograms.append(counts)
        for _, spec in charts(s, RACE_CHART):
            self.races.append(RaceView.of(spec))


@dataclass(frozen=True)
class RaceView:
    """A race's loss chart as a phone was sent it: when, the steps, the first model's losses."""

    at: float  # time.monotonic() when it arrived
    steps: tuple[float, ...]
    losses: tuple[float, ...]

    @classmethod
    def of(cls, spec: dict, at: float | None = None) -> RaceView:
        traces = [t for t in spec.get("data", []) if t.get("x") is not None]
        first = traces[0] if traces else {}
        steps, losses = _numbers(first.get("x")), _numbers(first.get("y"))
        return cls(time.monotonic() if at is None else at, tuple(steps), tuple(losses))


@dataclass
class Race:
    """A room's race as the database kept it: its records (each ``(step, loss)`` of the chart's
    first model) and, sampled while the classes ran, how many it had when (``seen``)."""

    id: str
    records: list[tuple[float, float]]
    seen: list[tuple[float, int]] = field(default_factory=list)  # (time.monotonic(), records)

    def had(self, at: float, slack: float) -> int:
        """The most records it was sampled with up to ``slack`` s after ``at``."""
        return max((n for t, n in self.seen if t <= at + slack), default=0)

    def shows(self, view: RaceView) -> bool:
        """Whether ``view`` draws the first records of this race, exactly."""
        n = len(view.steps)
        mine = self.records[:n]
        return len(mine) == n and all(
            s == v_s and abs(loss - v_l) <= 1e-9 * max(1.0, abs(loss))
            for (s, loss), v_s, v_l in zip(mine, view.steps, view.losses, strict=True)
        )


@dataclass
class Truth:
    """What a class did: its room, its question's text, its phones' votes, its race."""

    room: str
    question: str
    counts: list[int]  # the phones' last vote per answer, as their own screens confirmed
    race: Race | None = None


def _numbers(values) -> list[float]:
    """A plotly array: a list, or a typed array (``{"dtype", "bdata"}``)."""
    if isinstance(values, dict) and "bdata" in values:
        import numpy as np

        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values or [])


def histogram_counts(spec: dict) -> list[int]:
    """The votes per answer a histogram chart draws (its bars in x order)."""
    bars: dict[str, float] = {}
    order: list[str] = []
    for trace in spec.get("data", []):
        for x, y in zip(_numbers(trace.get("x")), _numbers(trace.get("y")), strict=False):
            key = str(x)
            if key not in bars:
                order.append(key)
            bars[key] = y
    return [int(bars[k]) for k in order]


def charts(s: Student, key: str) -> list[tuple[str, dict]]:
    """The app's charts whose element id holds ``key`` among the elements ``s`` received last:
    ``(element id, plotly spec)``."""
    out = []
    for el in s.received:
        if el.WhichOneof("type") != "bidi_component" or key not in el.bidi_component.id:
            continue
        try:
            spec = json.loads(el.bidi_component.bytes)["spec"]
        except (ValueError, KeyError, TypeError):
            continue
        out.append((el.bidi_component.id, spec))
    return out


def histograms(s: Student) -> list[tuple[str, list[int]]]:
    """The room's histograms ``s`` received last: ``(element id, counts)``."""
    return [(i, histogram_counts(spec)) for i, spec in charts(s, HIST)]


def room_of_query(query: str) -> str | None:
    return urllib.parse.parse_qs(query).get("room", [None])[-1]


def _shown(code: str) -> set[str]:
    """How a room code can appear on screen: as typed, and read aloud in two halves."""
    return {code, f"{code[:4]} {code[4:]}"}


def cross_talk(seen: Iterable[Seen], truth: dict[int, Truth]) -> dict[int, list[str]]:
    """Per class, what its phones and projector were shown of another class (question text,
    room code, race), and histograms that are not its own room's: more votes than its own
    phones cast, or, once revealed, other counts than its own votes. Empty lists: none."""
    problems: dict[int, list[str]] = {k: [] for k in truth}
    for s in seen:
        mine = truth[s.klass]
        out = problems.setdefault(s.klass, [])
        who = f"{s.role} of class {s.klass}"
        for k, other in truth.items():
            if k == s.klass:
                continue
            if other.question != mine.question and other.question in s.texts:
                out.append(f"{who} saw class {k}'s question")
            if any(code in text for code in _shown(other.room) for text in s.texts):
                out.append(f"{who} saw class {k}'s room code")
            if other.race and any(
                other.race.shows(v) and not (mine.race and mine.race.shows(v))
                for v in s.races
                if v.steps
            ):
                out.append(f"{who} saw class {k}'s race")
        rooms = {room_of_query(q) for q in s.queries} - {None}
        if rooms - {mine.room}:
            out.append(f"{who} was in room(s) {sorted(rooms - {mine.room})}")
        for counts in s.histograms:
            if len(counts) != len(mine.counts) or sum(counts) > sum(mine.counts):
                out.append(f"{who} saw a histogram {counts} beside its own {mine.counts}")
                break
        if s.revealed is not None and s.revealed != mine.counts:
            out.append(f"{who}: revealed {s.revealed}, its class voted {mine.counts}")
        for v in s.races:
            if not v.steps:
                continue
            if mine.race is None or not mine.race.shows(v):
                out.append(f"{who} was sent a race that is not its room's")
                break
            had = mine.race.had(v.at, RACE_SLACK_S)
            if len(v.steps) > had:
                out.append(
                    f"{who} was sent {len(v.steps)} records of a race when its own had {had}"
                )
                break
    return {k: sorted(set(v)) for k, v in problems.items()}


@dataclass
class RoomsPlan:
    classes: int = 4
    students: int = 50  # per class
    arrive_within: float = 60.0  # every class's students arrive within this
    vote_for: float = 20.0  # s after the last arrival before the teachers reveal
    after: float = 25.0  # s after the reveal: the phones follow the link to their room's race
    seed: int = 0
    timeout: float = 60.0
    port: int = S.NGINX_PORT
    replicas: int = 2

    def meta(self) -> dict:
        keys = ("classes", "students", "arrive_within", "vote_for", "after", "seed", "replicas")
        return {k: getattr(self, k) for k in keys} | {"questions": list(QUESTIONS[: self.classes])}


def _browser(s: Student) -> str:
    """A browser id of its own for ``s`` (the id the poll page's cookie holds)."""
    browser = secrets.token_urlsafe(24)
    s.set_cookie(COOKIE, browser)
    return browser


async def _act(s: Student, seen: Seen, action) -> Action:
    a = await action
    seen.take(s)
    return a


async def _refresh_until(s: Student, seen: Seen, until: float, refreshes: list[Action]) -> None:
    """The browser's timed fragment reruns until ``until`` (the most frequent one's: a page
    watching a race reruns its panel every second, its slower watch is left out)."""
    while s.connected and s.auto_reruns:
        frag, every = min(s.auto_reruns.items(), key=lambda kv: kv[1])
        if time.monotonic() + every >= until:
            return
        await asyncio.sleep(every)
        refreshes.append(await _act(s, seen, s.refresh(frag)))


def _my_vote(s: Student, labels: list[str]) -> int | None:
    """The answer this phone's own screen marks as its vote (``✓ label``)."""
    for kind, proto in s.widgets().values():
        if kind == "button" and proto.label.startswith("✓ "):
            name = proto.label[2:]
            if name in labels:
                return labels.index(name)
    return None


@dataclass
class Phone:
    klass: int
    s: Student
    seen: Seen
    votes: list[Action] = field(default_factory=list)  # its answer buttons
    refreshes: list[Action] = field(default_factory=list)  # the poll room's, every 2 s
    race_link: Action | None = None  # the link to its room's race, after the reveal
    race_refreshes: list[Action] = field(default_factory=list)  # the race page's
    arrival: Action | None = None
    vote: int | None = None  # its last vote, as its screen confirmed


async def _student(p: Phone, t: Teacher, labels, start, reveal_at, end, rng) -> None:
    race_at = reveal_at + rng.uniform(6, 10)  # a refresh or two has shown the reveal
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    await t.opened_event.wait()  # the code a phone scans is on the projector once it opened
    if not t.room:
        p.arrival = p.s._record("arrive", None, f"class {t.klass}'s teacher opened no room")
        return
    p.arrival = await _act(p.s, p.seen, p.s.arrive("poll", f"room={t.room}&lang={LANG}"))
    if not p.arrival.ok:
        return
    times = [time.monotonic() + rng.uniform(2, 6)]
    if rng.random() < CHANGE_SHARE:
        times.append(times[0] + rng.uniform(4, 10))
    for at in times:
        if at >= reveal_at - 1:
            break
        await _refresh_until(p.s, p.seen, at, p.refreshes)
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        a = await _act(p.s, p.seen, p.s.press(f"poll_answer_{rng.randrange(len(labels))}"))
        p.votes.append(a)
        p.vote = _my_vote(p.s, labels) if a.ok else p.vote
    await _refresh_until(p.s, p.seen, race_at, p.refreshes)
    p.seen.revealed = next((c for c in reversed(p.seen.histograms)), None)
    if not p.s.connected:
        return
    await asyncio.sleep(max(0.0, race_at - time.monotonic()))
    # the poll's link to its room's race (the teacher moves the class on to it)
    p.race_link = await _act(p.s, p.seen, p.s.click(f"room={t.room}&lang={LANG}", page="live"))
    await _refresh_until(p.s, p.seen, end, p.race_refreshes)


@dataclass
class Teacher:
    klass: int
    s: Student
    seen: Seen
    room: str | None = None
    opened: Action | None = None
    reveal: Action | None = None
    refreshes: list[Action] = field(default_factory=list)
    before_reveal: list[int] | None = None  # the projector's histogram just before Reveal
    live: Student | None = None  # a second tab of the same browser: the room's race
    started: Action | None = None  # its Start
    opened_event: asyncio.Event = field(default_factory=asyncio.Event)


async def _teacher(t: Teacher, question: str, reveal_at: float, end: float) -> None:
    t.opened = await _act(t.s, t.seen, t.s.arrive("poll", f"ask={question}&lang={LANG}&present=1"))
    t.room = room_of_query(t.s.query)
    t.opened_event.set()
    if not t.opened.ok or not t.room:
        return
    race = asyncio.create_task(_race_tab(t, end))
    await _refresh_until(t.s, t.seen, reveal_at, t.refreshes)
    await asyncio.sleep(max(0.0, reveal_at - time.monotonic()))
    refreshed = await _act(t.s, t.seen, t.s.refresh(next(iter(t.s.auto_reruns), "")))
    t.refreshes.append(refreshed)
    t.before_reveal = t.seen.histograms[-1] if t.seen.histograms else None
    t.reveal = await _act(t.s, t.seen, t.s.press_labelled(translate("poll.reveal", LANG)))
    await _refresh_until(t.s, t.seen, end, t.refreshes)
    t.seen.revealed = t.seen.histograms[-1] if t.seen.histograms else None
    await race


async def _race_tab(t: Teacher, end: float) -> None:
    """The teacher's second tab: the room's race page, its knob (20 or 30 words, by class, so
    that two rooms' races differ), Start, then watching it until ``end``."""
    s = t.live
    a = await _act(s, t.seen, s.arrive("live", f"room={t.room}&lang={LANG}&present=1"))
    t.refreshes.append(a)
    if not a.ok:
        return
    words = translate("live.race.knob.words", LANG, n=KNOB[t.klass % len(KNOB)])
    t.refreshes.append(await _act(s, t.seen, s.set("live_max_len", words)))
    t.started = await _act(s, t.seen, s.press("live_start"))
    await _refresh_until(s, t.seen, end, t.refreshes)


def class_figures(k: int, t: Teacher, phones: list[Phone], truth: Truth, problems) -> dict:
    """One class's figures: arrivals, votes (its clicks), refreshes, errors, cross-talk."""
    mine = [p for p in phones if p.klass == k]
    actions = [
        a
        for p in mine
        for a in (p.arrival, *p.votes, p.race_link, *p.refreshes, *p.race_refreshes)
        if a is not None
    ]

    def secs(pick) -> dict:
        return summary_s([a.seconds for p in mine for a in pick(p) if a is not None and a.ok])

    actions += [a for a in (t.opened, t.reveal, t.started, *t.refreshes) if a is not None]
    failed = [a for a in actions if not a.ok]
    return {
        "room": t.room,
        "students": len(mine),
        "arrived": sum(bool(p.arrival and p.arrival.ok) for p in mine),
        "arrive_s": summary_s([p.arrival.seconds for p in mine if p.arrival and p.arrival.ok]),
        "click_s": secs(lambda p: [*p.votes, p.race_link]),  # what a student pressed
        "vote_s": secs(lambda p: p.votes),
        "race_link_s": secs(lambda p: [p.race_link]),
        "refresh_s": secs(lambda p: p.refreshes),  # the poll room's timed reruns
        "race_refresh_s": secs(lambda p: p.race_refreshes),  # the race page's
        "teacher": {
            "open_s": t.opened.seconds if t.opened else None,
            "reveal_s": t.reveal.seconds if t.reveal else None,
            "race_start_s": t.started.seconds if t.started else None,
            "refresh_s": summary_s([a.seconds for a in t.refreshes if a.ok]),
            "histogram_before_reveal": t.before_reveal,
            "histogram_revealed": t.seen.revealed,
        },
        "votes_cast": truth.counts,
        "phones_shown_its_question": sum(truth.question in p.seen.texts for p in mine),
        "phones_shown_its_reveal": sum(p.seen.revealed == truth.counts for p in mine),
        "clicks": sum(len(p.votes) + (p.race_link is not None) for p in mine),
        "errors": len(failed),
        "error_samples": sorted({(a.error or "?")[:160] for a in failed})[:6],
        "cross_talk": problems,
        "saw_only_its_own": not problems,
    }


class RaceWatch:
    """The rooms' races in the database, sampled every ``every`` s in a thread: how many
    records each had when (:attr:`Race.seen`), then all of them (:attr:`Race.records`)."""

    def __init__(self, url: str, rooms: dict[int, str], every: float = 1.0) -> None:
        from poll.runs import RunStore

        self.store, self.rooms, self.every = RunStore.at(url), rooms, every
        self.races: dict[int, Race] = {}
        self.statuses: dict[int, list[str]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="race-watch", daemon=True)

    def _look(self, final: bool = False) -> None:
        for k, room in self.rooms.items():
            run = self.store.latest(room)
            if run is None:
                continue
            race = self.races.get(k)
            if race is None or race.id != run.id:
                race = self.races[k] = Race(run.id, [])
            race.seen.append((time.monotonic(), len(run.progress)))
            seen = self.statuses.setdefault(k, [])
            if not seen or seen[-1] != run.status:
                seen.append(run.status)
            if final:
                race.records = [(r["step"], r["loss"][FIRST_RACER]) for r in run.progress]

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(Exception):  # a slow or busy database: the next look
                self._look()

    def __enter__(self) -> RaceWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(30)
        self._look(final=True)


def truths(
    teachers: list[Teacher], phones: list[Phone], labels: dict[int, list[str]], races=None
) -> dict[int, Truth]:
    from poll import questions as pq

    out = {}
    for t in teachers:
        counts = [0] * len(labels[t.klass])
        for p in phones:
            if p.klass == t.klass and p.vote is not None:
                counts[p.vote] += 1
        text = pq.BY_ID[QUESTIONS[t.klass]].text(lambda key, **f: translate(key, LANG, **f))
        out[t.klass] = Truth(t.room or "", text, counts, (races or {}).get(t.klass))
    return out


async def play(cl: procs.Cluster, plan: RoomsPlan, db_url: str) -> dict:
    from poll import questions as pq

    rng = random.Random(plan.seed)
    t0 = time.monotonic()
    labels = {}
    teachers = []
    for k in range(plan.classes):
        q = pq.BY_ID[QUESTIONS[k]]
        labels[k] = q.answer_labels(lambda key, **f: translate(key, LANG, **f))
        s = Student(cl.base, timeout=300, name=f"teacher{k}", source_address=class_address(k))
        live = Student(cl.base, timeout=300, name=f"race{k}", source_address=class_address(k))
        live.set_cookie(COOKIE, _browser(s))  # the same browser: the room's teacher
        teachers.append(Teacher(k, s, Seen(k, "teacher"), live=live))
    last = t0 + 5 + plan.arrive_within
    reveal_at = last + plan.vote_for
    end = reveal_at + plan.after
    procs.log(f"{plan.classes} classes of {plan.students}: teachers open their rooms")
    tasks = [_teacher(t, QUESTIONS[t.klass], reveal_at, end) for t in teachers]
    opened = asyncio.gather(*tasks)
    await asyncio.sleep(5.0)  # the teachers have opened their rooms before students come
    phones = []
    for k, t in enumerate(teachers):
        for i in range(plan.students):
            s = Student(
                cl.base, timeout=plan.timeout, name=f"c{k}s{i}", source_address=class_address(k)
            )
            _browser(s)
            phones.append(Phone(k, s, Seen(k, "student")))
    starts = [t0 + 5 + rng.uniform(0, plan.arrive_within) for _ in phones]
    rngs = [random.Random(rng.random()) for _ in phones]
    await asyncio.gather(*(t.opened_event.wait() for t in teachers))
    rooms = {t.klass: t.room for t in teachers if t.room}
    procs.log(f"rooms {rooms}; students arrive within {plan.arrive_within:g} s")
    with RaceWatch(db_url, rooms) as watch:
        await asyncio.gather(
            opened,
            *(
                _student(p, teachers[p.klass], labels[p.klass], at, reveal_at, end, r)
                for p, at, r in zip(phones, starts, rngs, strict=True)
            ),
        )
    truth = truths(teachers, phones, labels, watch.races)
    problems = cross_talk([t.seen for t in teachers] + [p.seen for p in phones], truth)
    out = {
        str(k): class_figures(k, t, phones, truth[k], problems[k]) for k, t in enumerate(teachers)
    }
    for k, figs in out.items():
        race = watch.races.get(int(k))
        figs["race"] = {
            "id": race.id if race else None,
            "statuses": watch.statuses.get(int(k), []),
            "records": len(race.records) if race else 0,
            "knob_words": KNOB[int(k) % len(KNOB)],
            "phones_on_its_page": sum(bool(p.seen.races) for p in phones if p.klass == int(k)),
            "phones_shown_its_records": sum(
                any(v.steps for v in p.seen.races) for p in phones if p.klass == int(k)
            ),
        }
    for x in [*teachers, *phones]:
        await x.s.__aexit__()
    for t in teachers:
        await t.live.__aexit__()
    return out


def run(args) -> dict:
    from tests import pg

    plan = RoomsPlan(
        args.classes, args.students, args.arrive_within, args.vote_for, seed=args.seed,
        timeout=args.class_timeout, port=args.port, replicas=args.replicas,
    )  # fmt: skip
    meta = procs.run_meta() | plan.meta()
    meta["through"] = "nginx from deploy/nginx/ onto replicas sharing one PostgreSQL"
    meta["clients"] = "the simulated phones run on this machine too"
    result: dict = {"meta": meta, "classes": {}}
    errors: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="road-rooms-pg-"))
    server = None
    try:
        server = pg.start(folder)
        meta["database"] = f"PostgreSQL {server.bin.parent.name} (Unix socket)"
        with procs.cluster(
            plan.replicas, plan.port, env={"ROAD_DATABASE_URL": server.url},
            keep_logs=LOGS, label="rooms",
        ) as cl:  # fmt: skip
            page = ("", f"lang={LANG}")  # a lesson page starts the warm-up (the join form stops)
            procs.log(f"{plan.replicas} replicas and PostgreSQL up: warming up")
            warm, errs = asyncio.run(S.warm_replicas(cl, page))
            errors += errs
            before = S._snapshot(cl)
            pids = {r.upstream: r.pid for r in cl.replicas}
            with Samplers(pids, LOGS, "rooms", pyspy() is not None) as gil:
                result["classes"] = asyncio.run(play(cl, plan, server.url))
            after = S._snapshot(cl)
            wall = after["at"] - before["at"]
            busy = S._minus(after["machine"], before["machine"])
            result["cpu"] = {
                "replicas_cpu_s": {
                    u: S._minus(after["replicas"][u], before["replicas"][u])
                    for u in after["replicas"]
                },
                "nginx_cpu_s": S._minus(after["nginx"], before["nginx"]),
                "clients_cpu_s": S._minus(after["own"], before["own"]),
                "machine_busy_cores": None if busy is None else round(busy / wall, 2),
                "gil": {u: gil.figures(u) for u in pids},  # each replica's lock, by 10-s window
                "window_s": round(wall, 1),
            }
            result["warm"] = warm
    except (RuntimeError, OSError) as exc:
        errors.append(f"rooms: {type(exc).__name__}: {exc}")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    classes = result["classes"].values()
    result["goals"] = {
        "cross_talk": sum(len(c["cross_talk"]) for c in classes),
        "errors": sum(c["errors"] for c in classes),
        "click_p95_max_s": max((c["click_s"]["p95"] or 0 for c in classes), default=None),
    }
    g = result["goals"]
    g["met"] = bool(classes) and g["cross_talk"] == 0 and g["errors"] == 0
    g["met"] = g["met"] and g["click_p95_max_s"] is not None and g["click_p95_max_s"] <= 1.0
    result["meta"]["load_end"] = procs.load_average()
    result["errors"] = errors
    return result


def table(result: dict) -> str:
    """Markdown: a row per class (p95s in seconds), then the goals."""
    cols = ("arrive_s", "click_s", "vote_s", "race_link_s", "refresh_s", "race_refresh_s")
    rows = [
        "| class | room | arrived | arrival | clicks | votes | race link | poll refresh "
        "| race refresh | errors | race | saw only its own |\n|---|---|" + "---:|" * 8 + "---|---|"
    ]
    for k, c in result.get("classes", {}).items():
        p95 = " | ".join(str((c.get(col) or {}).get("p95")) for col in cols)
        race = c.get("race") or {}
        own = "yes" if c["saw_only_its_own"] else "; ".join(c["cross_talk"])
        rows.append(
            f"| {k} | {c['room']} | {c['arrived']}/{c['students']} | {p95} | {c['errors']} "
            f"| {'/'.join(race.get('statuses') or ['none'])} | {own} |"
        )
    return "\n".join(rows) + f"\n\np95 in seconds; goals: {result.get('goals')}"
