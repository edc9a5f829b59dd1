"""Sufficient statistics for CI tests: stratified contingency tables and the correlation matrix.

Everything here is a deterministic function of the data, so it is cached and shared
(DESIGN.md, "Conventions": deterministic quantities may be cached across runs and users;
noisy outputs never are).

Contingency tables follow causal-learn's vectorisation (``utils/cit.py`` Chisq/Gsq, see
shared/research/anchors_cd.md §3.1): one ``np.bincount`` over the combined code
``stratum·kx·ky + x·ky + y``. Our own additions: the stratum code of a conditioning set is
computed once per set and cached, and is already compressed to the *observed* strata, so
a table never has empty strata.
"""
from __future__ import annotations

import hashlib
import sys
import threading
from collections import OrderedDict
from typing import Any, Hashable, Sequence

import numpy as np

from cgdcore import UserError
from cgdcore.cancel import checkpoint
from cgdcore.citests.budget import ENTRY_OVERHEAD, core_cache_bytes, shares
from cgdcore.data.dataset import code_dtype

__all__ = ["SuffStats", "suffstats_for", "clear_suffstats_cache", "fingerprint", "reference_table"]

#: How tables are built: True, the compiled one-pass kernels (:mod:`cgdcore.kernels`); False, the numpy reference
#: path of before (:func:`reference_table`, kept for equivalence tests and bench/tables.py); None (default), chosen
#: by :func:`compiled_pays`. Both give the same tables.
USE_KERNEL: bool | None = None
# Loading numba and the cached kernels costs ≈ 0.4 s CPU once per process, and a compiled table saves ≈ 0.15 ms per
# 100,000 rows counted over the numpy path (both measured on Alarm at n = 100,000). The automatic choice loads them when a dataset's
# order-0 work (pairs × rows) reaches _COMPILED_UPFRONT, or once the numpy path has counted _COMPILED_AFTER_ROWS rows
# in this process (the point where the time lost without them equals their loading cost).
_COMPILED_UPFRONT = 10_000_000
_COMPILED_AFTER_ROWS = 250_000_000
_numpy_rows = 0
# The compiled path counts into a dense array over every possible S-tuple when it has at most this many
# cells (or at most as many as rows counted); beyond, it counts over the cached, compressed stratum code.
_DIRECT_CELLS = 1 << 16
_NO_IDX = np.empty(0, dtype=np.int64)
_NO_IDX.setflags(write=False)  # as a sub-sample's indices: one compiled signature of the table kernels
_kernels = None  # cgdcore.kernels, imported on the first compiled table

# Above this many possible strata, compress the stratum code with np.unique (a sort)
# instead of a dense bincount + lookup table (causal-learn switches at 1e5; anchors_cd §3.1).
_DENSE_STRATA_LIMIT = 1_000_000
# Up to this many possible strata the raw mixed-radix code is kept (no compression pass).
_RAW_STRATA_LIMIT = 1024
# Keep raw (uncompressed) codes below this bound so products of arities never overflow int64.
_RAW_CODE_LIMIT = 2**62
_INT32_MAX = 2**31 - 1

_DEFAULT_STRATA_ITEMS = 256
_DEFAULT_TABLE_ITEMS = 8192


