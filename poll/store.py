"""Class polls and votes in SQLite (default) or PostgreSQL, through SQLAlchemy Core.

One small interface (:class:`PollStore`), one short transaction a call. A *browser id* is
a random token the browser keeps (``poll.views``). The opener's browser is the poll's teacher:
only a teacher browser reveals, closes, resets, moves on, or adds another device with a
one-time code (:data:`HANDOVER_S` s, single use). A vote is one row per browser id and
round (the primary key refuses a second), changeable while the poll is open. A question is
asked in round 1 (alone) and, after the teacher's "discuss, then vote again", in round 2
(:meth:`PollStore.discuss`): every round is a row of ``poll_rounds`` (its question and
stage), so both rounds' counts and how many changed their mind stay readable (:class:`Rounds`).
A concept check (``concept_answers``) is answered before and after the lesson by the same
browsers (matched by their voter digest, never shown). Only SHA-256
digests of browser ids and codes are kept; no names, no IP addresses; a poll is deleted
with everything of it :data:`TTL_S` (24 h) after it was opened.

Open polls are limited per teacher browser (:data:`MAX_OPEN_PER_TEACHER`), per client
address (:data:`MAX_OPEN_PER_ADDRESS`, sized for a school behind one address) and, as a last
guard, per database (:data:`MAX_OPEN_POLLS`). A poll nobody voted in, changed or showed on a
teacher's screen for :data:`IDLE_S` (30 min) is closed. The address is kept only as a keyed
digest (HMAC-SHA-256, :func:`address_key`), only while its poll is open.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

# Room codes: 31**8 ≈ 8.5e11 codes (39.6 bits); with at most MAX_OPEN_POLLS open, a guess
# hits one with probability below 1.2e-9 (and the UI limits guesses); a room code gives
# only a student's rights anyway.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud and typed on phones
CODE_LEN = 8
TTL_S = 24 * 3600  # a poll and its votes are deleted a day after it was opened
MAX_ANSWERS = 8  # answers a question may offer
MAX_VOTERS = 500  # voters one poll counts (a lecture hall)
MAX_OPEN_POLLS = 1000  # polls open at once in one database: the last guard only
MAX_OPEN_PER_TEACHER = 3  # open polls of one teacher browser (a class reuses its room)
MAX_OPEN_PER_ADDRESS = 40  # open polls from one address: a school's teachers behind one NAT
IDLE_S = 30 * 60  # an open poll without a vote, a change or a teacher's screen: closed
TOUCH_S = 5 * 60  # a teacher's screen showing an open poll marks it active this often
VOTE_TOUCH_S = 60  # ... and a vote, at most this often (one more write per minute, not per vote)
ADDRESS_KEY_ENV = "ROAD_ADDRESS_KEY"  # the key of the address digests (else one in the database)
STATES = ("open", "closed", "revealed")
HANDOVER_S = 120  # a hand-over code works once, within two minutes
CLASS_S = 3 * 3600  # a room opened this recently: a class is on (see teacher_room)
MAX_TEACHERS = 4  # teacher browsers of one poll (the projector, a phone, a tablet, ...)
BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")  # what poll.views's cookie may hold

DATA_DIR_ENV = "ROAD_DATA_DIR"  # where the SQLite file lives
DB_URL_ENV = "ROAD_DATABASE_URL"  # e.g. postgresql+psycopg://user@/road?host=/run/pg


def default_data_dir() -> Path:
    """``$ROAD_DATA_DIR``, else ``~/.road_to_attention`` (a laptop; the Docker image sets
    ``ROAD_DATA_DIR=/data``)."""
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env) if env else Path.home() / ".road_to_attention"


def default_url() -> str:
    """``$ROAD_DATABASE_URL`` if set (PostgreSQL for several replicas), else a SQLite file
    ``polls.sqlite3`` in :func:`default_data_dir`."""
    url = os.environ.get(DB_URL_ENV)
    if url:
        return url
    folder = default_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'polls.sqlite3'}"


class PollError(Exception):
    """A refused poll action. ``reason`` is a stable word the UI translates:
    ``bad_code``, ``no_poll``, ``expired``, ``not_teacher``, ``closed``, ``bad_answer``,
    ``full`` (voters), ``too_many`` (open polls in the database), ``too_many_teacher``
    (open polls of this browser), ``too_many_address`` (open polls from this address),
    ``bad_question``, ``bad_browser``
    (a malformed browser id), ``bad_handover`` (a wrong, used or expired hand-over code),
    ``second_round`` (this question was already voted on again), ``no_check`` (no concept
    check is open on the phones)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Poll:
    code: str
    question: str  # a question id of poll.questions
    n_answers: int
    state: str  # "open", "closed" or "revealed"
    created: float  # unix time
    round: int  # 1, 2, ...: "next question", "reset" and "vote again" start a new round
    active: float = 0.0  # unix time of the last vote, change or teacher's look (see IDLE_S)
    stage: int = 1  # 1: the question's first vote (alone); 2: after "discuss, then vote again"
    check: str | None = None  # the concept check on the screens: "pre", "post", "gain", None

    @property
    def first_round(self) -> int | None:
        """In stage 2, the round its voters answered alone (the round before)."""
        return self.round - 1 if self.stage == 2 else None


