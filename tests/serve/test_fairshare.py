"""The fair gate (serve/fairshare.py): slots, who goes next, pacing, refusals, bounds.

Threads wait on events, never on the wall clock; the gate's own clock is a fake one."""

from __future__ import annotations

import threading

import pytest

from serve.fairshare import ACTIVE_WINDOW_S, BUSY, CROWDED, FairGate


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def hold(
    gate: FairGate,
    session: str,
    address: str,
    release: threading.Event,
    log: list,
    client: str | None = None,
):
    """A thread that enters the gate, notes it, and holds its slot until ``release``; its run
    is charged to ``client`` (a browser) behind ``address``, or to the address alone."""

    def body() -> None:
        with gate.admit(session, client or address, address) as adm:
            log.append((session, adm.ok, adm.reason))
            if adm.ok:
                release.wait(10)

    th = threading.Thread(target=body, daemon=True)
    th.start()
    return th


def ran(gate: FairGate, clock: Clock, session: str, address: str, seconds: float) -> None:
    """One admitted run of ``seconds`` on the gate's fake clock (what a session used)."""
    with gate.admit(session, address):
        clock.now += seconds


def wait_until(cond, timeout: float = 10.0) -> None:
    done = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if cond():
            return
        done.wait(0.01)
    raise AssertionError("condition not reached")


def test_at_most_slots_runs_at_once_and_every_run_gets_one():
    gate = FairGate(2)
    release = threading.Event()
    log: list = []
    threads = [hold(gate, f"s{i}", "a", release, log) for i in range(5)]
    wait_until(lambda: gate.waiting() == 3)
    assert gate.running() == 2 and len(log) == 2
    release.set()
    for th in threads:
        th.join(10)
    assert sorted(s for s, ok, _ in log if ok) == [f"s{i}" for i in range(5)]
    assert gate.running() == 0 and gate.waiting() == 0 and gate.granted == 5


def test_the_session_that_used_least_goes_first():
    clock = Clock()
    gate = FairGate(1, clock=clock, half_life=20.0)
    # the abuser's session has used 5 s of run time just now
    with gate.admit("abuser", "x") as adm:
        assert adm.ok
        clock.now += 5.0
    assert gate.use_of("abuser") == pytest.approx(5.0)
    release_first, release_rest = threading.Event(), threading.Event()
    log: list = []
    first = hold(gate, "teacher", "school", release_first, log)
    wait_until(lambda: gate.running() == 1)
    # the abuser asks first, the student a moment later: the student goes first
    a = hold(gate, "abuser", "x", release_rest, log)
    wait_until(lambda: gate.waiting() == 1)
    b = hold(gate, "student", "school", release_rest, log)
    wait_until(lambda: gate.waiting() == 2)
    release_first.set()
    wait_until(lambda: len(log) == 2)
    assert log[1][0] == "student"
    release_rest.set()
    for th in (first, a, b):
        th.join(10)
    assert [s for s, _, _ in log] == ["teacher", "student", "abuser"]


def test_an_address_with_many_sessions_does_not_crowd_out_a_class():
    """Each of the abuser's five sessions has used less than the student's one, but the
    abuser's address has used more than the school's: the student goes first."""
    clock = Clock()
    gate = FairGate(1, clock=clock)
    for i in range(5):
        with gate.admit(f"x{i}", "abuser"):
            clock.now += 0.2
    ran(gate, clock, "student", "school", 0.5)
    assert gate.use_of("x0") < gate.use_of("student")
    assert gate.client_use("abuser") > gate.client_use("school")
    release_first, release_rest = threading.Event(), threading.Event()
    log: list = []
    first = hold(gate, "teacher", "school", release_first, log)
    wait_until(lambda: gate.running() == 1)
    waiting = [hold(gate, f"x{i}", "abuser", release_rest, log) for i in range(5)]
    wait_until(lambda: gate.waiting() == 5)
    late = hold(gate, "student", "school", release_rest, log)
    wait_until(lambda: gate.waiting() == 6)
    release_first.set()
    wait_until(lambda: len(log) >= 2)
    assert log[1][0] == "student"
    release_rest.set()
    for th in (first, late, *waiting):
        th.join(10)
    assert len(log) == 7