class _LRU:
    """A small thread-safe LRU cache bounded by item count and (optionally) total bytes."""

    def __init__(self, max_items: int, max_bytes: int | None = None):
        self.max_items = int(max_items)
        self.max_bytes = max_bytes
        self._d: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Any:
        with self._lock:
            item = self._d.get(key)
            if item is None:
                self.misses += 1
                return None
            self._d.move_to_end(key)
            self.hits += 1
            return item[0]

    def setdefault(self, key: Hashable, value: Any, nbytes: int = 0) -> Any:
        """Store ``value`` unless ``key`` is present; return the stored value either way. ``nbytes`` is the value's
        buffer; each entry is charged :data:`ENTRY_OVERHEAD` more for its objects."""
        nbytes += ENTRY_OVERHEAD
        with self._lock:
            item = self._d.get(key)
            if item is not None:
                self._d.move_to_end(key)
                return item[0]
            if self.max_items <= 0 or (self.max_bytes is not None and nbytes > self.max_bytes):
                return value  # too big to cache: hand it back uncached
            self._d[key] = (value, nbytes)
            self._bytes += nbytes
            while len(self._d) > self.max_items or (
                self.max_bytes is not None and self._bytes > self.max_bytes
            ):
                _, (_, nb) = self._d.popitem(last=False)
                self._bytes -= nb
            return value

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._bytes = 0

    def discard(self, key: Hashable) -> None:
        with self._lock:
            item = self._d.pop(key, None)
            if item is not None:
                self._bytes -= item[1]

    def items(self) -> list[tuple[Hashable, Any]]:
        """(key, value) pairs, least recently used first (a snapshot)."""
        with self._lock:
            return [(k, v) for k, (v, _) in self._d.items()]

    def __len__(self) -> int:
        return len(self._d)

    @property
    def nbytes(self) -> int:
        return self._bytes


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _compress(code: np.ndarray, n_possible: int) -> tuple[np.ndarray, int]:
    """Re-number a stratum code to 0..K-1 over the strata that actually occur."""
    if n_possible <= _DENSE_STRATA_LIMIT:
        present = np.bincount(code, minlength=n_possible) > 0
        k = int(np.count_nonzero(present))
        if k == n_possible:
            return code, k
        lut = np.cumsum(present, dtype=np.int64) - 1
        return lut[code], k
    uniq, inv = np.unique(code, return_inverse=True)
    return inv.reshape(-1), int(uniq.size)


