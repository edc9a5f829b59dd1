"""Pages before heavy runs: while any page is being drawn, the heavy runs in progress pause.

A heavy run computes in a script thread of the server's one Python process (ui.common.heavy_slot), so it shares the
interpreter lock with the threads that draw pages and with the web server's event loop. A lower CPU priority
(``HEAVY_NICE``) does not help there: a heavy thread that holds the lock keeps everyone waiting however often the
kernel runs it. So the heavy runs step aside themselves: every script run counts as *drawing* (app.py), except while
it waits for or holds a heavy slot or waits for a value another run computes; a heavy run, at its checkpoints
(cgdcore.cancel, every :data:`CHECK_INTERVAL` s), sleeps while anything is drawing — at most :data:`MAX_PAUSE` s at a
time and then at least :data:`MIN_RUN` s of computing, so a stream of page views slows heavy runs but never stops
them. A page that only reads cached results or draws is then served as on an idle server.
"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable

#: seconds between a heavy run's checks (its cancel check too); a page's drawing starts this late at most
CHECK_INTERVAL = 0.05
#: longest pause of a heavy run, then the shortest stretch it computes before it can pause again (seconds)
MAX_PAUSE, MIN_RUN = 0.6, 0.3
#: seconds between a pausing run's checks whether its user left
STILL_WANTED_EVERY = 0.1

#: seconds a thread may hold the interpreter lock while another waits for it (CPython's default is 0.005): the web
#: server's event loop asks for it after every network wait, and with a heavy run computing it waited that long
#: each time before it could answer
SWITCH_INTERVAL = 0.001
sys.setswitchinterval(SWITCH_INTERVAL)

_lock = threading.Lock()
_none_drawing = threading.Condition(_lock)  # notified when the last page being drawn is done
_drawing = 0
_local = threading.local()


def drawing_now() -> int:
    """Script runs drawing a page at this moment."""
    return _drawing


def _count(delta: int) -> None:
    global _drawing
    with _lock:
        _drawing += delta
        if _drawing <= 0:
            _none_drawing.notify_all()


def _wait_for_pages(timeout: float) -> None:
    """Block (without the interpreter lock, and without waking up before) until no page is being drawn, or
    ``timeout`` seconds."""
    with _none_drawing:
        _none_drawing.wait_for(lambda: _drawing <= 0, timeout)


@contextmanager
def drawing():
    """Around one script run: it counts as drawing a page until it ends (or while :func:`not_drawing` says not)."""
    _local.drawing = True
    _count(+1)
    try:
        yield
    finally:
        if _local.drawing:
            _count(-1)
        _local.drawing = False


@contextmanager
def not_drawing(heavy: bool = False):
    """Within the block this thread does not count as drawing: it waits (a queue, another run's value) or, with
    ``heavy``, computes a heavy run, which then gives way (:func:`give_way`). Nested blocks and threads that never
    counted are fine."""
    was, was_heavy = getattr(_local, "drawing", False), getattr(_local, "heavy", False)
    if was:
        _local.drawing = False
        _count(-1)
    _local.heavy = was_heavy or heavy
    try:
        yield
    finally:
        _local.heavy = was_heavy
        if was:
            _local.drawing = True
            _count(+1)


@contextmanager
def serving():
    """Around one HTTP request of the web server (serve.py): it counts as drawing a page until its response is sent.
    Requests interleave on the server's event loop, so this keeps no per-thread state (unlike :func:`drawing`)."""
    _count(+1)
    try:
        yield
    finally:
        _count(-1)


def give_way(still_wanted: Callable[[], None], *, wait=_wait_for_pages, clock=time.monotonic) -> float:
    """Called at checkpoints; in a heavy run (:func:`not_drawing` with ``heavy``): wait while a page is being drawn,
    at most :data:`MAX_PAUSE` s, calling ``still_wanted()`` (which raises if the run's user left) every
    :data:`STILL_WANTED_EVERY` s; after a full-length pause, carry on for at least :data:`MIN_RUN` s before pausing
    again. The waiting thread sleeps until the last page is drawn: it does not wake up to ask for the interpreter
    lock meanwhile. Returns the seconds paused."""
    if _drawing <= 0 or not getattr(_local, "heavy", False):
        return 0.0
    start = now = clock()
    if now < getattr(_local, "resume_until", 0.0):
        return 0.0
    while _drawing > 0 and now - start < MAX_PAUSE:
        wait(min(STILL_WANTED_EVERY, MAX_PAUSE - (now - start)))
        still_wanted()
        now = clock()
    if _drawing > 0:
        _local.resume_until = now + MIN_RUN
    return now - start