def test_use_is_halved_every_half_life():
    clock = Clock()
    gate = FairGate(1, clock=clock, half_life=10.0)
    ran(gate, clock, "s", "a", 4.0)
    clock.now += 10.0
    assert gate.use_of("s") == pytest.approx(2.0)
    clock.now += 20.0
    assert gate.use_of("s") == pytest.approx(0.5)


def test_a_new_session_starts_with_its_address_mean():
    clock = Clock()
    gate = FairGate(1, clock=clock)
    for name, seconds in (("x1", 2.0), ("x2", 4.0)):
        with gate.admit(name, "abuser"):
            clock.now += seconds
    ran(gate, clock, "s1", "school", 0.2)
    with gate.admit("x3", "abuser") as adm:
        assert adm.ok
        # its start: the mean of x1 and x2 at this moment (decayed), not zero
        assert gate.use_of("x3") == pytest.approx(
            (gate.use_of("x1") + gate.use_of("x2")) / 2, rel=1e-6
        )
    assert gate.use_of("x3") > 2.0
    with gate.admit("s2", "school") as adm:
        assert gate.use_of("s2") == pytest.approx(gate.use_of("s1"), rel=1e-6)
        assert gate.use_of("s2") < 0.3
        assert adm.new_session  # the server logs who its sessions come from (ui/admission)
    with gate.admit("s2", "school") as adm:
        assert not adm.new_session


def test_pacing_lets_a_burst_through_then_a_run_per_token():
    clock = Clock()
    gate = FairGate(2, clock=clock, sleep=clock.sleep, pace=True, burst=3, rate=2.0)
    for _ in range(3):
        with gate.admit("loop", "a") as adm:
            assert adm.ok and adm.waited_s == 0.0
    assert clock.slept == []
    for _ in range(4):  # no time passes between runs: each waits for its token
        with gate.admit("loop", "a") as adm:
            assert adm.ok
    assert clock.slept == pytest.approx([0.5, 0.5, 0.5, 0.5])
    # another session is not slowed by this one
    with gate.admit("other", "a") as adm:
        assert adm.ok and adm.waited_s == 0.0
    clock.now += 10.0  # a person who pauses gets the whole burst back, not more
    with gate.admit("loop", "a") as adm:
        assert adm.waited_s == 0.0
    assert len(clock.slept) == 4


def test_pacing_is_off_unless_asked():
    clock = Clock()
    gate = FairGate(1, clock=clock, sleep=clock.sleep, burst=1, rate=0.1)
    for _ in range(10):
        with gate.admit("s", "a") as adm:
            assert adm.ok
    assert clock.slept == []


def test_an_address_with_too_many_waiting_is_refused_at_once():
    gate = FairGate(1, pace=True, burst=100, max_waiting_per_client=2, timeout=30)
    release = threading.Event()
    log: list = []
    threads = [hold(gate, "holder", "x", release, log)]
    wait_until(lambda: gate.running() == 1)
    threads += [hold(gate, f"x{i}", "x", release, log) for i in range(2)]
    wait_until(lambda: gate.waiting() == 2)
    with gate.admit("x9", "x") as adm:
        assert not adm.ok and adm.reason == CROWDED
    # another address still gets in line
    threads.append(hold(gate, "student", "school", release, log))
    wait_until(lambda: gate.waiting() == 3)
    release.set()
    for th in threads:
        th.join(10)
    assert gate.refused[CROWDED] == 1
    assert sorted(s for s, ok, _ in log if ok) == ["holder", "student", "x0", "x1"]


def test_a_run_that_waits_too_long_is_refused_and_holds_nothing():
    gate = FairGate(1, pace=True, timeout=0.05)
    release = threading.Event()
    log: list = []
    th = hold(gate, "holder", "a", release, log)
    wait_until(lambda: gate.running() == 1)
    with gate.admit("late", "b") as adm:
        assert not adm.ok and adm.reason == BUSY
    assert gate.waiting() == 0 and gate.running() == 1
    release.set()
    th.join(10)
    assert gate.running() == 0
    with gate.admit("late", "b") as adm:
        assert adm.ok


