"""The class poll's two sides: the teacher's room (projector) and a student's phone.

Identity is the browser: a random id in a first-party cookie (:data:`COOKIE`), read by the
server with ``st.context.cookies`` and written by the page (:func:`keep_browser_id`). Votes
and teacher rights in ``poll.store`` are keyed on it, so a reload, a phone asleep
past its session, or another replica keeps one vote and keeps the teacher's view. The room
is ``/poll?room=CODE``: a teacher browser sees code, QR, live histogram and the buttons;
every other browser one big button per answer. Both refresh every 2 s.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlencode, urlsplit

import streamlit as st

from charts import poll as poll_charts
from core import lexicon
from core.i18n import translate
from poll import concept_views as cv
from poll import export
from poll import questions as pq
from poll import rounds as pr
from poll import store as ps
from poll.checks import CheckStore
from poll.runs import RunStore
from serve.admission import client_address
from ui import chart, page_link
from ui.gate import fragment
from ui.i18n import current_lang, presenter, t

BROWSER = "poll_browser"  # this session's browser id (from the cookie, or new)
HANDOVER = "poll_handover"  # {room: (code, expires)} a hand-over code on show in the sidebar
EVENTS = "poll_events"  # {action: [unix times]} for the per-session limits
MESSAGE = "poll_message"  # a refusal from a button callback, shown by the next run
ROOM = "poll_room"  # the room this session last showed (the live page follows its race)
ACTED = "poll_acted"  # a button's callback acted on this run's tap (see acted())
# Per-session limits: (how many, within seconds). A classroom never comes near them.
LIMITS = {"open": (5, 600), "vote": (30, 60), "join": (10, 60), "take_over": (5, 300)}
REFRESH_S = 2.0

# Why a cookie written by the page: the server needs the id at the session's first run,
# and a cookie travels with the websocket handshake (st.context.cookies) under `streamlit
# run`, nginx and the cluster edge alike. A components-v2 element would import its script
# from a blob: URL, which the shipped CSP refuses; st.html runs this inline script, which
# the CSP allows by its SHA-256 (deploy/nginx/headers.conf; tests/poll check the hash).
COOKIE = "road_browser"
COOKIE_MAX_AGE_S = ps.TTL_S  # renewed at every visit of the poll page; a poll lives as long
COOKIE_JS = (
    "(()=>{const el=document.querySelector('[data-road-browser]');if(!el)return;"
    "const id=el.getAttribute('data-road-browser');"
    "const m=document.cookie.match(/(?:^|; )road_browser=([A-Za-z0-9_-]{16,64})(?:;|$)/);"
    "const k='road_browser_reload',now=Date.now();"
    "if(m&&m[1]!==id&&now-Number(sessionStorage.getItem(k)||0)>30000){"
    "sessionStorage.setItem(k,String(now));location.reload();return;}"
    "const s=location.protocol==='https:'?'; Secure':'';"
    f"document.cookie='road_browser='+id+'; path=/; max-age={COOKIE_MAX_AGE_S}; SameSite=Lax'+s;"
    "})();"
)
COOKIE_JS_HASH = base64.b64encode(hashlib.sha256(COOKIE_JS.encode()).digest()).decode()


@st.cache_resource(show_spinner=False)
def store() -> ps.PollStore:
    """The one store of this server (SQLite file, or PostgreSQL when configured)."""
    return ps.PollStore()


@st.cache_resource(show_spinner=False)
def solution(qid: str) -> pq.Solution:
    """The model's answer, computed from the models the first time a poll reveals it."""
    return pq.BY_ID[qid].solve()


def checks() -> CheckStore:
    """The concept check's answers in the same database (a thin view of :func:`store`)."""
    return CheckStore(store())


@st.cache_resource(show_spinner=False)
def runs() -> RunStore:
    """The live races in the same database (a run-bound question's answer)."""
    return RunStore(store())


