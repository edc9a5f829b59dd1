"""Pages before heavy runs (ui/priority.py): who counts as drawing, how long a heavy run pauses, and a real heavy loop
in a thread that stops computing while another thread draws."""
import threading
import time

import pytest

from ui import priority


@pytest.fixture(autouse=True)
def nothing_drawing():
    assert priority.drawing_now() == 0
    yield
    assert priority.drawing_now() == 0


class FakeTime:
    def __init__(self):
        self.now = 0.0

    def clock(self):
        return self.now

    def sleep(self, s):
        self.now += s


def test_a_script_run_draws_except_while_it_waits_or_computes_a_heavy_run():
    from ui import common

    with priority.drawing():
        assert priority.drawing_now() == 1
        with priority.not_drawing():
            assert priority.drawing_now() == 0
            with priority.not_drawing(heavy=True):  # nested: still not drawing, now heavy
                assert priority.drawing_now() == 0
            assert priority.drawing_now() == 0
        assert priority.drawing_now() == 1
        with common.heavy_slot():
            assert priority.drawing_now() == 0
            with common.heavy_slot():  # a heavy run calling another
                assert priority.drawing_now() == 0
        assert priority.drawing_now() == 1
        with pytest.raises(RuntimeError):
            with common.heavy_slot():
                raise RuntimeError("a failing run")
        assert priority.drawing_now() == 1
    with priority.not_drawing(heavy=True):  # a thread that never counted (a worker thread)
        assert priority.drawing_now() == 0


def test_a_page_waiting_for_another_sessions_value_does_not_count():
    from ui.bounded_cache import ByteBoundedLRU

    store, started, release, seen = ByteBoundedLRU(1 << 20), threading.Event(), threading.Event(), []

    def compute():
        started.set()
        release.wait(5)
        return 1

    first = threading.Thread(target=lambda: store.get_or_compute("k", 1, compute))
    first.start()
    started.wait(5)

    def waiter():
        with priority.drawing():
            seen.append(store.get_or_compute("k", 1, lambda: 2))

    second = threading.Thread(target=waiter)
    second.start()
    time.sleep(0.1)
    assert priority.drawing_now() == 0  # the second page waits for the first run's value: it draws nothing
    release.set()
    first.join(5)
    second.join(5)
    assert seen == [1]


def test_only_a_heavy_run_gives_way_and_only_while_something_draws():
    t = FakeTime()
    calls = []
    assert priority.give_way(lambda: calls.append(1), wait=t.sleep, clock=t.clock) == 0.0  # nothing draws
    with priority.drawing():
        # this thread draws and is not heavy: nothing to give way to
        assert priority.give_way(lambda: calls.append(1), wait=t.sleep, clock=t.clock) == 0.0
    assert not calls and t.now == 0.0


def test_a_heavy_run_pauses_until_the_page_is_drawn_then_for_at_most_max_pause():
    t = FakeTime()
    wanted = []
    priority._count(+1)  # a page drawn by another thread
    try:
        with priority.not_drawing(heavy=True):
            ends_at = 0.2

            def sleep(s):
                t.sleep(s)
                if t.now >= ends_at and priority.drawing_now():
                    priority._count(-1)  # the page is drawn

            paused = priority.give_way(lambda: wanted.append(t.now), wait=sleep, clock=t.clock)
            assert paused == pytest.approx(0.2, abs=0.011)
            assert len(wanted) == 2  # it asked whether its user is still there every STILL_WANTED_EVERY s
            priority._count(+1)  # a page that takes longer than MAX_PAUSE
            paused = priority.give_way(lambda: None, wait=t.sleep, clock=t.clock)
            assert paused == pytest.approx(priority.MAX_PAUSE, abs=0.011)
            assert priority.give_way(lambda: None, wait=t.sleep, clock=t.clock) == 0.0  # MIN_RUN of computing first
            t.now += priority.MIN_RUN
            assert priority.give_way(lambda: None, wait=t.sleep, clock=t.clock) > 0
    finally:
        priority._count(-priority.drawing_now())


def test_a_user_leaving_during_the_pause_ends_the_run():
    class Left(Exception):
        pass

    def still_wanted():
        raise Left

    priority._count(+1)
    try:
        with priority.not_drawing(heavy=True), pytest.raises(Left):
            priority.give_way(still_wanted)
    finally:
        priority._count(-1)


def test_a_heavy_loop_in_a_thread_stops_computing_while_another_thread_draws():
    """Real threads and the real checkpoint: a heavy loop's iterations while a page draws for 0.5 s are a small
    fraction of its iterations in 0.5 s without one."""
    from cgdcore.cancel import cancellable, checkpoint

    counts, stop, phase = {"alone": 0, "page": 0, "after": 0}, threading.Event(), ["alone"]

    def heavy():
        with priority.not_drawing(heavy=True), cancellable(lambda: priority.give_way(lambda: None),
                                                           priority.CHECK_INTERVAL):
            while not stop.is_set():
                sum(range(2000))  # holds the interpreter lock, as a run's Python parts do
                counts[phase[0]] += 1
                checkpoint()

    th = threading.Thread(target=heavy)
    th.start()
    try:
        time.sleep(0.5)
        alone = counts["alone"]
        with priority.drawing():
            time.sleep(0.05)  # a checkpoint interval: the loop sees the page at its next check
            phase[0] = "page"
            time.sleep(0.45)
            during = counts["page"]
            phase[0] = "after"
    finally:
        stop.set()
        th.join(5)
    assert alone > 100
    assert during < 0.1 * alone, (alone, during)