def test_an_error_in_the_run_frees_the_slot_and_is_charged():
    clock = Clock()
    gate = FairGate(1, clock=clock)
    with pytest.raises(RuntimeError):
        with gate.admit("s", "a"):
            clock.now += 1.5
            raise RuntimeError("the page failed")
    assert gate.running() == 0
    assert gate.use_of("s") == pytest.approx(1.5)


def test_memory_is_bounded_by_max_sessions():
    gate = FairGate(1, max_sessions=50)
    for i in range(2000):
        with gate.admit(f"s{i}", f"10.0.{i // 250}.{i % 250}"):
            pass
    assert len(gate._sessions) == 50
    assert "s1999" in gate._sessions and "s0" not in gate._sessions


def test_slots_must_be_positive():
    with pytest.raises(ValueError):
        FairGate(0)


def test_while_the_server_is_not_healthy_a_flood_waits_and_the_class_goes():
    """The event loop behind (``healthy`` false): runs already running finish; a flooding
    address's runs (``flood_waiting`` or more waiting) do not start beside them, the class's
    do at once; when healthy again, a poke lets the held ones in."""
    clock = Clock()
    ok = {"now": True}
    gate = FairGate(4, clock=clock, healthy=lambda: ok["now"], flood_waiting=1)
    ran(gate, clock, "x0", "abuser", 2.0)
    ran(gate, clock, "s0", "school", 0.2)
    release = threading.Event()
    log: list = []
    first = hold(gate, "x1", "abuser", release, log)
    wait_until(lambda: gate.running() == 1)
    ok["now"] = False
    flood = [hold(gate, f"x{i}", "abuser", release, log) for i in (2, 3)]
    wait_until(lambda: gate.waiting() == 2)
    gate.poke()
    assert gate.running() == 1 and gate.held >= 1  # free slots, yet held
    student = hold(gate, "s1", "school", release, log)
    wait_until(lambda: gate.running() == 2)  # the class goes at once
    assert gate.waiting() == 2 and log[-1] == ("s1", True, None)
    ok["now"] = True
    gate.poke()
    wait_until(lambda: gate.running() == 4)
    release.set()
    for th in (first, *flood, student):
        th.join(10)
    assert [s for s, granted, _ in log if granted][:2] == ["x1", "s1"]


def test_an_unhealthy_server_still_runs_one_at_a_time_now_and_then():
    """Nothing running and nothing started for ``hold_at_most`` seconds: a held flood's run
    goes, so a lag that runs did not cause cannot stop every page."""
    clock = Clock()
    ok = {"now": True}
    gate = FairGate(2, clock=clock, healthy=lambda: ok["now"], hold_at_most=0.5, flood_waiting=1)
    ran(gate, clock, "s0", "school", 0.2)
    ran(gate, clock, "x0", "abuser", 1.0)
    ok["now"] = False
    release_s1, release_x = threading.Event(), threading.Event()
    log: list = []
    s1 = hold(gate, "s1", "school", release_s1, log)  # not a flood: goes at once
    wait_until(lambda: gate.running() == 1)
    flood = [hold(gate, f"x{i}", "abuser", release_x, log) for i in (1, 2)]
    wait_until(lambda: gate.waiting() == 2)
    gate.poke()
    assert gate.running() == 1 and gate.held >= 1  # the flood is held
    clock.now += 1.0
    release_s1.set()  # nothing runs now, the last start was 1 s ago: one of the flood goes
    wait_until(lambda: gate.running() == 1 and gate.waiting() == 1)
    ok["now"] = True
    release_x.set()
    for th in (s1, *flood):
        th.join(10)
    assert [s for s, granted, _ in log if granted][0] == "s1" and gate.running() == 0


def test_every_run_is_charged_at_least_min_charge():
    """A cached page rerun in a loop takes milliseconds of script but a full delivery of
    messages: each run counts at least ``min_charge``, so many quick runs weigh more than a
    few real ones."""
    clock = Clock()
    gate = FairGate(1, clock=clock, min_charge=0.25, half_life=1e9)  # no decay here
    for _ in range(8):
        with gate.admit("loop", "abuser"):
            clock.now += 0.01
    ran(gate, clock, "student", "school", 0.3)
    assert gate.use_of("loop") == pytest.approx(8 * 0.25, rel=0.01)
    assert gate.use_of("student") == pytest.approx(0.3, rel=0.01)
    assert gate.client_use("abuser") > gate.client_use("school")