def room_solution(room: Room) -> pq.Solution | None:
    """The answer to the room's question: the models' (cached), or for a run-bound question
    the room's race that ended last since the poll opened (``None`` before one has)."""
    if room.q.run_bound:
        run = runs().done_since(room.poll.created, room.code, room.q.run_kind)
        return None if run is None else room.q.solve(run)
    return computed(room.q)


def browser_id() -> str:
    """This browser's id: the cookie the websocket handshake carried, else a new random one
    (which :func:`keep_browser_id` writes to the cookie). No personal data in it."""
    if BROWSER not in st.session_state:
        raw = st.context.cookies.get(COOKIE)
        new = secrets.token_urlsafe(24)  # 192 random bits, 32 url-safe characters
        st.session_state[BROWSER] = raw if ps.valid_browser(raw) else new
    return st.session_state[BROWSER]


def keep_browser_id() -> None:
    """Write (or renew) the browser id's cookie. Should this tab's session hold another id
    than a cookie written meanwhile (two first tabs at once), the tab reloads once and the
    server takes the cookie's."""
    st.sidebar.html(
        f'<span hidden data-road-browser="{browser_id()}"></span><script>{COOKIE_JS}</script>',
        unsafe_allow_javascript=True,
    )


def allowed(action: str) -> bool:
    """Count one ``action`` of this session; ``False`` over its limit (the message waits
    in the session for :func:`show_message`: this also runs inside button callbacks)."""
    n, window = LIMITS[action]
    now = time.time()
    events = st.session_state.setdefault(EVENTS, {})
    recent = [x for x in events.get(action, []) if now - x < window]
    if len(recent) >= n:
        st.session_state[MESSAGE] = t("poll.limit", seconds=window)
        return False
    events[action] = [*recent, now]
    return True


def reason(err: ps.PollError) -> str:
    return t(
        f"poll.error.{err.reason}",
        minutes=ps.HANDOVER_S // 60,
        idle=ps.IDLE_S // 60,
        n_teacher=ps.MAX_OPEN_PER_TEACHER,
        n_address=ps.MAX_OPEN_PER_ADDRESS,
    )


def refused(err: ps.PollError) -> None:
    st.warning(reason(err), icon=":material/block:")


def remember(err: ps.PollError) -> None:
    """A refusal inside a callback: said by the next run (:func:`show_message`)."""
    st.session_state[MESSAGE] = reason(err)


def show_message() -> None:
    text = st.session_state.pop(MESSAGE, None)
    if text:
        st.warning(text, icon=":material/block:")


def join_url(code: str) -> str:
    """The link students open (nothing of the teacher in it): this app's /poll page."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    prefix = parts.path.rsplit("/", 1)[0] if parts.path.count("/") > 1 else ""
    query = urlencode({"room": code, "lang": current_lang()})
    return f"{parts.scheme}://{parts.netloc}{prefix}/poll?{query}"


def open_poll(qid: str) -> str | None:
    """Ask ``qid`` in this browser's room: the room it teaches moves on to the question (its
    students stay in it), else a new poll opens with this browser as its teacher. A race the
    teacher started alone joins the room. Returns the room code."""
    q = pq.BY_ID[qid]
    if not allowed("open"):
        return None
    s, me = store(), browser_id()
    try:
        code = s.teacher_room(me)
        if code is None:
            code = s.open(q.id, len(q.answers), me, client_address())
        elif (now := s.get(code)).question != q.id or now.state != "open":
            s.restart(code, me, q.id, len(q.answers))  # asked there already: as it is
    except ps.PollError as err:
        refused(err)
        return None
    runs().adopt(me, code)
    return code


def labels(q: pq.Question) -> list[str]:
    return q.answer_labels(t)


def histogram(q: pq.Question, counts, reveal: int | None, height: int | None = None):
    """The class's answers as bars (the right one highlighted once revealed)."""
    return poll_charts.histogram(
        labels(q),
        list(counts),
        reveal,
        title=t("poll.histogram.title", n=sum(counts)),
        y_title=t("poll.histogram.y"),
        presenter=presenter(),
        height=height,
    )


