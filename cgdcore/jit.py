"""numba's ``njit`` for every compiled module of cgdcore, imported without numba's BLAS probe.

``numba.np.arraymath`` checks at import whether BLAS is available by importing ``scipy.linalg.cython_blas``
(numba 0.68: ≈ 0.14 s CPU, most of the first kernel load in a process that has not imported scipy.linalg). No kernel
here calls BLAS, so while that module loads, the loading thread is refused ``scipy.linalg`` when it is not loaded
yet: numba then computes ``np.correlate``/``np.convolve`` inner products with its own loop, and ``np.dot``/
``np.linalg`` in later compiled code still import scipy when they are compiled (``numba.np.linalg.ensure_blas``).
Other threads (the app's sessions) import scipy.linalg as usual meanwhile.

Compiling a kernel for a new signature takes ~0.1–1 CPU-second; its machine code is then cached on disk
(``cache=True``) and loaded by any later process in milliseconds. Processes that start together (the app's sweep
workers, the encrypted run's process beside the server, test workers) would each compile the same kernel at once;
:func:`njit` makes them take turns per kernel, through a file lock beside the cache, so one compiles and the others
load what it saved.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager


class _NoScipyLinalg:
    """Meta-path finder that refuses ``scipy.linalg`` to one thread (held in ``sys.meta_path`` only around
    :func:`_skip_blas_probe`)."""

    def __init__(self, thread: int):
        self.thread = thread

    def find_spec(self, name, path=None, target=None):
        if threading.get_ident() == self.thread and (name == "scipy.linalg" or name.startswith("scipy.linalg.")):
            raise ImportError(f"{name} is not imported while cgdcore loads its kernels")
        return None


def _skip_blas_probe() -> None:
    """Import numba's numpy implementations without their BLAS probe (see the module docstring)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    finder = _NoScipyLinalg(threading.get_ident())
    sys.meta_path.insert(0, finder)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(finder)


_skip_blas_probe()

import numba  # noqa: E402  (after the probe is skipped)
import numpy as np  # noqa: E402
from numba.core.compiler_lock import global_compiler_lock  # noqa: E402

__all__ = ["njit", "frozen"]

#: how long a process waits for another to compile a kernel before compiling it itself
LOCK_WAIT = 120.0


def njit(**options):
    """``numba.njit(**options)``; with ``cache=True``, processes compiling the same kernel take turns (module
    docstring), so each signature is compiled once and loaded from the cache elsewhere."""
    def decorate(fn):
        dispatcher = numba.njit(**options)(fn)
        if options.get("cache"):
            _compile_in_turn(dispatcher)
        return dispatcher
    return decorate


def frozen(a: np.ndarray) -> np.ndarray:
    """``a`` as a C-contiguous, read-only array (``a`` itself, a view, or a contiguous copy) for a kernel's input.

    numba compiles a kernel once per layout and per writeable flag of each array argument (0.2–0.8 CPU-seconds
    each), so the same data handed in as a fresh array, as a cached read-only one or as a transposed view would
    each compile a signature of their own. Kernels never write into their inputs."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _compile_in_turn(dispatcher) -> None:
    """Wrap ``dispatcher.compile`` (numba calls it for every signature not compiled in this process): the compile
    runs under numba's in-process compiler lock and then a file lock per kernel, so a process that waited finds the
    other's result in the disk cache (numba looks there first). Kernels call kernels only down their call graph, so
    the file locks are always taken in one order; a lock not granted within :data:`LOCK_WAIT` is skipped."""
    from numba.core import sigutils

    compile_ = dispatcher.compile
    code = dispatcher.py_func.__code__
    try:
        lock_path = os.path.join(dispatcher.stats.cache_path, f"{dispatcher.py_func.__module__.rpartition('.')[2]}."
                                                              f"{code.co_name}-{code.co_firstlineno}.compile-lock")
    except Exception:  # noqa: BLE001 (no cache location: compile as numba would)
        return

    def compile_in_turn(sig):
        if tuple(sigutils.normalize_signature(sig)[0]) in dispatcher.overloads:
            return compile_(sig)  # compiled here already (numba asks again each time a caller is typed)
        with global_compiler_lock, _file_lock(lock_path):
            return compile_(sig)

    dispatcher.compile = compile_in_turn


@contextmanager
def _file_lock(path: str):
    """An exclusive POSIX lock on ``path`` (created if needed) for the block, waiting up to :data:`LOCK_WAIT`;
    without the lock (no such file system support, a read-only folder, the wait exceeded) the block runs anyway."""
    try:
        import fcntl
        os.makedirs(os.path.dirname(path), exist_ok=True)  # numba makes its cache folder only when it first saves
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except (ImportError, OSError):
        yield
        return
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # closing releases the lock