def test_the_last_free_slot_is_kept_for_the_class_while_a_flood_waits():
    """``reserve`` slots stay free while an address floods and another (the class) is
    active: the flood runs on the other slots only, the class gets the reserved one at
    once; a flooding client alone uses every slot."""
    clock = Clock()
    gate = FairGate(2, clock=clock, healthy=lambda: True, reserve=1, flood_waiting=1)
    ran(gate, clock, "s0", "school", 0.1)
    ran(gate, clock, "x0", "abuser", 1.0)
    release_x1, release_x = threading.Event(), threading.Event()
    log: list = []
    x1 = hold(gate, "x1", "abuser", release_x1, log)
    wait_until(lambda: gate.running() == 1)
    flood = [hold(gate, f"x{i}", "abuser", release_x, log) for i in (2, 3)]
    wait_until(lambda: gate.waiting() == 2)
    gate.poke()
    assert gate.running() == 1  # one slot free, kept for the class
    with gate.admit("s1", "school") as adm:
        assert adm.ok and adm.waited_s == 0.0 and gate.running() == 2
    release_x1.set()
    wait_until(lambda: sum(1 for e in log if e[1]) == 2)  # x1 done: one of the flood runs
    release_x.set()
    for th in (x1, *flood):
        th.join(10)
    # alone (the school asked for nothing for minutes), the abuser uses both slots
    clock.now += 300.0
    release = threading.Event()
    both = [hold(gate, f"y{i}", "abuser", release, log) for i in range(2)]
    wait_until(lambda: gate.running() == 2)
    release.set()
    for th in both:
        th.join(10)


def test_a_heavy_address_gives_way_while_a_lighter_one_runs():
    """``give_way``: while the class has a run in a slot, an address using more than
    ``heavy_factor`` times as much starts none (a free slot or not) and goes as soon as that
    run is over; addresses of similar use share the slots; off, the free slot is taken."""
    for give_way in (True, False):
        clock = Clock()
        gate = FairGate(2, clock=clock, give_way=give_way, heavy_factor=2.0)
        with gate.admit("s0", "school"):
            clock.now += 0.1
        with gate.admit("x0", "abuser"):
            clock.now += 1.0
        with gate.admit("p0", "peer"):  # another school, about as light as the first
            clock.now += 0.15
        release_s, release_p, release_x = threading.Event(), threading.Event(), threading.Event()
        log: list = []
        s1 = hold(gate, "s1", "school", release_s, log)
        wait_until(lambda: gate.running() == 1)
        x1 = hold(gate, "x1", "abuser", release_x, log)
        if give_way:
            wait_until(lambda: gate.waiting() == 1)
            gate.poke()
            assert gate.running() == 1 and ("x1", True, None) not in log  # a slot free, unused
            p1 = hold(gate, "p1", "peer", release_p, log)  # not heavy: takes it
            wait_until(lambda: ("p1", True, None) in log)
            release_p.set()
            p1.join(10)
            assert ("x1", True, None) not in log  # the school still runs
            release_s.set()
            wait_until(lambda: ("x1", True, None) in log)
        else:
            wait_until(lambda: ("x1", True, None) in log)
            assert gate.running() == 2
            release_s.set()
        release_x.set()
        for th in (s1, x1):
            th.join(10)
        assert gate.running() == 0 and gate.waiting() == 0


def test_a_refused_run_is_charged_min_charge():
    """A refusal is still a run to make and deliver (the page says why): a client whose
    runs are refused in a loop grows heavier instead of looking idle."""
    clock = Clock()
    gate = FairGate(
        1,
        clock=clock,
        pace=True,
        burst=100,
        max_waiting_per_client=1,
        min_charge=0.25,
        half_life=1e9,
    )
    release = threading.Event()
    log: list = []
    threads = [hold(gate, "x0", "x", release, log), hold(gate, "x1", "x", release, log)]
    wait_until(lambda: gate.running() == 1 and gate.waiting() == 1)
    for i in range(4):
        with gate.admit(f"y{i}", "x") as adm:
            assert not adm.ok and adm.reason == CROWDED
    assert gate.use_of("y0") == pytest.approx(0.25)
    assert gate.client_use("x") == pytest.approx(4 * 0.25)  # nothing finished yet
    release.set()
    for th in threads:
        th.join(10)