def _evidence_label(q: pq.Question, name: str) -> str:
    """An evidence bar's label: a keyed answer's text, a model's display name, or as is."""
    if q.keyed and name in q.answers:
        return t(f"poll.q.{q.id}.a{q.answers.index(name)}")
    if lexicon.known(name):
        return lexicon.name(name, current_lang())
    return name


def evidence_chart(q: pq.Question, sol: pq.Solution, height: int | None = None):
    return poll_charts.evidence(
        [_evidence_label(q, n) for n in sol.evidence],
        list(sol.evidence.values()),
        title=t(sol.evidence_key),
        presenter=presenter(),
        log_y=sol.log_y,
        height=height,
    )


# --- the room ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Room:
    code: str
    poll: ps.Poll  # as this run found it
    q: pq.Question
    browser: str

    def changed(self, now: ps.Poll) -> bool:
        """Whether the poll moved on since this run (revealed, closed, a new round, the
        concept check on or off the phones)."""
        return (now.state, now.round, now.question, now.check) != (
            self.poll.state,
            self.poll.round,
            self.poll.question,
            self.poll.check,
        )


def _part(room: Room) -> dict:
    """The link back to the room's part: a race's page follows the room's race."""
    part = {"part": room.q.part} if room.q.part else {}
    return part | {"room": room.code} if room.q.run_bound else part


def computed(q: pq.Question) -> pq.Solution:
    """The model's answer to ``q``, with a spinner the first time it is computed (raises
    ``zoo.ZooError`` when a model it needs is missing)."""
    with st.spinner(t("poll.computing")):
        return solution(q.id)


def say_answer(q: pq.Question, sol: pq.Solution) -> None:
    """The revealed answer, in the one style of a reveal (the room's, a phone's, a visitor's)."""
    st.success(t("poll.answer", answer=labels(q)[sol.correct]), icon=":material/check_circle:")


def why(q: pq.Question, sol: pq.Solution) -> None:
    """The words under a revealed answer, with the numbers the models computed."""
    why = t(f"poll.q.{q.id}.why", **dict(q.quotes), **sol.values)
    st.markdown(f"{why}\n\n{t(sol.story, **sol.values)}" if sol.story else why)


def proof(q: pq.Question, sol: pq.Solution, *, key: str = "poll_evidence") -> None:
    """What proves a revealed answer: the evidence chart, then why."""
    chart(evidence_chart(q, sol), key=key)
    why(q, sol)


def answer_box(room: Room) -> pq.Solution | None:
    """The revealed answer (``None``, said so, while the race it waits for is not over)."""
    sol = room_solution(room)
    if sol is None:
        st.info(t("poll.error.race_not_done"), icon=":material/hourglass_top:")
        return None
    say_answer(room.q, sol)
    return sol


def room_of(code: str) -> Room | None:
    """The room behind ``code`` for this browser, or ``None`` after saying why not."""
    try:
        now = store().get(code)
    except ps.PollError as err:
        refused(err)
        return None
    q = pq.BY_ID.get(now.question)
    if q is None:  # a poll of a question this version no longer has
        refused(ps.PollError("bad_question"))
        return None
    return Room(code, now, q, browser_id())


def show_room(room: Room) -> None:
    """The teacher's view for a teacher browser, the student's for everyone else."""
    st.session_state[ROOM] = room.code
    if store().is_teacher(room.code, room.browser):
        teacher_view(room)
        with st.sidebar:
            if room.poll.check is None and presenter():
                guide_panel(room)
            keep_sidebar(room)
            cv.sidebar(checks(), room.code, room.poll.check, partial(_check, room))
        handover_sidebar(room)
    else:
        student_view(room)
        take_over_sidebar(room)


# --- the teacher (projector) ---------------------------------------------------------------

CHART_H = 400  # px: the room's charts leave the buttons and the QR code on a 1280x800 screen
QR_PX = 220