def _stratum_code(cols: np.ndarray, ar: Sequence[int], s: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """(code, K) of the non-empty conditioning set ``s`` over the columns ``cols`` (see :meth:`SuffStats.strata`)."""
    possible = 1
    for v in s:
        possible *= ar[v]
    if possible <= _INT32_MAX:
        # int32 arithmetic throughout (the common case; no overflow possible)
        code = cols[s[0]].astype(np.int32)
        for v in s[1:]:
            checkpoint()  # a stop between columns: the code of every column at 10^6 rows is ~0.5 s of CPU
            code *= ar[v]
            code += cols[v]
        possible_now = possible
    else:
        code = cols[s[0]].astype(np.int64)
        possible_now = ar[s[0]]
        for v in s[1:]:
            checkpoint()
            k = ar[v]
            if possible_now * k >= _RAW_CODE_LIMIT:
                code, possible_now = _compress(code, possible_now)
            code *= k
            code += cols[v]
            possible_now *= k
    if possible_now > _RAW_STRATA_LIMIT:
        code, possible_now = _compress(code, possible_now)
    K = int(possible_now)
    return _readonly(np.ascontiguousarray(code, dtype=np.int32 if K <= _INT32_MAX else np.int64)), K


def reference_table(stats: "SuffStats", a: int, b: int, s: tuple[int, ...]) -> np.ndarray:
    """The numpy table path of before the compiled kernels (kept as the reference for equivalence tests and
    bench/tables.py): one bincount over stratum·ka·kb + x·kb + y (causal-learn's trick, anchors_cd §3.1),
    with the stratum code from :meth:`SuffStats.strata`; empty strata dropped."""
    ka, kb = stats.arities[a], stats.arities[b]
    scode, K = stats.strata(s)
    cells = K * ka * kb
    dt = np.int32 if cells <= _INT32_MAX else np.int64
    xa = stats._col(a)
    yb = stats._col(b)
    combined = np.multiply(xa, kb, dtype=dt)
    combined += yb
    if scode is not None:
        combined += np.multiply(scode, ka * kb, dtype=dt)
    counts = np.bincount(combined, minlength=cells).reshape(K, ka, kb)
    if K > 1:
        nk = counts.reshape(K, -1).sum(axis=1)
        if not nk.all():
            counts = counts[nk > 0]
    return _readonly(np.ascontiguousarray(counts))


#: The numpy path counts over the data's distinct rows, weighted by their multiplicities, when there are at most
#: this fraction of n of them (Sachs at n = 100,000: 7,388 distinct rows); the compiled path, whose weighted count
#: costs about what a plain one does per row, when there are at most _DISTINCT_FRACTION_COMPILED·n (Child: 0.60 n,
#: Alarm: 0.40 n).
_DISTINCT_FRACTION = 0.25
_DISTINCT_FRACTION_COMPILED = 0.75
#: Rows below which the distinct-row pass is not tried (its own cost, a few passes over n, would not pay).
_DISTINCT_MIN_ROWS = 20_000


def _distinct_rows(cols: np.ndarray, arities: Sequence[int], max_fraction: float
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct rows of the (d, n) code matrix ``cols`` and, for every row, the index of its distinct row:
    ((d, u) codes, (n,) index), or None when more than ``max_fraction``·n rows are distinct.

    The rows are numbered as the strata of the conditioning set of every column (:func:`_stratum_code`: mixed-radix
    codes, compressed to the observed ones); a table counted over the distinct rows with their multiplicities as
    weights has the same cells as one counted over all rows (causal-learn's one-bincount table, anchors_cd §3.1,
    with duplicate rows merged first)."""
    d, n = cols.shape
    row_of, u = _compress(*_stratum_code(cols, arities, tuple(range(d))))  # (a raw code may skip values)
    if u > max_fraction * n:
        return None
    first = np.empty(u, dtype=np.intp)
    first[row_of] = np.arange(n, dtype=np.intp)  # any row of each distinct row will do
    return _readonly(np.ascontiguousarray(cols[:, first])), _readonly(row_of)


def kernels_loaded() -> bool:
    """True once :mod:`cgdcore.kernels` (numba) is loaded in this process: its cost is paid, so use it."""
    return _kernels is not None or "cgdcore.kernels" in sys.modules


def compiled_pays(n: int, d: int) -> bool:
    """The automatic choice of the compiled kernels for a table over n rows of d variables (see USE_KERNEL):
    already loaded, or enough work expected (n·d(d−1)/2 ≥ _COMPILED_UPFRONT) or already done by numpy."""
    return kernels_loaded() or n * (d * (d - 1) // 2) >= _COMPILED_UPFRONT or _numpy_rows >= _COMPILED_AFTER_ROWS


class SuffStats:
    """Sufficient statistics of one data matrix, with caches of every deterministic table.

    Parameters
    ----------
    data: array (n, d). With ``arities`` given, integer codes 0..k_j-1 in column j (any
        integer dtype, or floats holding integers); with ``arities=None``, numbers (only the
        correlation matrix, i.e. Fisher-z, is available then).
    arities: number of states per column, or None for numeric data.

    Attributes ``n``, ``d``, ``arities`` (tuple or None), ``is_discrete``.

    The object keeps its own copy of the data, so later changes to the caller's array do not
    affect it (this is what makes sharing through :func:`suffstats_for` safe).
    """

    def __init__(
        self,
        data: np.ndarray,
        arities: Sequence[int] | None = None,
        *,
        strata_cache_items: int = _DEFAULT_STRATA_ITEMS,
        strata_cache_bytes: int | None = None,
        table_cache_items: int = _DEFAULT_TABLE_ITEMS,
        table_cache_bytes: int | None = None,
    ):
        data = np.asarray(data)
        if data.ndim != 2:
            raise UserError(f"data must be a 2-D array (rows x variables); got shape {data.shape}.")
        n, d = data.shape
        if n < 1 or d < 1:
            raise UserError(f"data must have at least one row and one column; got shape {data.shape}.")
        if data.dtype.kind not in "biuf":
            raise UserError(
                f"data must be numeric (integer codes or floats); got dtype {data.dtype}. "
                "Encode categorical columns as integer codes first."
            )
        self.n = int(n)
        self.d = int(d)
        self._lock = threading.Lock()
        self.shared_tests: dict = {}  # CI tests over these statistics (citests.shared_ci_test)
        self._corr: np.ndarray | None = None
        share = shares()  # byte caps default to this dataset's shares of CGD_CORE_CACHE_MB
        self._strata = _LRU(strata_cache_items, share["strata"] if strata_cache_bytes is None else strata_cache_bytes)
        self._tables = _LRU(table_cache_items, share["tables"] if table_cache_bytes is None else table_cache_bytes)

        if arities is None:
            self.arities: tuple[int, ...] | None = None
            vals = _columns(data, np.float64)  # (d, n), one copy
            if not np.isfinite(vals).all():
                raise UserError("data contains NaN or infinite values; drop or impute them first.")
            self._cols = None
            self._values = _readonly(vals)
            self._idx = None
            self._parent = None
            return

        ar = tuple(int(a) for a in arities)
        if len(ar) != d:
            raise UserError(f"arities has {len(ar)} entries but data has {d} columns.")
        if any(a < 1 for a in ar):
            raise UserError(f"every arity must be >= 1; got {ar}.")
        if data.dtype.kind == "f":
            if not np.isfinite(data).all() or not np.array_equal(data, np.round(data)):
                raise UserError(
                    "discrete data must hold integer codes 0..k-1; found non-integer or missing values."
                )
        cmin = data.min(axis=0)
        cmax = data.max(axis=0)
        bad = [j for j in range(d) if cmin[j] < 0 or cmax[j] >= ar[j]]
        if bad:
            j = bad[0]
            raise UserError(
                f"column {j} holds codes {int(cmin[j])}..{int(cmax[j])}, outside 0..{ar[j] - 1} "
                f"(its arity is {ar[j]}); {len(bad)} column(s) are out of range. "
                "Re-code the data as 0..k-1 or fix the arities."
            )
        self.arities = ar
        # (d, n) codes in the smallest unsigned dtype (uint8 for arities ≤ 256): one contiguous row per
        # variable, cast once; the compiled table kernels read a quarter of the bytes an int32 copy needs.
        self._cols = _readonly(_columns(data, code_dtype(max(ar))))
        self._values = self._cols
        self._idx = None
        self._parent = None

    @classmethod
    def from_rows(cls, rows: np.ndarray, arities: Sequence[int], **cache_sizes) -> "SuffStats":
        """Statistics of rows already known to hold valid codes (e.g. a sub-sample of a validated
        SuffStats, see :meth:`subsample`): skips the range checks of the constructor."""
        self = cls.__new__(cls)
        n, d = rows.shape
        self.n, self.d = int(n), int(d)
        self._lock = threading.Lock()
        self._corr = None
        share = shares()
        self._strata = _LRU(cache_sizes.get("strata_cache_items", 64), share["strata"])
        self._tables = _LRU(cache_sizes.get("table_cache_items", 256), share["tables"])
        self.arities = tuple(int(a) for a in arities)
        self._cols = _readonly(np.ascontiguousarray(rows.T, dtype=code_dtype(max(self.arities))))
        self._values = self._cols
        self._idx = None
        self._parent = None
        self.shared_tests = {}
        return self

    def row_codes(self) -> np.ndarray:
        """The codes as a row-major (n, d) array of the smallest unsigned dtype (built once),
        so sub-samples gather whole rows."""
        rows = getattr(self, "_rows", None)
        if rows is None:
            rows = self._rows = _readonly(np.ascontiguousarray(self._cols.T, dtype=code_dtype(max(self.arities))))
        return rows

    def subsample(self, idx: np.ndarray) -> "SuffStats":
        """A fresh (uncached, unshared) SuffStats of the rows ``idx`` (repeats allowed) — for private
        sub-sampling. It copies no rows: it keeps the index array and reads this object's columns (and its
        cached stratum codes) through it; its tables equal those of ``SuffStats(data[idx], arities)``."""
        if self.arities is None:
            raise UserError("sub-sampled statistics need discrete data.")
        root = self if self._parent is None else self._parent
        idx = np.asarray(idx)
        if self._idx is not None:
            idx = self._idx[idx]
        idx = _readonly(np.ascontiguousarray(idx, dtype=np.int64))
        if idx.ndim != 1 or idx.size < 1:
            raise ValueError("a sub-sample needs a non-empty 1-D array of row indices")
        view = SuffStats.__new__(SuffStats)
        view.n, view.d = int(idx.size), root.d
        view._lock = threading.Lock()
        view._corr = None
        share = shares()
        view._strata = _LRU(64, share["strata"])
        view._tables = _LRU(256, share["tables"])
        view.arities = root.arities
        view.shared_tests = {}
        view._cols = root._cols
        view._values = None
        view._idx = idx
        view._parent = root
        return view

    def _col(self, v: int) -> np.ndarray:
        """Column v over this object's rows (gathered for a sub-sample view)."""
        return self._cols[v] if self._idx is None else self._cols[v][self._idx]

    # ------------------------------------------------------------------ properties
    @property
    def is_discrete(self) -> bool:
        return self.arities is not None

    def nbytes(self) -> int:
        """Bytes this object holds: its copies of the data, its caches and its shared CI tests' results."""
        extra = [*(getattr(self, "_distinct_rows", None) or ()), *(getattr(self, "_weights", None) or ())]  # distinct rows
        arrays = {id(a): a.nbytes for a in (self._cols, self._values, getattr(self, "_rows", None), self._corr,
                                            self._idx, *extra) if a is not None}
        tests = sum(t.nbytes for t in list(self.shared_tests.values()))
        return sum(arrays.values()) + self._strata.nbytes + self._tables.nbytes + tests

    def clear_caches(self) -> None:
        """Forget every cached stratum code, table and shared CI-test result (the data stay)."""
        self._strata.clear()
        self._tables.clear()
        for t in list(self.shared_tests.values()):
            t.clear_cache()

    def cache_info(self) -> dict[str, int]:
        """Sizes and hit counts of the internal caches (for the app's diagnostics panel)."""
        return {
            "strata_items": len(self._strata),
            "strata_bytes": self._strata.nbytes,
            "strata_hits": self._strata.hits,
            "strata_misses": self._strata.misses,
            "table_items": len(self._tables),
            "table_bytes": self._tables.nbytes,
            "table_hits": self._tables.hits,
            "table_misses": self._tables.misses,
        }

    # ------------------------------------------------------------------ validation
    def _check_var(self, v: Any) -> int:
        i = int(v)
        if i != v or not 0 <= i < self.d:
            raise ValueError(f"variable index {v!r} out of range 0..{self.d - 1}")
        return i

    def key(self, x: Any, y: Any, S: Sequence[int]) -> tuple[int, int, tuple[int, ...]]:
        """Validated (x, y, sorted S); ValueError (a caller bug, not user input) if malformed."""
        d = self.d
        if type(x) is int and type(y) is int and x != y and 0 <= x < d and 0 <= y < d:  # the common case
            s = tuple(sorted(S))
            if (x not in s and y not in s and all(type(v) is int and 0 <= v < d for v in s)
                    and len(set(s)) == len(s)):
                return x, y, s
        x = self._check_var(x)
        y = self._check_var(y)
        s = tuple(sorted(self._check_var(v) for v in S))
        if x == y:
            raise ValueError(f"x and y must differ (both {x})")
        if x in s or y in s or len(set(s)) != len(s):
            raise ValueError(f"conditioning set {s} must not contain x={x}, y={y} or repeats")
        return x, y, s

    # ------------------------------------------------------------------ strata
    def strata(self, S: Sequence[int]) -> tuple[np.ndarray | None, int]:
        """Stratum code of conditioning set S: (code array of length n with values 0..K-1, K).

        With at most ``_RAW_STRATA_LIMIT`` possible value-tuples the code is the mixed-radix
        number of the tuple (some codes may then be unobserved; :meth:`table` drops them);
        otherwise it is compressed to the observed tuples only (K <= n), by a dense
        bincount + lookup table, or by ``np.unique`` when there are >= 1e6 possible tuples.
        For S = () returns (None, 1). Cached per sorted S (bounded LRU).
        """
        s = tuple(sorted(S))
        if not s:
            return None, 1
        hit = self._strata.get(s)
        if hit is not None:
            return hit
        if self._cols is None:
            raise UserError("stratifying needs discrete data; discretise the numeric columns first.")
        if self._parent is not None:  # a sub-sample view: the parent's (cached) code, gathered
            pcode, pK = self._parent.strata(s)
            code, possible_now = pcode[self._idx], pK
            if possible_now > _RAW_STRATA_LIMIT:
                code, possible_now = _compress(code, possible_now)
            K = int(possible_now)
            out = (_readonly(np.ascontiguousarray(code)), K)
            return self._strata.setdefault(s, out, out[0].nbytes)
        out = _stratum_code(self._cols, self.arities, s)
        return self._strata.setdefault(s, out, out[0].nbytes)

    # ------------------------------------------------------------------ tables
    def table(self, x: int, y: int, S: Sequence[int] = ()) -> np.ndarray:
        """Counts per observed stratum of S: int64 array of shape (K, k_x, k_y), read-only.

        ``table(x, y, S)[k, i, j]`` = number of rows in stratum k with x = i and y = j.
        Strata with no rows are omitted (every ``table[k]`` sums to >= 1); strata are in a
        fixed order that depends only on S, so ``table(y, x, S)`` is the transpose of
        ``table(x, y, S)`` over the last two axes (and is returned as that view).
        """
        if self.arities is None:
            raise UserError(
                "contingency tables need discrete data (integer codes with arities); "
                "discretise the numeric columns or use the Fisher-z test."
            )
        return self.table_of_key(*self.key(x, y, S))

    def table_of_key(self, x: int, y: int, s: tuple[int, ...]) -> np.ndarray:
        """:meth:`table` for arguments already checked by :meth:`key` (x, y valid and distinct, s a sorted
        tuple without x, y or repeats) — the CI tests' path, which validates each query once."""
        if self.arities is None:
            return self.table(x, y, s)  # raises the UserError
        a, b = (x, y) if x < y else (y, x)
        key = (a, b, s)
        t = self._tables.get(key)
        if t is None:
            t = self._compute_table(a, b, s)
            t = self._tables.setdefault(key, t, t.nbytes)
        return t if x < y else t.transpose(0, 2, 1)

    def _compute_table(self, a: int, b: int, s: tuple[int, ...]) -> np.ndarray:
        """The table of (a, b | s) in one compiled pass over the code columns.

        With |s| ≤ 4 and few possible S-tuples (≤ ``_DIRECT_CELLS`` cells, or ≤ the number of rows) each row's cell
        code is formed from the columns of a, b and s and counted in the same sweep
        (:func:`cgdcore.kernels.table_direct`); otherwise the cached, compressed stratum code of s is read
        instead (:func:`cgdcore.kernels.table_coded`). A sub-sample view counts over its index array. When at most
        ``_DISTINCT_FRACTION_COMPILED``·n rows are distinct, the data's own tables are counted over the distinct rows
        with their multiplicities (the ``_weighted`` kernels); the numpy path does so below ``_DISTINCT_FRACTION``·n.
        Empty strata are dropped as in :func:`reference_table`, which gives the same array.
        """
        global _kernels, _numpy_rows
        if not (USE_KERNEL if USE_KERNEL is not None else compiled_pays(self.n, self.d)):
            distinct = self._distinct(_DISTINCT_FRACTION)
            if distinct is None:
                _numpy_rows += self.n
                return reference_table(self, a, b, s)
            _numpy_rows += distinct[0].shape[1]
            return self._distinct_table(a, b, s)
        if _kernels is None:
            from cgdcore import kernels as _k  # lazy: numba loads on the first table

            _kernels = _k
        table_direct, table_coded = _kernels.table_direct, _kernels.table_coded

        ar = self.arities
        ka, kb = ar[a], ar[b]
        kab = ka * kb
        root = self if self._parent is None else self._parent
        idx = _NO_IDX if self._idx is None else self._idx
        use_idx = self._idx is not None
        possible = 1
        for v in s:
            possible *= ar[v]
        cells = possible * kab
        distinct = None if use_idx else self._distinct(_DISTINCT_FRACTION_COMPILED)
        if not s or (len(s) <= _kernels.TABLE_DIRECT_MAX_S and cells <= max(_DIRECT_CELLS, self.n)):
            svars = np.asarray(s, dtype=np.int64)
            sradix = np.asarray([ar[v] for v in s], dtype=np.int64)
            if distinct is None:
                counts, K = table_direct(root._cols, a, b, svars, sradix, ka, kb, possible, idx, use_idx)
            else:
                counts, K = _kernels.table_direct_weighted(distinct[0], a, b, svars, sradix, ka, kb, possible,
                                                           distinct[1])
        elif distinct is None:
            scode, nst = root.strata(s)
            counts, K = table_coded(root._cols, a, b, scode, nst, ka, kb, idx, use_idx)
        else:
            scode, nst = self._distinct_strata(s)
            counts, K = _kernels.table_coded_weighted(distinct[0], a, b, scode, nst, ka, kb, distinct[1])
        t = counts[: K * kab].reshape(K, ka, kb)
        return _readonly(t if counts.size == K * kab else t.copy())

    def _distinct(self, max_fraction: float = _DISTINCT_FRACTION) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The root's distinct rows and this object's multiplicities on them, ((d, u) codes, int64 (u,), the same
        as float64), when there are at most ``max_fraction``·n distinct rows (and n ≥ ``_DISTINCT_MIN_ROWS``),
        else None; built once."""
        root = self if self._parent is None else self._parent
        dr = getattr(root, "_distinct_rows", None)
        if dr is None:
            dr = False
            if root.n >= _DISTINCT_MIN_ROWS:
                dr = _distinct_rows(root._cols, root.arities,
                                    max(_DISTINCT_FRACTION, _DISTINCT_FRACTION_COMPILED)) or False
            root._distinct_rows = dr
        if dr is False or dr[0].shape[1] > max_fraction * root.n:
            return None
        w = getattr(self, "_weights", None)
        if w is None:
            ucols, row_of = dr
            rows = row_of if self._idx is None else row_of[self._idx]
            counts = _readonly(np.bincount(rows, minlength=ucols.shape[1]))
            w = self._weights = (ucols, counts, _readonly(counts.astype(np.float64)))
        return w

    def _distinct_strata(self, s: tuple[int, ...]) -> tuple[np.ndarray, int]:
        """The stratum code of s over the root's distinct rows (:func:`_stratum_code`), cached on the root."""
        root = self if self._parent is None else self._parent
        key = ("distinct", s)
        hit = root._strata.get(key)
        if hit is None:
            hit = _stratum_code(root._distinct_rows[0], root.arities, s)
            hit = root._strata.setdefault(key, hit, hit[0].nbytes)
        return hit

    def _distinct_table(self, a: int, b: int, s: tuple[int, ...]) -> np.ndarray:
        """:func:`reference_table` over the distinct rows: one weighted bincount of stratum·ka·kb + x·kb + y
        (exact, the float64 sums of whole weights staying below 2^53). The stratum code of s over the distinct rows
        is the root's, cached there; strata empty in this object's rows are dropped, as the reference does."""
        ucols, _, w = self._distinct(1.0)
        ka, kb = self.arities[a], self.arities[b]
        combined = np.multiply(ucols[a], kb, dtype=np.intp)
        combined += ucols[b]
        K = 1
        if s:
            scode, K = self._distinct_strata(s)
            combined += np.multiply(scode, ka * kb, dtype=np.intp)
        counts = np.bincount(combined, weights=w, minlength=K * ka * kb).astype(np.int64).reshape(K, ka, kb)
        if K > 1:
            nk = counts.reshape(K, -1).sum(axis=1)
            if not nk.all():
                counts = counts[nk > 0]
        return _readonly(np.ascontiguousarray(counts))

    # ------------------------------------------------------------------ correlation
    def corr(self) -> np.ndarray:
        """Pearson correlation matrix (d, d), float64, read-only, computed once.

        Discrete codes are used as numbers. A constant column has correlation 0 with every
        other column (and 1 with itself), so tests involving it report independence.
        """
        c = self._corr
        if c is not None:
            return c
        vals = self._values if self._idx is None else self._cols[:, self._idx]  # (d, n)
        n = self.n
        mean = vals.mean(axis=1, dtype=np.float64)
        cov = np.zeros((self.d, self.d))
        step = 1 << 16
        for lo in range(0, n, step):
            chunk = vals[:, lo : lo + step].astype(np.float64)
            chunk -= mean[:, None]
            cov += chunk @ chunk.T
        sd = np.sqrt(np.diag(cov).copy())
        const = sd <= 1e-12 * max(1.0, float(sd.max()))
        sd[const] = 1.0
        c = cov / np.outer(sd, sd)
        c[const, :] = 0.0
        c[:, const] = 0.0
        np.fill_diagonal(c, 1.0)
        np.clip(c, -1.0, 1.0, out=c)
        c = _readonly(c)
        with self._lock:
            if self._corr is None:
                self._corr = c
            return self._corr

    def __repr__(self) -> str:
        kind = "discrete" if self.is_discrete else "numeric"
        return f"SuffStats(n={self.n}, d={self.d}, {kind})"


# ---------------------------------------------------------------------- shared registry
_SHARED = _LRU(8)


def shared_nbytes() -> int:
    """Bytes held by every shared SuffStats (data, caches and CI results; see :meth:`SuffStats.nbytes`)."""
    return sum(st.nbytes() for _, st in _SHARED.items())


def _trim_shared(keep: SuffStats) -> None:
    """Keep the shared statistics within CGD_CORE_CACHE_MB: forget the least recently used datasets other than
    ``keep`` until the rest fit; if ``keep`` alone is over, empty its caches. Called as every run starts, so the
    budget holds between runs; within a run each cache is held to its share (:func:`cgdcore.citests.budget.shares`)."""
    budget = core_cache_bytes()
    entries = _SHARED.items()
    sizes = [st.nbytes() for _, st in entries]
    total = sum(sizes)
    for (key, st), size in zip(entries, sizes):
        if total <= budget:
            return
        if st is not keep:
            _SHARED.discard(key)
            total -= size
    if total > budget:
        keep.clear_caches()


#: rows per block of :func:`_columns` (a block of Win95pts's 76 one-byte codes is 5 MB)
COLUMN_BLOCK_ROWS = 1 << 16


def _columns(data: np.ndarray, dtype) -> np.ndarray:
    """The (d, n) C-contiguous copy of ``data`` (n, d) in ``dtype``, transposed a block of rows at a time with a
    checkpoint between blocks: at 10^6 rows × 76 columns one transposing copy was ~0.3 s of CPU that a stop could
    not interrupt, the longest such stretch before PC's first test (blocks are also faster: each fits in cache)."""
    n, d = data.shape
    out = np.empty((d, n), dtype=dtype)
    for i in range(0, n, COLUMN_BLOCK_ROWS):
        checkpoint()
        out[:, i:i + COLUMN_BLOCK_ROWS] = data[i:i + COLUMN_BLOCK_ROWS].T
    return out


def fingerprint(data: np.ndarray, arities: Sequence[int] | None) -> str:
    """Content fingerprint: blake2b of the bytes, shape, dtype and arities."""
    data = np.ascontiguousarray(data)
    h = hashlib.blake2b(digest_size=20)
    h.update(repr((data.shape, data.dtype.str, None if arities is None else tuple(int(a) for a in arities))).encode())
    h.update(memoryview(data.reshape(-1).view(np.uint8)))
    return h.hexdigest()


def suffstats_for(data: np.ndarray, arities: Sequence[int] | None = None) -> SuffStats:
    """A SuffStats shared by every caller with the same data (an LRU of at most 8 datasets and, with their caches
    and CI results, at most CGD_CORE_CACHE_MB bytes as each run starts).

    Keyed by :func:`fingerprint`, so equal arrays (other algorithms, other ε, other users)
    reuse every cached table; a different array gets a different object.
    """
    data = np.asarray(data)
    if data.dtype.kind not in "biuf":
        return SuffStats(data, arities)  # raises the UserError explaining the dtype
    key = fingerprint(data, arities)
    st = _SHARED.get(key)
    if st is None:
        st = _SHARED.setdefault(key, SuffStats(data, arities))
    _trim_shared(st)
    return st


def clear_suffstats_cache() -> None:
    """Forget every shared SuffStats (tests, or to free memory)."""
    _SHARED.clear()