def test_a_visitor_who_left_does_not_hold_the_class_back():
    """The reserved slot and the unhealthy rule favour the lightest ACTIVE address: one that
    asked for a run lately. A visitor gone for longer than ``ACTIVE_WINDOW_S`` keeps a small
    decayed use for minutes; the class must not wait for it."""
    clock = Clock()
    healthy = [True]
    gate = FairGate(2, clock=clock, healthy=lambda: healthy[0], reserve=1, heavy_factor=2.0)
    ran(gate, clock, "g0", "gone", 0.05)  # one short visit, then nothing
    clock.now += ACTIVE_WINDOW_S + 1.0
    assert gate.client_use("gone") > 0.01  # still remembered
    ran(gate, clock, "s0", "school", 2.0)
    release = threading.Event()
    log: list = []
    both = [hold(gate, f"s{i}", "school", release, log) for i in (1, 2)]
    wait_until(lambda: gate.running() == 2)  # the class takes the reserved slot too
    release.set()
    for th in both:
        th.join(10)
    healthy[0] = False  # the loop behind: the lightest active address still starts runs
    release = threading.Event()
    first = hold(gate, "s3", "school", release, log)
    wait_until(lambda: gate.running() == 1)
    second = hold(gate, "s4", "school", release, log)
    wait_until(lambda: gate.running() == 2)
    release.set()
    for th in (first, second):
        th.join(10)


def test_a_class_is_not_held_behind_a_lone_visitor():
    """A class uses far more than one visitor who clicked a moment ago, but it does not
    flood: the reserve and the unhealthy rule are for floods, so the class keeps every slot
    (measured: held behind the bench's warm-up address, arrivals waited 2 s)."""
    clock = Clock()
    gate = FairGate(2, clock=clock, healthy=lambda: False, reserve=1, flood_waiting=4)
    ran(gate, clock, "v0", "visitor", 0.05)
    ran(gate, clock, "s0", "school", 3.0)
    release = threading.Event()
    log: list = []
    both = [hold(gate, f"s{i}", "school", release, log) for i in (1, 2)]
    wait_until(lambda: gate.running() == 2)
    release.set()
    for th in both:
        th.join(10)


def test_a_flood_goes_after_the_class_and_rests_between_its_runs():
    """Held back, a flood uses no more than a class, so use alone would rank it first; its
    waiting runs (``flood_waiting``) rank it last. With ``rest``, after each run it waits
    ``rest`` times that run's charge before the next, while a calm address is around."""
    clock = Clock()
    gate = FairGate(1, clock=clock, flood_waiting=2, rest=3.0, min_charge=0.25)
    with gate.admit("s0", "school"):
        clock.now += 1.0  # the class used more than the flood so far
    release_x1, release_s1, release_x = threading.Event(), threading.Event(), threading.Event()
    log: list = []
    x1 = hold(gate, "x1", "abuser", release_x1, log)
    wait_until(lambda: gate.running() == 1)
    flood = [hold(gate, f"x{i}", "abuser", release_x, log) for i in (2, 3)]
    wait_until(lambda: gate.waiting() == 2)
    s1 = hold(gate, "s1", "school", release_s1, log)
    wait_until(lambda: gate.waiting() == 3)
    release_x1.set()
    wait_until(lambda: ("s1", True, None) in log)  # the class first
    release_s1.set()
    s1.join(10)
    gate.poke()
    assert gate.running() == 0 and gate.waiting() == 2  # resting: 3 x 0.25 s after x1
    clock.now += 1.0
    gate.poke()
    wait_until(lambda: gate.running() == 1)
    release_x.set()
    for th in (x1, *flood):
        th.join(10)
    assert [s for s, granted, _ in log if granted][:2] == ["x1", "s1"]