@fragment(run_every=REFRESH_S)
def live_histogram(room: Room) -> None:
    """The class's answers, redrawn every 2 s; the whole room when the poll moved on
    (revealed or moved on from another teacher device)."""
    now = store().get(room.code)
    if room.changed(now):
        st.rerun(scope="app")
    store().seen(now)  # a poll on a teacher's screen is not idle
    sol = room_solution(room) if now.state == "revealed" else None
    right = sol.correct if sol is not None else None
    both = store().rounds_of(room.code) if now.stage == 2 else None
    if both is None:
        tally = store().tally(room.code)
        chart(histogram(room.q, tally.counts, right, CHART_H), key="poll_hist", width=0.58)
    else:
        tally = both.second
        chart(pr.chart(labels(room.q), both, right, CHART_H), key="poll_hist", width=0.58)
        said = pr.closer_text(both, right) if right is not None else None
        st.markdown(f"**{said}** " * bool(said) + pr.changes_text(both, labels(room.q)))
    st.caption(t("poll.voters", n=tally.voters))


@fragment(run_every=REFRESH_S)
def guide_panel(room: Room) -> None:
    """The teacher's guide on round 1 of this question, refreshed with the votes: in the
    sidebar on the projector (which keeps it closed), in the room itself on a teacher's
    screen that is not projecting (a phone added by hand-over, a laptop)."""
    now = store().get(room.code)
    first = store().tally(room.code, now.first_round or now.round)
    sol = room_solution(room)
    answer = labels(room.q)[sol.correct] if sol is not None else None
    pr.guide(first, sol.correct if sol is not None else None, answer)


def acted() -> bool:
    """Whether a button's callback already acted on this run's tap (then the button's return
    value must not act again). Buttons act in both ways: a callback runs before the page
    (AppTest's runs rerun before they reach it and so never see a return value); in a
    session that has not drawn the button yet (a new session after a replica died or a
    tab's session expired) only the return value arrives, and a callback-only tap is lost."""
    return bool(st.session_state.pop(ACTED, False))


def teacher_buttons(room: Room) -> None:
    """Every teacher control in one row, each as wide as its whole label."""
    state, done, act = room.poll.state, acted(), None
    with st.container(horizontal=True, gap="small", key="poll_teacher_buttons"):
        second = ("close", "poll.close") if state == "open" else ("again", "poll.reopen")
        shown = [("reveal", "poll.reveal", "primary")]
        if room.poll.stage == 1 and state != "revealed":  # peer instruction's round 2
            shown.append(("discuss", "poll.discuss", "secondary"))
        for action, key, kind in (
            *shown,
            (*second, "secondary"),
            ("next", "poll.next", "secondary"),
        ):
            disabled = action == "reveal" and state == "revealed"
            if st.button(
                t(key), type=kind, disabled=disabled, on_click=_teacher, args=(room, action)
            ):
                act = action
        back = {"lang": current_lang(), "present": int(presenter())} | _part(room)
        page_link(
            f"pages/{room.q.slug}.py",
            label=t("poll.back"),
            query_params=back,
            icon=":material/arrow_back:",
        )
    if act and not done:
        _teacher(room, act)
        st.session_state.pop(ACTED, None)
        st.rerun()


def join_panel(room: Room) -> None:
    """What students need to join: the room code, read aloud in two halves, and a QR code."""
    url = join_url(room.code)
    st.markdown("### " + t("poll.room_code", code=f"{room.code[:4]} {room.code[4:]}"))
    st.image(share_qr(url), width=QR_PX if presenter() else 180)
    st.caption(t("poll.room_hint"))
    st.code(url, language=None, wrap_lines=True)


def share_qr(url: str) -> bytes:
    from ui import share

    return share.qr_png(url, scale=6)