@dataclass(frozen=True)
class Tally:
    counts: tuple[int, ...]  # votes per answer, in the question's order
    voters: int


@dataclass(frozen=True)
class Rounds:
    """A question asked twice: round 1 (alone) and round 2 (after discussing)."""

    first: Tally
    second: Tally
    moves: dict[tuple[int, int], int]  # (answer in round 1, answer in round 2) -> browsers
    both: int  # browsers that voted in both rounds

    @property
    def changed(self) -> int:
        """Browsers whose round-2 answer differs from their round-1 answer."""
        return sum(n for (a, b), n in self.moves.items() if a != b)


@dataclass(frozen=True)
class RoundRow:
    """One round of a room, as ``poll_rounds`` keeps it (for the teacher's CSV)."""

    round: int
    question: str
    n_answers: int
    stage: int
    opened: float
    counts: tuple[int, ...]


CHECK_PHASES = ("pre", "post")  # a concept check's answering phases
CHECK_SHOWN = (*CHECK_PHASES, "gain")  # what the room's screens may show of it
MAX_ITEMS = 8  # questions a concept check may hold


metadata = sa.MetaData()
polls = sa.Table(
    "polls",
    metadata,
    sa.Column("code", sa.String(CODE_LEN), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),  # the opener's browser
    sa.Column("question", sa.String(64), nullable=False),
    sa.Column("n_answers", sa.Integer, nullable=False),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    # added in version 2 (NULL in a row an older replica wrote: read as created / no address)
    sa.Column("active", sa.Float, nullable=True),  # last vote, change or teacher's look
    sa.Column("address_hash", sa.String(64), nullable=True),  # keyed digest, while open
    # added in version 3 (NULL in a row an older replica wrote: stage 1, no concept check)
    sa.Column("stage", sa.Integer, nullable=True),  # 1 alone, 2 after discussing
    sa.Column("check_phase", sa.String(4), nullable=True),  # "pre" / "post" on the phones
)
rounds = sa.Table(  # every round a room asked: its question and stage (version 3)
    "poll_rounds",
    metadata,
    sa.Column("code", sa.String(CODE_LEN), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("question", sa.String(64), nullable=False),
    sa.Column("n_answers", sa.Integer, nullable=False),
    sa.Column("stage", sa.Integer, nullable=False),
    sa.Column("opened", sa.Float, nullable=False),
)
concept = sa.Table(  # a concept check's answers, before ("pre") and after ("post") (version 3)
    "concept_answers",
    metadata,
    sa.Column("code", sa.String(CODE_LEN), primary_key=True),
    sa.Column("phase", sa.String(4), primary_key=True),
    sa.Column("voter", sa.String(64), primary_key=True),
    sa.Column("item", sa.Integer, primary_key=True),
    sa.Column("answer", sa.Integer, nullable=False),
)
votes = sa.Table(
    "votes",
    metadata,
    sa.Column("code", sa.String(CODE_LEN), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("voter", sa.String(64), primary_key=True),
    sa.Column("answer", sa.Integer, nullable=False),
    sa.Index("votes_by_poll", "code", "round"),
)
teachers = sa.Table(  # browsers a teacher added with a hand-over code
    "poll_teachers",
    metadata,
    sa.Column("code", sa.String(CODE_LEN), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), primary_key=True),
)
handovers = sa.Table(
    "poll_handovers",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("code", sa.String(CODE_LEN), nullable=False),
    sa.Column("expires", sa.Float, nullable=False),
)
runs = sa.Table(  # live training runs (poll.runs): the teacher's, watched by the room
    "live_runs",
    metadata,
    sa.Column("id", sa.String(CODE_LEN), primary_key=True),
    sa.Column("owner_hash", sa.String(64), nullable=False),  # the starting browser
    sa.Column("config", sa.Text, nullable=False),  # JSON: core.live.RaceConfig
    sa.Column("status", sa.String(12), nullable=False),  # poll.runs.STATUSES
    sa.Column("progress", sa.Text, nullable=False),  # JSON list of progress records
    sa.Column("result", sa.Text, nullable=True),  # JSON, at the end
    sa.Column("cancel", sa.Integer, nullable=False),  # 1: the teacher asked to stop
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("heartbeat", sa.Float, nullable=False),  # the teacher's page last seen
    # added in version 2: the room (a poll's code) whose race it is, NULL for a visitor's
    # own; when a training slot took it from the queue
    sa.Column("room", sa.String(CODE_LEN), nullable=True),
    sa.Column("started", sa.Float, nullable=True),
    sa.Index("live_runs_by_created", "created"),
    sa.Index("live_runs_by_status", "status", "created"),
)
keys = sa.Table(  # one row: the random key of the address digests (unless set in the env)
    "poll_keys",
    metadata,
    sa.Column("name", sa.String(16), primary_key=True),
    sa.Column("value", sa.String(64), nullable=False),
)
schema = sa.Table(  # one row: the version of the tables above that the database holds
    "poll_schema", metadata, sa.Column("version", sa.Integer, primary_key=True)
)

# Changing the schema: bump SCHEMA_VERSION and add MIGRATIONS[new version], a function
# that brings a database of the version before to this one with SQL both SQLite and
# PostgreSQL accept (an added table needs nothing: create_all makes it). Every replica runs
# :func:`migrate` on start, one at a time under a lock: the first applies the steps, the
# others find the database current. Keep a change additive for one release (old replicas
# still run during a rollout), then remove what is no longer used.
SCHEMA_VERSION = 3


def _rooms_and_caps(conn: sa.Connection) -> None:
    """Version 2: polls know their last activity and their opener's address digest; races
    know their room and when a training slot took them (a queue across replicas)."""
    for table, column, kind in (
        ("polls", "active", "FLOAT"),
        ("polls", "address_hash", "VARCHAR(64)"),
        ("live_runs", "room", f"VARCHAR({CODE_LEN})"),
        ("live_runs", "started", "FLOAT"),
    ):
        conn.execute(sa.text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
    conn.execute(sa.text("UPDATE polls SET active = created"))
    conn.execute(sa.text("CREATE INDEX live_runs_by_status ON live_runs (status, created)"))


def _rounds(conn: sa.Connection) -> None:
    """Version 3: a poll's stage (round 1 alone, round 2 after discussing) and the concept
    check on its phones; each open poll's current round becomes its first ``poll_rounds``
    row (create_all made that table and ``concept_answers``)."""
    for column, kind in (("stage", "INTEGER"), ("check_phase", "VARCHAR(4)")):
        conn.execute(sa.text(f"ALTER TABLE polls ADD COLUMN {column} {kind}"))
    conn.execute(sa.text("UPDATE polls SET stage = 1"))
    conn.execute(
        sa.text(
            "INSERT INTO poll_rounds (code, round, question, n_answers, stage, opened) "
            "SELECT code, round, question, n_answers, 1, created FROM polls"
        )
    )


MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {2: _rooms_and_caps, 3: _rounds}
LOCK_KEY = 0x526F6164  # PostgreSQL advisory lock of the schema ("Road")


def migrate(engine: Engine) -> int:
    """Create the tables once and bring an older schema up to :data:`SCHEMA_VERSION`,
    under a lock (PostgreSQL's advisory lock; SQLite's write lock, taken first); returns
    the version. A database newer than this app is refused, never changed."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # the one writer, from the start
        elif engine.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
        metadata.create_all(conn)
        version = _upgrade(conn)
        if conn.execute(sa.select(keys.c.value).where(keys.c.name == "address")).first() is None:
            conn.execute(keys.insert().values(name="address", value=secrets.token_hex(32)))
        conn.commit()
    return version


def _upgrade(conn: sa.Connection) -> int:
    current = conn.execute(sa.select(sa.func.max(schema.c.version))).scalar_one()
    if current is None:  # a new database (or one made before versions): create_all made it
        conn.execute(schema.insert().values(version=SCHEMA_VERSION))
        return SCHEMA_VERSION
    if current > SCHEMA_VERSION:
        raise RuntimeError(
            f"the poll database has schema version {current}, this app knows "
            f"{SCHEMA_VERSION}: run the newer app (or restore a backup)"
        )
    for version in range(current + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[version](conn)
        conn.execute(schema.update().values(version=version))
    return SCHEMA_VERSION


def valid_code(code: object) -> bool:
    """Whether ``code`` has the shape of a room code (checked before any query)."""
    return isinstance(code, str) and len(code) == CODE_LEN and all(ch in ALPHABET for ch in code)


def normalise_code(raw: object) -> str:
    """A typed room code: spaces and dashes dropped, upper case (``"abcd-efgh"`` works)."""
    text = str(raw or "")[: 4 * CODE_LEN]
    return "".join(ch for ch in text.upper() if ch not in " -")


def valid_browser(browser: object) -> bool:
    """Whether ``browser`` has the shape of a browser id (checked before any query)."""
    return isinstance(browser, str) and BROWSER_ID.fullmatch(browser) is not None


def _hash(purpose: str, value: str) -> str:
    """A digest per purpose: a browser's voter row and its teacher row do not match."""
    return hashlib.sha256(f"{purpose}:{value}".encode()).hexdigest()


def address_key(engine: Engine) -> bytes:
    """The key of the address digests: ``$ROAD_ADDRESS_KEY`` (a deployment's secret: then a
    copy of the database alone cannot test guessed addresses against them), else the random
    key :func:`migrate` put in the database (replicas agree on it either way)."""
    env = os.environ.get(ADDRESS_KEY_ENV, "").strip()
    if env:
        return env.encode()
    with engine.connect() as conn:
        value = conn.execute(sa.select(keys.c.value).where(keys.c.name == "address")).scalar_one()
    return value.encode()


def _browser(browser: object) -> str:
    if not valid_browser(browser):
        raise PollError("bad_browser")
    return browser


WAL_TRIES = 200  # x ~50 ms: replicas opening a new database together (see _wal)


def _wal(cur) -> None:
    """``PRAGMA journal_mode=WAL``, retried while SQLite says the database is locked: turning
    a new database to WAL needs it alone, and SQLite answers a connection that meets another
    one doing it at once, without its busy timeout (6 replicas opening a new file together
    failed 10 times in 200, measured). Once the file is WAL the pragma only reads it."""
    import sqlite3

    for attempt in range(WAL_TRIES):
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or attempt == WAL_TRIES - 1:
                raise
            time.sleep(0.02 + 0.06 * secrets.randbelow(1000) / 1000)


# A PostgreSQL pool per engine. A replica holds three engines (the page's store, the live
# race's manager, its training process's); their page runs are few at once (the fair gate's
# run slots), so 3 kept + 2 more at a burst each, 15 a replica: deploy/k8s/postgres.yaml
# adds up the replicas against max_connections (tests/deploy/test_k8s.py).
POOL_SIZE, POOL_OVERFLOW = 3, 2


def _engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record) -> None:  # every new connection
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA busy_timeout=30000")
            _wal(cur)  # readers never wait for the writer
            cur.execute("PRAGMA synchronous=NORMAL")  # safe with WAL, fewer fsyncs
            cur.close()

        return engine
    return sa.create_engine(
        url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW
    )


def _upsert(dialect: str, table: sa.Table, row: dict, key: list[str]):
    """Insert ``row``, or change its ``answer`` where its ``key`` columns exist already."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    stmt = insert(table).values(**row)
    return stmt.on_conflict_do_update(
        index_elements=[table.c[k] for k in key], set_={"answer": stmt.excluded.answer}
    )


def _counted(answers, n_answers: int) -> Tally:
    counts = [0] * n_answers
    for answer in answers:
        if 0 <= answer < n_answers:
            counts[answer] += 1
    return Tally(tuple(counts), sum(counts))


def _tally(conn, code: str, round_: int, n_answers: int) -> Tally:
    rows = conn.execute(
        sa.select(votes.c.answer, sa.func.count())
        .where((votes.c.code == code) & (votes.c.round == round_))
        .group_by(votes.c.answer)
    ).all()
    counts = [0] * n_answers
    for answer, n in rows:
        if 0 <= answer < n_answers:
            counts[answer] = n
    return Tally(tuple(counts), sum(counts))


class PollStore:
    """Polls and votes in one database (see the module docstring for the rules)."""

    def __init__(self, url: str | None = None, *, clock=time.time) -> None:
        self.url = url or default_url()
        self.engine = _engine(self.url)
        self.clock = clock
        self._address_key: bytes | None = None  # read on first use (address_key)
        migrate(self.engine)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # --- the teacher ---------------------------------------------------------------------

    def _address(self, address: str | None) -> str | None:
        if not (isinstance(address, str) and address):  # unknown: the other caps only
            return None
        if self._address_key is None:
            self._address_key = address_key(self.engine)
        return hmac.new(self._address_key, address.encode(), hashlib.sha256).hexdigest()

    def open(self, question: str, n_answers: int, browser: str, address: str | None = None) -> str:
        """Open a poll on ``question`` with ``browser`` as its teacher; returns the room code.
        Refused (``PollError``) over the open polls of this browser, of this client
        ``address`` (kept as a keyed digest while the poll is open), or of the database."""
        teacher = _hash("teacher", _browser(browser))
        if not (isinstance(question, str) and 0 < len(question) <= 64):
            raise PollError("bad_question")
        if not 2 <= n_answers <= MAX_ANSWERS:
            raise PollError("bad_question")
        where = self._address(address)
        self.purge()
        with self.engine.begin() as conn:
            is_open = polls.c.state == "open"
            count = sa.select(sa.func.count()).select_from(polls)
            if conn.execute(
                count.where(is_open & (polls.c.teacher_hash == teacher))
            ).scalar_one() >= (MAX_OPEN_PER_TEACHER):
                raise PollError("too_many_teacher")
            if (
                where is not None
                and conn.execute(
                    count.where(is_open & (polls.c.address_hash == where))
                ).scalar_one()
                >= MAX_OPEN_PER_ADDRESS
            ):
                raise PollError("too_many_address")
            if conn.execute(count.where(is_open)).scalar_one() >= MAX_OPEN_POLLS:
                raise PollError("too_many")
            for _ in range(10):  # a collision is astronomically rare; retry anyway
                code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
                exists = conn.execute(sa.select(polls.c.code).where(polls.c.code == code)).first()
                if exists is None:
                    break
            conn.execute(
                polls.insert().values(
                    code=code,
                    teacher_hash=teacher,
                    question=question,
                    n_answers=n_answers,
                    state="open",
                    round=1,
                    created=self.clock(),
                    active=self.clock(),
                    address_hash=where,
                    stage=1,
                )
            )
            self._new_round(conn, code, 1, question, n_answers, 1)
        return code

    def _new_round(
        self, conn, code: str, round_: int, question: str, n_answers: int, stage: int
    ) -> None:
        conn.execute(
            rounds.insert().values(
                code=code,
                round=round_,
                question=question,
                n_answers=n_answers,
                stage=stage,
                opened=self.clock(),
            )
        )

    def _is_teacher(self, conn, code: str, browser: object) -> bool:
        if not valid_browser(browser):
            return False
        digest = _hash("teacher", browser)
        row = conn.execute(sa.select(polls.c.teacher_hash).where(polls.c.code == code)).first()
        if row is not None and hmac.compare_digest(row.teacher_hash, digest):
            return True
        added = sa.select(teachers.c.code).where(
            (teachers.c.code == code) & (teachers.c.teacher_hash == digest)
        )
        return conn.execute(added).first() is not None

    def _teacher(self, conn, code: str, browser: object) -> Poll:
        poll = self._get(conn, code)
        if not self._is_teacher(conn, code, browser):
            raise PollError("not_teacher")
        return poll

    def set_state(self, code: str, browser: str, state: str) -> Poll:
        """Reveal (``"revealed"``), close (``"closed"``) or reopen (``"open"``) a poll."""
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}")
        with self.engine.begin() as conn:
            self._teacher(conn, code, browser)
            values = dict(state=state, active=self.clock())
            if state != "open":
                values["address_hash"] = None  # kept only to count open polls
            conn.execute(polls.update().where(polls.c.code == code).values(**values))
            return self._get(conn, code)

    def restart(
        self, code: str, browser: str, question: str | None = None, n_answers: int = 0
    ) -> Poll:
        """A new round in the same room: the same question again (reset) or the next one,
        asked afresh (stage 1); earlier votes stay in their round and no longer count."""
        with self.engine.begin() as conn:
            poll = self._teacher(conn, code, browser)
            values = dict(state="open", round=poll.round + 1, active=self.clock(), stage=1)
            if question is not None:
                if not 2 <= n_answers <= MAX_ANSWERS:
                    raise PollError("bad_question")
                values.update(question=question, n_answers=n_answers)
            conn.execute(polls.update().where(polls.c.code == code).values(**values))
            q, n = values.get("question", poll.question), values.get("n_answers", poll.n_answers)
            self._new_round(conn, code, poll.round + 1, q, n, 1)
            return self._get(conn, code)

    def discuss(self, code: str, browser: str) -> Poll:
        """ "Discuss, then vote again": round 2 of the same question opens; every browser
        votes afresh (its round-1 answer stays, to compare). Refused (``second_round``) when
        the question is in its round 2 already; a revealed question is asked afresh instead."""
        with self.engine.begin() as conn:
            poll = self._teacher(conn, code, browser)
            if poll.stage != 1 or poll.state == "revealed":
                raise PollError("second_round")
            values = dict(state="open", round=poll.round + 1, active=self.clock(), stage=2)
            conn.execute(polls.update().where(polls.c.code == code).values(**values))
            self._new_round(conn, code, poll.round + 1, poll.question, poll.n_answers, 2)
            return self._get(conn, code)

    def is_teacher(self, code: str, browser: str | None) -> bool:
        """Whether ``browser`` is a teacher of poll ``code`` (no error for a bad code)."""
        if not valid_code(code):
            return False
        with self.engine.connect() as conn:
            return self._is_teacher(conn, code, browser)

    def teacher_room(self, browser: str | None) -> str | None:
        """The room ``browser`` teaches now: the newest poll opened in the last
        :data:`CLASS_S` of which it is a teacher (its opener, or a device added by
        hand-over), else ``None``. Its class's race and the race's Reveal belong to it."""
        if not valid_browser(browser):
            return None
        digest, since = _hash("teacher", browser), self.clock() - CLASS_S
        added = sa.select(teachers.c.code).where(teachers.c.teacher_hash == digest)
        mine = (polls.c.teacher_hash == digest) | polls.c.code.in_(added)
        with self.engine.connect() as conn:
            return conn.execute(
                sa.select(polls.c.code)
                .where(mine & (polls.c.created >= since))
                .order_by(polls.c.created.desc())
                .limit(1)
            ).scalar_one_or_none()

    def seen(self, poll: Poll) -> None:
        """A teacher's screen shows ``poll``: an open poll stays active (one write at most
        every :data:`TOUCH_S`, so a projector's poll never closes as idle)."""
        now = self.clock()
        if poll.state != "open" or now - poll.active < TOUCH_S:
            return
        with self.engine.begin() as conn:
            conn.execute(
                polls.update()
                .where((polls.c.code == poll.code) & (polls.c.state == "open"))
                .values(active=now)
            )

    def handover(self, code: str, browser: str) -> tuple[str, float]:
        """A one-time code that lets another device of the teacher join as a teacher:
        ``(code to type, unix time it expires)``. A new one replaces the room's last one."""
        token = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
        expires = self.clock() + HANDOVER_S
        with self.engine.begin() as conn:
            self._teacher(conn, code, browser)
            conn.execute(handovers.delete().where(handovers.c.code == code))
            conn.execute(
                handovers.insert().values(
                    token_hash=_hash("handover", code + token), code=code, expires=expires
                )
            )
        return token, expires

    def take_over(self, code: str, token: object, browser: str) -> Poll:
        """Make ``browser`` a teacher of ``code`` with a hand-over code (used up here)."""
        digest = _hash("teacher", _browser(browser))
        token = normalise_code(token)
        if not valid_code(token):
            raise PollError("bad_handover")
        with self.engine.begin() as conn:
            poll = self._get(conn, code)
            used = conn.execute(  # delete-and-count: of two takers at once, one wins
                handovers.delete().where(
                    (handovers.c.token_hash == _hash("handover", code + token))
                    & (handovers.c.code == code)
                    & (handovers.c.expires >= self.clock())
                )
            ).rowcount
            if used != 1:
                raise PollError("bad_handover")
            if not self._is_teacher(conn, code, browser):
                n = conn.execute(
                    sa.select(sa.func.count()).where(teachers.c.code == code)
                ).scalar_one()
                if n + 1 >= MAX_TEACHERS:
                    raise PollError("full")
                conn.execute(teachers.insert().values(code=code, teacher_hash=digest))
            return poll

    # --- everyone ----------------------------------------------------------------------

    def _get(self, conn, code: str) -> Poll:
        if not valid_code(code):
            raise PollError("bad_code")
        row = conn.execute(sa.select(polls).where(polls.c.code == code)).first()
        if row is None:
            raise PollError("no_poll")
        if self.clock() - row.created > TTL_S:
            raise PollError("expired")
        active = row.created if row.active is None else row.active
        state = row.state
        if state == "open" and self.clock() - active > IDLE_S:
            state = "closed"  # idle (closed for good by the next purge)
        stage = 2 if row.stage == 2 else 1
        check = row.check_phase if row.check_phase in CHECK_SHOWN else None
        return Poll(
            row.code,
            row.question,
            row.n_answers,
            state,
            row.created,
            row.round,
            active,
            stage,
            check,
        )

    def get(self, code: str) -> Poll:
        """The poll behind a room code (``PollError`` if malformed, unknown or expired)."""
        with self.engine.connect() as conn:
            return self._get(conn, code)

    def vote(self, code: str, browser: str, answer: int) -> None:
        """Cast or change ``browser``'s vote in the current round."""
        voter = _hash("voter", _browser(browser))
        with self.engine.begin() as conn:
            poll = self._get(conn, code)
            if poll.state != "open":
                raise PollError("closed")
            if not (isinstance(answer, int) and 0 <= answer < poll.n_answers):
                raise PollError("bad_answer")
            here = (votes.c.code == code) & (votes.c.round == poll.round)
            mine = conn.execute(sa.select(votes.c.answer).where(here & (votes.c.voter == voter)))
            if mine.first() is None:
                n = conn.execute(sa.select(sa.func.count()).where(here)).scalar_one()
                if n >= MAX_VOTERS:
                    raise PollError("full")
            if self.clock() - poll.active >= VOTE_TOUCH_S:  # the room is active
                conn.execute(polls.update().where(polls.c.code == code).values(active=self.clock()))
            row = dict(code=code, round=poll.round, voter=voter, answer=answer)
            conn.execute(_upsert(self.dialect, votes, row, ["code", "round", "voter"]))

    def my_vote(self, code: str, browser: str, round_: int | None = None) -> int | None:
        """``browser``'s answer in the current round (or in ``round_``), or ``None``."""
        if not valid_browser(browser):
            return None
        voter = _hash("voter", browser)
        with self.engine.connect() as conn:
            poll = self._get(conn, code)
            return conn.execute(
                sa.select(votes.c.answer).where(
                    (votes.c.code == code)
                    & (votes.c.round == (poll.round if round_ is None else round_))
                    & (votes.c.voter == voter)
                )
            ).scalar_one_or_none()

    def tally(self, code: str, round_: int | None = None) -> Tally:
        """Votes per answer in the current round (or in ``round_``, on today's question)."""
        with self.engine.connect() as conn:
            poll = self._get(conn, code)
            return _tally(conn, code, poll.round if round_ is None else round_, poll.n_answers)

    def rounds_of(self, code: str) -> Rounds | None:
        """Both rounds of the current question once it is in round 2 (else ``None``): the
        counts of each and who moved from which answer to which."""
        with self.engine.connect() as conn:
            poll = self._get(conn, code)
            if poll.first_round is None:
                return None
            here = votes.c.code == code
            first = dict(
                conn.execute(
                    sa.select(votes.c.voter, votes.c.answer).where(
                        here & (votes.c.round == poll.first_round)
                    )
                ).all()
            )
            second = dict(
                conn.execute(
                    sa.select(votes.c.voter, votes.c.answer).where(
                        here & (votes.c.round == poll.round)
                    )
                ).all()
            )
        moves: dict[tuple[int, int], int] = {}
        for voter in first.keys() & second.keys():
            move = (first[voter], second[voter])
            moves[move] = moves.get(move, 0) + 1
        return Rounds(
            _counted(first.values(), poll.n_answers),
            _counted(second.values(), poll.n_answers),
            moves,
            sum(moves.values()),
        )

    def history(self, code: str, browser: str) -> list[RoundRow]:
        """Every round this room asked, oldest first, with its counts (a teacher's only)."""
        with self.engine.connect() as conn:
            self._teacher(conn, code, browser)
            rows = conn.execute(
                sa.select(rounds).where(rounds.c.code == code).order_by(rounds.c.round)
            ).all()
            return [
                RoundRow(
                    r.round,
                    r.question,
                    r.n_answers,
                    r.stage,
                    r.opened,
                    _tally(conn, code, r.round, r.n_answers).counts,
                )
                for r in rows
            ]

    def purge(self) -> int:
        """Close the polls idle for :data:`IDLE_S`; delete polls older than :data:`TTL_S` and
        their votes, and training runs as old; returns how many polls were deleted."""
        cutoff = self.clock() - TTL_S
        with self.engine.begin() as conn:
            idle = sa.func.coalesce(polls.c.active, polls.c.created) < self.clock() - IDLE_S
            conn.execute(
                polls.update()
                .where((polls.c.state == "open") & idle)
                .values(state="closed", address_hash=None)
            )
            old = sa.select(polls.c.code).where(polls.c.created < cutoff)
            for table in (votes, teachers, handovers, rounds, concept):
                conn.execute(table.delete().where(table.c.code.in_(old)))
            conn.execute(handovers.delete().where(handovers.c.expires < self.clock()))
            conn.execute(runs.delete().where(runs.c.created < cutoff))
            return conn.execute(polls.delete().where(polls.c.created < cutoff)).rowcount

    def dispose(self) -> None:
        self.engine.dispose()


def main(argv: list[str] | None = None) -> int:
    """``python -m poll.store purge``: delete the expired polls of the configured
    database (``ROAD_DATABASE_URL``, else the SQLite file); run on a schedule."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("command", choices=["purge", "migrate"])
    args = parser.parse_args(argv)
    store = PollStore()
    try:
        if args.command == "purge":
            print(f"purged {store.purge()} expired polls")
        else:
            print(f"schema version {SCHEMA_VERSION}")
    finally:
        store.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