def test_a_lecture_hall_behind_one_address_is_many_browsers_not_one_crowd():
    """Each browser has its own cap on waiting runs; the address's cap is the outer guard,
    sized for a hall behind one NAT. Keyed on the address alone, the same hall would be
    refused once its address had ``max_waiting_per_client`` runs waiting."""
    for per_browser in (True, False):
        gate = FairGate(
            1,
            pace=True,
            burst=100,
            max_waiting_per_client=3,
            max_waiting_per_address=10,
            timeout=30,
        )
        release = threading.Event()
        log: list = []
        threads = [hold(gate, "teacher", "school", release, log, client="t")]
        wait_until(lambda: gate.running() == 1)
        for i in range(10):  # ten phones arriving at once behind one address
            client = f"phone{i}" if per_browser else None
            threads.append(hold(gate, f"s{i}", "school", release, log, client=client))
        if per_browser:
            wait_until(lambda: gate.waiting() == 10)
            assert gate.refused[CROWDED] == 0
            with gate.admit("s10", "phone10", "school") as adm:  # the eleventh: outer guard
                assert not adm.ok and adm.reason == CROWDED
            threads.append(hold(gate, "v", "home", release, log, client="visitor"))
            wait_until(lambda: gate.waiting() == 11)  # another address is still let in
        else:
            wait_until(lambda: len(log) == 1 + 7)  # 3 wait, 7 refused at once
            assert gate.refused[CROWDED] == 7 and gate.waiting() == 3
        release.set()
        for th in threads:
            th.join(10)
        if per_browser:
            assert sum(ok for _, ok, _ in log) == 12 and gate.refused[CROWDED] == 1


def test_a_class_of_browsers_behind_one_address_goes_before_a_flood():
    """A class behind one NAT arriving at once (six phones, each one run waiting) and a
    script with many runs waiting on one client elsewhere: per browser, no phone floods, the
    script does and gives way: every phone goes first. Keyed on the address alone, the class
    had six waiting (a flood too) and more use than the script, so it gave way instead."""
    for per_browser, first in ((True, "class"), (False, "script")):
        clock = Clock()
        gate = FairGate(1, clock=clock, give_way=True, flood_waiting=4, min_charge=0.25)
        for i in range(6):  # the class so far: 1.8 s in all, 0.3 s a phone
            with gate.admit(f"s{i}", f"phone{i}" if per_browser else "school", "school"):
                clock.now += 0.3
        ran(gate, clock, "x0", "script", 0.5)
        release, go = threading.Event(), threading.Event()
        go.set()
        log: list = []
        threads = [hold(gate, "x1", "script", release, log)]
        wait_until(lambda: gate.running() == 1)
        threads += [hold(gate, f"x{i}", "script", go, log) for i in range(2, 7)]
        wait_until(lambda: gate.waiting() == 5)
        for i in range(6):
            client = f"phone{i}" if per_browser else None
            threads.append(hold(gate, f"s{i}", "school", go, log, client=client))
        wait_until(lambda: gate.waiting() == 11)
        release.set()
        for th in threads:
            th.join(10)
        order = ["class" if s.startswith("s") else "script" for s, ok, _ in log[1:] if ok]
        assert len(order) == 11 and order[0] == first, (per_browser, order)
        if per_browser:
            assert order[:6] == ["class"] * 6, order


def test_a_phone_that_just_arrived_does_not_make_its_class_heavy():
    """Per browser, a fresh phone has used nothing: against it every other phone used more
    than twice as much. Below ``heavy_floor`` use alone makes no client heavy, so a phone
    that used a little still takes the free slot beside the fresh one's run; without the
    floor it gave way and the class ran one at a time."""
    for floor, runs_beside in ((1.0, True), (0.0, False)):
        clock = Clock()
        gate = FairGate(2, clock=clock, give_way=True, heavy_floor=floor, min_charge=0.25)
        ran(gate, clock, "a0", "phoneA", 0.5)  # phone A: one click so far
        release = threading.Event()
        log: list = []
        fresh = hold(gate, "b0", "school", release, log, client="phoneB")  # just arrived
        wait_until(lambda: gate.running() == 1)
        other = hold(gate, "a1", "school", release, log, client="phoneA")
        if runs_beside:
            wait_until(lambda: gate.running() == 2)
        else:
            wait_until(lambda: gate.waiting() == 1)
            assert gate.running() == 1 and gate.held >= 1  # phone A gives way to phone B
        release.set()
        for th in (fresh, other):
            th.join(10)
        assert sorted(s for s, ok, _ in log if ok) == ["a1", "b0"]