def teacher_view(room: Room) -> None:
    if room.poll.check is not None:  # the concept check instead of the poll
        back = partial(_check, room, None)
        cv.teacher(checks(), room.code, room.poll.check, back, partial(join_panel, room))
        return
    teacher_buttons(room)
    if not presenter():  # not the projector: the guide may sit in the room
        guide_panel(room)
    if room.poll.state == "closed":
        st.caption(t("poll.closed_teacher"))
    left, right = st.columns([3, 2], gap="medium")
    with left:
        live_histogram(room)
    with right:
        sol = answer_box(room) if room.poll.state == "revealed" else None
        if sol is not None:
            chart(evidence_chart(room.q, sol, CHART_H - 70), key="poll_evidence", width=0.4)
        else:
            join_panel(room)
    if sol is not None:
        why(room.q, sol)


def _teacher(room: Room, action: str) -> None:
    """A teacher's button, acted on before the room is drawn again (see :func:`acted`)."""
    st.session_state[ACTED] = True
    s, code, me = store(), room.code, browser_id()
    try:
        if action == "reveal":
            if room.q.run_bound:
                race_ended(room)
            s.set_state(code, me, "revealed")
        elif action == "discuss":
            s.discuss(code, me)
        elif action == "close":
            s.set_state(code, me, "closed")
        elif action == "again":
            s.restart(code, me)
        else:
            nxt = pq.ALL[(pq.ALL.index(room.q) + 1) % len(pq.ALL)]
            s.restart(code, me, nxt.id, len(nxt.answers))
    except ps.PollError as err:
        remember(err)


def _check(room: Room, phase: str | None) -> None:
    """The concept check's buttons: before, after, the class's gain, or back to the poll."""
    try:
        checks().set_check(room.code, browser_id(), phase)
    except ps.PollError as err:
        remember(err)


def room_csv(code: str, browser: str, lang: str) -> str:
    """Every round this room asked, in ``lang``: votes per answer and the models' answer
    (a download's data: no session needed; a run-bound round is answered by the room's
    race that ended last since it opened, blank before one has)."""

    def texts(qid: str) -> tuple[str, list[str]] | None:
        q = pq.BY_ID.get(qid)
        if q is None:
            return None
        tr = partial(translate, lang=lang)
        return q.text(tr), q.answer_labels(tr)

    def correct(r: ps.RoundRow) -> int | None:
        q = pq.BY_ID[r.question]
        if q.run_bound:
            run = runs().done_since(r.opened, code, q.run_kind)
            return None if run is None else q.solve(run).correct
        try:
            return solution(q.id).correct
        except Exception:  # noqa: BLE001 - a model missing on this server: left blank
            return None

    return export.rounds_csv(store().history(code, browser), texts, correct)


def keep_sidebar(room: Room) -> None:
    """The room's votes as CSV for the teacher (computed when the button is pressed)."""
    st.download_button(
        t("poll.export.download"),
        data=partial(room_csv, room.code, room.browser, current_lang()),
        file_name=f"poll-{room.code}.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        width="stretch",
        help=t("poll.export.hint"),
    )


def race_ended(room: Room) -> None:
    """A run-bound question is revealed only once the race it asks about has ended (raises
    ``PollError``: one is still training, or none ended since the poll opened)."""
    latest = runs().latest(room.code)
    if latest is not None and latest.active:
        raise ps.PollError("race_running")
    if room_solution(room) is None:
        raise ps.PollError("race_not_done")


