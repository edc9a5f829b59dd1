"""Ending a long run early: inner loops call :func:`checkpoint`, a caller installs what it should do.

``checkpoint()`` is a no-op (one context-variable read) unless a check was installed with :func:`cancellable`
around the run. An installed check is called at most once per ``interval`` seconds of wall time and ends the run by
raising (any exception: :class:`Cancelled`, or the caller's own). The check lives in a ``contextvars`` variable, so it
applies to the thread (or task) that installed it and to nothing else: two users' runs on one server each see
their own.

Runs in worker processes see a :class:`StopFile` instead: the parent creates it, passes its path, and touches it to
ask the workers to stop; a worker installs ``cancellable(stop_file.check)``.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

__all__ = ["Cancelled", "checkpoint", "cancellable", "installed", "StopFile"]


class Cancelled(Exception):
    """The run was asked to stop before it finished."""


class _Check:
    __slots__ = ("check", "interval", "due")

    def __init__(self, check: Callable[[], None], interval: float):
        self.check, self.interval, self.due = check, interval, time.monotonic() + interval


_current: ContextVar[_Check | None] = ContextVar("cgdcore_cancel_check", default=None)


def checkpoint() -> None:
    """Give the installed check a chance to end the run (no-op when none is installed or it ran recently)."""
    c = _current.get()
    if c is None:
        return
    now = time.monotonic()
    if now < c.due:
        return
    c.due = now + c.interval
    c.check()


def installed() -> bool:
    """Is a check installed in this context (a caller may then poll where it would otherwise block)?"""
    return _current.get() is not None


@contextmanager
def cancellable(check: Callable[[], None], interval: float = 0.2) -> Iterator[None]:
    """Within the block, :func:`checkpoint` calls ``check()`` at most every ``interval`` seconds; ``check`` ends the
    run by raising. Nested blocks replace the outer check until they exit."""
    if interval < 0:
        raise ValueError(f"interval must be >= 0 seconds; got {interval}")
    token = _current.set(_Check(check, interval))
    try:
        yield
    finally:
        _current.reset(token)


class StopFile:
    """A stop request visible to other processes on this machine: a temporary file's existence.

    ``request()`` creates the file, ``check()`` raises :class:`Cancelled` once it exists, ``close()`` removes it.
    Checking is one ``stat`` call, made at most every checkpoint interval."""

    def __init__(self, path: str | None = None):
        if path is None:
            import tempfile

            fd, path = tempfile.mkstemp(prefix="cgd-stop-")
            os.close(fd)
            os.unlink(path)
        self.path = path

    def request(self) -> None:
        with open(self.path, "a"):
            pass

    def check(self) -> None:
        if os.path.exists(self.path):
            raise Cancelled("the run was stopped")

    def close(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
