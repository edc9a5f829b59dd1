"""A process-wide cache bounded in bytes as well as entries: least recently used entries go first.

The app keeps loaded datasets, parsed uploads and deterministic results for every session of the server. Bounding
each cache by its number of entries alone let a few large entries (a million-row sample, a sweep's table) hold
gigabytes; here every entry is measured when stored (:func:`size_of`) and the whole process stays under one budget
(``CGD_CACHE_MB``, :data:`DEFAULT_MB` by default). Each namespace also keeps its own entry limit and time to live.
Concurrent requests for the same key compute it once; the others wait for that value.
"""
from __future__ import annotations

import sys
import threading
import time
import types
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from cgdcore.environment import env_number
from ui.priority import not_drawing

__all__ = ["DEFAULT_MB", "budget_bytes", "size_of", "ByteBoundedLRU"]

#: default process-wide budget in MiB (CGD_CACHE_MB changes it)
DEFAULT_MB = 1024.0


def budget_bytes() -> int:
    """The byte budget: CGD_CACHE_MB (MiB, > 0), or :data:`DEFAULT_MB` when unset or not a positive number."""
    mb = env_number("CGD_CACHE_MB", DEFAULT_MB)
    return int((mb if mb > 0 else DEFAULT_MB) * 2**20)


#: code and singletons: shared by every value, owned by none
_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type(None))


def size_of(obj: Any, *, limit: int = 200_000) -> int:
    """Bytes held by ``obj`` and everything it references, each object counted once.

    numpy arrays count their buffer (a view counts the array owning it, once), pandas objects their deep memory usage,
    containers and plain objects (``__dict__`` / ``__slots__``, dataclasses) their own size plus their contents.
    Classes, modules and functions are shared code, not counted. After ``limit`` objects the walk stops (a lower
    bound then; the app's values are far smaller)."""
    import numpy as np

    seen: set[int] = set()
    stack = [obj]
    total = 0
    while stack and len(seen) < limit:
        o = stack.pop()
        if id(o) in seen or isinstance(o, _SHARED):
            continue
        seen.add(id(o))
        if isinstance(o, np.ndarray):
            owner = o
            while isinstance(owner.base, np.ndarray):
                owner = owner.base
            if owner is not o:
                stack.append(owner)
                total += sys.getsizeof(o) - (o.nbytes if o.flags.owndata else 0)
                continue
            total += max(sys.getsizeof(o), o.nbytes)
            if o.dtype == object:
                stack.extend(o.ravel().tolist())
            continue
        if _is_pandas(o):
            try:
                mu = o.memory_usage(deep=True)
                total += int(mu.sum() if hasattr(mu, "sum") else mu)
            except Exception:  # an exotic extension type: its shallow size
                total += sys.getsizeof(o)
            continue
        if isinstance(o, (str, bytes, bytearray, memoryview, int, float, complex, bool)):
            total += o.nbytes if isinstance(o, memoryview) else sys.getsizeof(o)
            continue
        total += sys.getsizeof(o)
        if isinstance(o, dict):
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, (list, tuple, set, frozenset)):
            stack.extend(o)
        else:
            d = getattr(o, "__dict__", None)
            if isinstance(d, dict):
                stack.append(d)
            for cls in type(o).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if isinstance(slot, str) and slot not in ("__dict__", "__weakref__") and hasattr(o, slot):
                        stack.append(getattr(o, slot))
    return total


def _is_pandas(o) -> bool:
    mod = type(o).__module__
    return mod.startswith("pandas.") and hasattr(o, "memory_usage")


@dataclass
class _Entry:
    value: Any
    nbytes: int
    stored: float


class ByteBoundedLRU:
    """Entries ``(namespace, key) -> value`` under ``max_bytes`` in total; per namespace at most ``max_entries`` and
    each for ``ttl`` seconds (:meth:`limit`; a namespace ``kind:owner``, e.g. one session's uploads, has the limits of
    ``kind``). A value larger than the whole budget is returned but not kept."""

    def __init__(self, max_bytes: int, *, clock: Callable[[], float] = time.monotonic, measure=size_of):
        self.max_bytes = int(max_bytes)
        self._clock, self._measure = clock, measure
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple, _Entry] = OrderedDict()  # least recently used first
        self._limits: dict[str, tuple[int, float]] = {}
        self._computing: dict[tuple, threading.Event] = {}
        self.nbytes = 0
        self.evictions = 0

    def limit(self, namespace: str, max_entries: int, ttl: float = 3600.0) -> None:
        self._limits[namespace] = (int(max_entries), float(ttl))

    def __len__(self) -> int:
        return len(self._entries)

    def namespace_bytes(self, namespace: str) -> int:
        with self._lock:
            self._expire()
            return sum(e.nbytes for (ns, _), e in self._entries.items() if ns == namespace)

    def get(self, namespace: str, key: Hashable, default=None):
        """The value stored under ``key`` (marked as used now), or ``default``."""
        with self._lock:
            e = self._lookup((namespace, key))
            return default if e is None else e.value

    def get_or_compute(self, namespace: str, key: Hashable, compute: Callable[[], Any]):
        """The stored value, or ``compute()`` stored and returned (computed once when requests for it overlap; an
        exception is raised to every waiter's own retry and nothing is stored)."""
        full = (namespace, key)
        while True:
            with self._lock:
                e = self._lookup(full)
                if e is not None:
                    return e.value
                pending = self._computing.get(full)
                if pending is None:
                    self._computing[full] = threading.Event()
                    break
            with not_drawing():  # a page waiting for another run's value does not hold up that run (ui/priority.py)
                pending.wait()
        try:
            value = compute()
            self.put(namespace, key, value)
            return value
        finally:
            with self._lock:
                self._computing.pop(full).set()

    def put(self, namespace: str, key: Hashable, value) -> None:
        nbytes = int(self._measure(value))
        full = (namespace, key)
        with self._lock:
            old = self._entries.pop(full, None)
            if old is not None:
                self.nbytes -= old.nbytes
            if nbytes > self.max_bytes:
                return
            self._expire()
            self._entries[full] = _Entry(value, nbytes, self._clock())
            self.nbytes += nbytes
            max_entries = self._limits_of(namespace)[0]
            mine = [k for k in self._entries if k[0] == namespace]
            for k in mine[:max(0, len(mine) - max_entries)]:
                self._drop(k)
            for k in list(self._entries):
                if self.nbytes <= self.max_bytes:
                    break
                self._drop(k)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.nbytes = 0

    def _lookup(self, full: tuple) -> _Entry | None:
        e = self._entries.get(full)
        if e is None:
            return None
        ttl = self._limits_of(full[0])[1]
        if ttl and self._clock() - e.stored >= ttl:
            self._drop(full)
            return None
        self._entries.move_to_end(full)
        return e

    def _expire(self) -> None:
        """Drop every entry past its time to live (their bytes are no longer the cache's)."""
        now = self._clock()
        for full, e in list(self._entries.items()):
            ttl = self._limits_of(full[0])[1]
            if ttl and now - e.stored >= ttl:
                self._drop(full)

    def _limits_of(self, namespace: str) -> tuple[int, float]:
        return self._limits.get(namespace.split(":", 1)[0], (sys.maxsize, 0.0))

    def _drop(self, full: tuple) -> None:
        e = self._entries.pop(full)
        self.nbytes -= e.nbytes
        self.evictions += 1