def handover_sidebar(room: Room) -> None:
    """Another device of the teacher (a phone in the hand): a one-time code, made on demand
    and shown in this browser's sidebar only (never in the room's main area nor a link)."""
    with st.sidebar:
        st.markdown(f"**{t('poll.handover.title')}**")
        shown = st.session_state.get(HANDOVER, {}).get(room.code)
        left = int(shown[1] - time.time()) if shown else 0
        if left > 0:
            st.code(f"{shown[0][:4]} {shown[0][4:]}", language=None)
            st.caption(t("poll.handover.shown", seconds=left))
        else:
            st.button(t("poll.handover.make"), on_click=_handover, args=(room,))
            st.caption(t("poll.handover.hint", minutes=ps.HANDOVER_S // 60))


def _handover(room: Room) -> None:
    try:
        token, expires = store().handover(room.code, browser_id())
    except ps.PollError as err:
        remember(err)
        return
    st.session_state.setdefault(HANDOVER, {})[room.code] = (token, expires)


def take_over_sidebar(room: Room) -> None:
    """The teacher's second device types the one-time code here."""
    with st.sidebar.expander(t("poll.takeover.title")):
        st.text_input(t("poll.takeover.code"), key="poll_takeover_code", max_chars=16)
        st.button(t("poll.takeover.go"), on_click=_take_over, args=(room,))


def _take_over(room: Room) -> None:
    if not allowed("take_over"):
        return
    typed = st.session_state.get("poll_takeover_code", "")
    try:
        store().take_over(room.code, typed, browser_id())
    except ps.PollError as err:
        remember(err)


# --- a student (phone) -------------------------------------------------------------------


@fragment(run_every=REFRESH_S)
def student_wait(room: Room) -> None:
    """Every 2 s: has the teacher revealed, closed or moved on?"""
    if room.changed(store().get(room.code)):
        st.rerun(scope="app")


def _vote(room: Room, answer: int) -> None:
    st.session_state[ACTED] = True
    if allowed("vote"):
        try:
            store().vote(room.code, browser_id(), answer)
        except ps.PollError as err:
            remember(err)


def student_view(room: Room) -> None:
    """One big button per answer; after the reveal, the model's answer first."""
    if room.poll.check is not None:  # the concept check instead of the question
        cv.phone(checks(), room.code, room.browser, room.poll.check, allowed, remember)
        student_wait(room)
        return
    names = labels(room.q)
    mine = store().my_vote(room.code, room.browser)
    state, done = room.poll.state, acted()
    if state == "revealed":
        answer_box(room)
    if room.poll.first_round is not None and state == "open":  # its own round-1 answer
        first = store().my_vote(room.code, room.browser, room.poll.first_round)
        if first is None:
            st.caption(t("poll.student.round2_none"))
        else:
            st.caption(t("poll.student.round2", answer=names[first]))
    for i, name in enumerate(names):
        chosen = mine == i
        tapped = st.button(
            f"{'✓ ' if chosen else ''}{name}",
            key=f"poll_answer_{i}",
            type="primary" if chosen else "secondary",
            width="stretch",
            disabled=state != "open",
            on_click=_vote,
            args=(room, i),
        )
        if tapped and not done:  # see acted()
            _vote(room, i)
            st.session_state.pop(ACTED, None)
            st.rerun()
    if room.q.run_bound:  # the race it asks about: the room's, on the race's page
        page_link(
            f"pages/{room.q.slug}.py",
            label=t("poll.watch_race"),
            query_params={"lang": current_lang(), "present": 0} | _part(room),
            icon=":material/monitoring:",
        )
    if mine is not None and state == "open":
        st.caption(t("poll.your_vote", answer=names[mine]))
    elif state == "closed":
        st.info(t("poll.closed_student"), icon=":material/lock:")
    student_wait(room)
    if state == "revealed":
        student_reveal(room)


def student_reveal(room: Room) -> None:
    sol = room_solution(room)
    if sol is None:  # answer_box said why
        return
    both = store().rounds_of(room.code) if room.poll.stage == 2 else None
    if both is None:
        counts = store().tally(room.code).counts
        chart(histogram(room.q, counts, sol.correct), key="poll_hist_revealed")
    else:
        chart(pr.chart(labels(room.q), both, sol.correct), key="poll_hist_revealed")
        said = pr.closer_text(both, sol.correct)
        if said:
            st.markdown(said)
    proof(room.q, sol)
    back = {"lang": current_lang(), "present": 0} | _part(room)
    page_link(f"pages/{room.q.slug}.py", label=t("poll.see_part"), query_params=back)
