"""numba's ``njit`` for every compiled module of cgdcore, imported without numba's BLAS probe.

``numba.np.arraymath`` checks at import whether BLAS is available by importing ``scipy.linalg.cython_blas``
(numba 0.68: ≈ 0.14 s CPU, most of the first kernel load in a process that has not imported scipy.linalg). No kernel
here calls BLAS, so while that module loads, the loading thread is refused ``scipy.linalg`` when it is not loaded
yet: numba then computes ``np.correlate``/``np.convolve`` inner products with its own loop, and ``np.dot``/
``np.linalg`` in later compiled code still import scipy when they are compiled (``numba.np.linalg.ensure_blas``).
Other threads (the app's sessions) import scipy.linalg as usual meanwhile.
"""
from __future__ import annotations

import sys
import threading


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

from numba import njit  # noqa: E402  (after the probe is skipped)

__all__ = ["njit"]
