"""One BLAS thread while the score-based optimisers run.

NOTEARS and DP-NOTEARS make tens of thousands of BLAS/LAPACK calls on d×d matrices (scipy's
L-BFGS-B ``setulb``, the Padé solve of ``expm``, numpy's matmuls). OpenBLAS hands some of them to
its worker threads, which then busy-wait for the next call: on the 2-core machine that doubles
the CPU time for no gain, and when anything else is running it is ruinous — measured with
another process's test suite running, NOTEARS at d = 20 took 55–76 s with OpenBLAS's default
threads and 3.8–4.4 s with one (bench/score.py).

:func:`single_threaded_blas` sets the OpenBLAS builds shipped in the numpy and scipy wheels to one
thread and restores their previous count when the last concurrent user leaves. The count is
process-wide (OpenBLAS has no per-thread setting: even ``openblas_set_num_threads_local`` is
global in these builds), so other threads' BLAS calls also run on one thread meanwhile — a
change of speed only. Where no such library is found (other BLAS, other platforms) it does nothing.
"""
from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import threading
from contextlib import contextmanager

__all__ = ["single_threaded_blas"]

_LOCK = threading.Lock()
_users = 0
_saved: list[int] = []
_controls: list | None = None  # [(get, set)] per OpenBLAS library


def _openblas_controls() -> list:
    """(get, set) thread-count functions of the OpenBLAS libraries bundled with numpy and scipy."""
    global _controls
    if _controls is None:
        found = []
        for pkg in ("numpy", "scipy"):
            spec = importlib.util.find_spec(pkg)
            if spec is None or spec.origin is None:
                continue
            site = os.path.dirname(os.path.dirname(spec.origin))
            for path in sorted(glob.glob(os.path.join(site, f"{pkg}.libs", "*openblas*"))):
                try:
                    lib = ctypes.CDLL(path)
                except OSError:
                    continue
                fns = []
                for base in ("openblas_get_num_threads", "openblas_set_num_threads"):
                    fn = next((getattr(lib, p + base + s) for p in ("", "scipy_") for s in ("", "64_")
                               if hasattr(lib, p + base + s)), None)
                    fns.append(fn)
                if None not in fns:
                    fns[0].restype, fns[0].argtypes = ctypes.c_int, []
                    fns[1].restype, fns[1].argtypes = None, [ctypes.c_int]
                    found.append(tuple(fns))
        _controls = found
    return _controls


@contextmanager
def single_threaded_blas():
    """Run the body with one OpenBLAS thread (see the module docstring); nestable and thread-safe."""
    global _users, _saved
    controls = _openblas_controls()
    with _LOCK:
        if _users == 0:
            _saved = [get() for get, _ in controls]
            for _, set_ in controls:
                set_(1)
        _users += 1
    try:
        yield
    finally:
        with _LOCK:
            _users -= 1
            if _users == 0:
                for (_, set_), n in zip(controls, _saved):
                    set_(n)
