"""Discrete Bayesian networks: a parser for the bnlearn BIF dialect and a vectorised sampler.

The Bayesian Interchange Format (BIF 0.15, F. G. Cozman, 1998) as written by the bnlearn
repository (M. Scutari, https://www.bnlearn.com/bnrepository/) looks like::

    network unknown {
    }
    variable either {
      type discrete [ 2 ] { yes, no };
    }
    probability ( either | lung, tub ) {
      (yes, yes) 1.0, 0.0;
      default 0.5, 0.5;
    }
    probability ( asia ) {
      table 0.01, 0.99;
    }

State names may contain ``/ < > = . + -`` (Child has ``Asy/Patch``, ``<5``, ``>=7.5``).
Comments (``//`` and ``/* */``) and ``property`` statements are ignored. ``table`` is
accepted for root nodes only: its value order for nodes with parents differs between
writers, so such files must use the explicit ``(parent states) p...;`` rows.

CPT layout (used by the sampler and by every consumer of :class:`BayesNet`): ``cpts[v]`` has
shape ``(prod(parent cards), k_v)``; the row of a parent configuration ``(x_1, ..., x_m)``
(parents in their declared order) is the row-major index
``sum_i x_i * prod_{j>i} card(p_j)``, i.e. the last parent varies fastest.
"""
from __future__ import annotations

import gzip
import re
from collections import deque
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from cgdcore import UserError
from cgdcore.cancel import checkpoint

__all__ = ["BayesNet", "parse_bif", "read_bif", "sample", "exact_joint", "exact_marginals"]

#: Rows whose probabilities sum further than this from 1 are rejected; closer ones are renormalised.
ROW_SUM_TOLERANCE = 1e-2

#: Rows per chunk in :func:`sample`. Fixed, so that a seed gives the same array on every machine.
_CHUNK = 1 << 16


@dataclass(frozen=True, eq=False)
class BayesNet:
    """A discrete Bayesian network.

    Attributes
    ----------
    name: the network's name (file stem for files read with :func:`read_bif`).
    variables: variable names in file order; variable ``i`` is column ``i`` of samples.
    states: per variable, its state names; code ``c`` means ``states[i][c]``.
    parents: per variable, the tuple of parent indices in the CPT's declared order.
    cpts: per variable, a read-only float64 array of shape ``(prod(parent cards), k)`` whose rows
        sum to 1; rows are indexed row-major over the parents (last parent fastest).
    topological_order: variable indices, parents before children (Kahn's algorithm, ties in
        file order).
    """

    name: str
    variables: tuple[str, ...]
    states: tuple[tuple[str, ...], ...]
    parents: tuple[tuple[int, ...], ...]
    cpts: tuple[np.ndarray, ...]
    topological_order: tuple[int, ...]

    @property
    def d(self) -> int:
        """Number of variables."""
        return len(self.variables)

    @property
    def cards(self) -> tuple[int, ...]:
        """Number of states per variable."""
        return tuple(len(s) for s in self.states)

    @property
    def n_arcs(self) -> int:
        """Number of arcs of the DAG."""
        return sum(len(p) for p in self.parents)

    def index(self, variable: str) -> int:
        """Column index of a variable name."""
        return self.variables.index(variable)

    def adjacency(self) -> np.ndarray:
        """(d, d) boolean adjacency of the DAG: ``A[i, j]`` is True iff ``i -> j``."""
        a = np.zeros((self.d, self.d), dtype=bool)
        for j, pa in enumerate(self.parents):
            a[list(pa), j] = True
        return a

    def free_parameters(self) -> int:
        """Number of free parameters, sum over v of (k_v - 1) * prod(parent cards)."""
        return sum(c.shape[0] * (c.shape[1] - 1) for c in self.cpts)


# ----------------------------------------------------------------------------- parsing

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_BLOCK_START = re.compile(r"\s*(network|variable|probability)\b")
_VAR_HEADER = re.compile(r"\s*([^\s{}()\[\];,|]+)\s*$")
_PROB_HEADER = re.compile(r"\s*\(\s*([^|()]*?)\s*(?:\|\s*([^()]*?)\s*)?\)\s*$")
_TYPE = re.compile(r"type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^{}]*)\}\s*$", re.S)
_ROW = re.compile(r"\(([^()]*)\)(.*)$", re.S)


def _blank(m: re.Match) -> str:
    """Replace a comment by spaces, keeping its newlines so that line numbers stay right."""
    return re.sub(r"[^\n]", " ", m.group(0))


class _Text:
    """Comment-free BIF text with offset -> line-number lookup for error messages."""

    def __init__(self, text: str, source: str):
        self.text = _COMMENT.sub(_blank, text)
        self.source = source

    def error(self, offset: int, what: str) -> UserError:
        line = self.text.count("\n", 0, offset) + 1
        return UserError(f"{self.source}, line {line}: {what}")


def _split_names(s: str) -> list[str]:
    return [t.strip() for t in s.split(",")] if s.strip() else []


def _numbers(t: _Text, s: str, offset: int) -> np.ndarray:
    try:
        return np.array(s.replace(",", " ").split(), dtype=np.float64)
    except ValueError:
        raise t.error(offset, f"expected probabilities, found {s.strip()[:60]!r}") from None


def _blocks(t: _Text):
    """Yield (keyword, header, body, header offset, body offset) for each top-level block."""
    text, pos, end = t.text, 0, len(t.text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return
        m = _BLOCK_START.match(text, pos)
        if not m:
            raise t.error(pos, f"expected 'network', 'variable' or 'probability', found "
                               f"{text[pos:pos + 40].split(chr(10))[0]!r}")
        kw = m.group(1)
        brace = text.find("{", m.end())
        if brace < 0:
            raise t.error(pos, f"'{kw}' block has no '{{'")
        depth, i = 1, brace + 1
        while depth:
            nxt_open, nxt_close = text.find("{", i), text.find("}", i)
            if nxt_close < 0:
                raise t.error(pos, f"'{kw}' block is not closed with '}}'")
            if 0 <= nxt_open < nxt_close:
                depth, i = depth + 1, nxt_open + 1
            else:
                depth, i = depth - 1, nxt_close + 1
        yield kw, text[m.end():brace], text[brace + 1:i - 1], m.end(), brace + 1
        pos = i


def _statements(body: str, offset: int):
    """Split a block body on ';' (outside braces), yielding (statement, offset)."""
    start, depth = 0, 0
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            stmt = body[start:i]
            if stmt.strip():
                yield stmt.strip(), offset + start + (len(stmt) - len(stmt.lstrip()))
            start = i + 1
    rest = body[start:]
    if rest.strip():
        yield rest.strip(), offset + start + (len(rest) - len(rest.lstrip()))


def parse_bif(text: str, name: str = "network", source: str | None = None) -> BayesNet:
    """Parse BIF text (bnlearn dialect) into a :class:`BayesNet`.

    Raises :class:`~cgdcore.UserError` naming the line for malformed input: unknown block,
    unknown or duplicate variable, state count not matching ``[k]``, unknown parent state,
    wrong number of probabilities, negative probabilities, rows not summing to 1 (within
    ``ROW_SUM_TOLERANCE``; rows within it are renormalised), missing parent configurations
    without a ``default`` row, variables without a probability block, and cycles.
    """
    t = _Text(text, source or name)
    names: list[str] = []
    states: list[tuple[str, ...]] = []
    index: dict[str, int] = {}
    probs: list[tuple[str, str, str, int, int]] = []
    for kw, header, body, hoff, boff in _blocks(t):
        if kw == "network":
            continue
        if kw == "probability":
            probs.append((header, body, kw, hoff, boff))
            continue
        m = _VAR_HEADER.match(header)
        if not m:
            raise t.error(hoff, f"bad variable name {header.strip()!r}")
        var = m.group(1)
        if var in index:
            raise t.error(hoff, f"variable {var!r} is declared twice")
        var_states = None
        for stmt, soff in _statements(body, boff):
            if stmt.startswith("property"):
                continue
            tm = _TYPE.match(stmt)
            if not tm:
                if stmt.startswith("type"):
                    raise t.error(soff, f"variable {var!r}: only 'type discrete [ k ] {{ s1, ... }}' "
                                        f"is supported, found {stmt[:60]!r}")
                raise t.error(soff, f"variable {var!r}: unexpected statement {stmt[:60]!r}")
            k = int(tm.group(1))
            st = tuple(_split_names(tm.group(2)))
            if len(st) != k or k < 1:
                raise t.error(soff, f"variable {var!r} declares {k} states but lists {len(st)}")
            if len(set(st)) != k or "" in st:
                raise t.error(soff, f"variable {var!r} has empty or repeated state names")
            var_states = st
        if var_states is None:
            raise t.error(hoff, f"variable {var!r} has no 'type discrete' statement")
        index[var] = len(names)
        names.append(var)
        states.append(var_states)

    d = len(names)
    if d == 0:
        raise UserError(f"{t.source}: no variables found; is this a BIF file?")
    cards = [len(s) for s in states]
    parents: list[tuple[int, ...] | None] = [None] * d
    cpts: list[np.ndarray | None] = [None] * d
    for header, body, _, hoff, boff in probs:
        m = _PROB_HEADER.match(header)
        if not m:
            raise t.error(hoff, f"bad probability header {header.strip()!r}; expected '( X | P1, P2 )'")
        child, pnames = m.group(1), _split_names(m.group(2) or "")
        for v in [child, *pnames]:
            if v not in index:
                raise t.error(hoff, f"probability block names undeclared variable {v!r}")
        c = index[child]
        if cpts[c] is not None:
            raise t.error(hoff, f"variable {child!r} has two probability blocks")
        pa = tuple(index[p] for p in pnames)
        if len(set(pa)) != len(pa) or c in pa:
            raise t.error(hoff, f"probability block for {child!r} repeats a variable")
        pcards = [cards[p] for p in pa]
        n_cfg, k = int(np.prod(pcards, dtype=np.int64)), cards[c]
        strides = np.cumprod([1, *pcards[::-1]])[:-1][::-1]
        state_index = [{s: i for i, s in enumerate(states[p])} for p in pa]
        cpt = np.full((n_cfg, k), np.nan)
        default = None
        for stmt, soff in _statements(body, boff):
            if stmt.startswith("property"):
                continue
            if stmt.startswith("table") and (len(stmt) == 5 or not stmt[5].isalnum()):
                vals = _numbers(t, stmt[5:], soff)
                if pa:
                    raise t.error(soff, f"'table' for {child!r}, which has parents, is ambiguous; "
                                        f"write one '(parent states) p1, ..., pk;' row per configuration")
                if vals.size != k:
                    raise t.error(soff, f"{child!r} has {k} states but the table has {vals.size} values")
                cpt[0] = vals
            elif stmt.startswith("default") and (len(stmt) == 7 or not stmt[7].isalnum()):
                vals = _numbers(t, stmt[7:], soff)
                if vals.size != k:
                    raise t.error(soff, f"{child!r} has {k} states but the default row has {vals.size} values")
                default = vals
            else:
                rm = _ROW.match(stmt)
                if not rm:
                    raise t.error(soff, f"unexpected statement {stmt[:60]!r} in probability block of {child!r}")
                pvals = _split_names(rm.group(1))
                if len(pvals) != len(pa):
                    raise t.error(soff, f"row gives {len(pvals)} parent states, {child!r} has {len(pa)} parents")
                row = 0
                for j, s in enumerate(pvals):
                    if s not in state_index[j]:
                        raise t.error(soff, f"{s!r} is not a state of parent {pnames[j]!r} "
                                            f"(states: {', '.join(states[pa[j]])})")
                    row += state_index[j][s] * int(strides[j])
                vals = _numbers(t, rm.group(2), soff)
                if vals.size != k:
                    raise t.error(soff, f"{child!r} has {k} states but the row has {vals.size} values")
                cpt[row] = vals
        missing = np.isnan(cpt).any(axis=1)
        if missing.any():
            if default is None:
                r = int(np.flatnonzero(missing)[0])
                cfg = np.unravel_index(r, pcards) if pa else ()
                desc = ", ".join(f"{pnames[j]}={states[p][cfg[j]]}" for j, p in enumerate(pa))
                raise t.error(hoff, f"probability block for {child!r} has no row for "
                                    f"({desc or 'the root table'}) and no 'default' row")
            cpt[missing] = default
        if (cpt < 0).any():
            raise t.error(hoff, f"probability block for {child!r} has negative probabilities")
        sums = cpt.sum(axis=1)
        if np.abs(sums - 1).max() > ROW_SUM_TOLERANCE:
            raise t.error(hoff, f"a row of {child!r}'s probabilities sums to "
                                f"{sums[np.abs(sums - 1).argmax()]:.6g}, not 1")
        cpt /= sums[:, None]
        cpt.setflags(write=False)
        parents[c], cpts[c] = pa, cpt

    for i in range(d):
        if cpts[i] is None:
            raise UserError(f"{t.source}: variable {names[i]!r} has no probability block")
    order = _topological_order(parents)  # type: ignore[arg-type]
    if order is None:
        raise UserError(f"{t.source}: the parent relations form a cycle, so this is not a Bayesian network")
    return BayesNet(name, tuple(names), tuple(states), tuple(parents), tuple(cpts), order)  # type: ignore[arg-type]


def _topological_order(parents: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """Kahn's algorithm; ties are broken in file order. None if there is a cycle."""
    d = len(parents)
    children: list[list[int]] = [[] for _ in range(d)]
    indeg = [len(p) for p in parents]
    for j, pa in enumerate(parents):
        for p in pa:
            children[p].append(j)
    queue = deque(i for i in range(d) if indeg[i] == 0)
    order = []
    while queue:
        i = queue.popleft()
        order.append(i)
        for j in children[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                queue.append(j)
    return tuple(order) if len(order) == d else None


def read_bif(path: str | PathLike, name: str | None = None) -> BayesNet:
    """Read a ``.bif`` or gzipped ``.bif.gz`` file (UTF-8 or Latin-1 text)."""
    p = Path(path)
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    stem = p.name.split(".")[0]
    return parse_bif(text, name=name or stem, source=p.name)


# ----------------------------------------------------------------------------- sampling

def _cdf_columns(cpt: np.ndarray) -> list[np.ndarray]:
    """Thresholds for inverse-CDF draws: column j holds P(X <= j | cfg) for j < k-1, float32.

    Exactness guards: a threshold whose remaining mass is exactly 0 is set to exactly 1 (so a
    zero-probability last state is never drawn, whatever the cumsum rounding), and a leading
    zero-probability state keeps threshold exactly 0. Thresholds are clipped to [0, 1].
    """
    cdf = np.cumsum(cpt, axis=1)
    tail = np.cumsum(cpt[:, ::-1], axis=1)[:, ::-1]  # tail[:, j] = P(X >= j)
    k = cpt.shape[1]
    cdf = np.clip(cdf[:, : k - 1], 0.0, 1.0)
    cdf[tail[:, 1:] == 0] = 1.0
    return [np.ascontiguousarray(cdf[:, j], dtype=np.float32) for j in range(k - 1)]


def sample(bn: BayesNet, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Draw ``n`` i.i.d. rows from ``bn`` by ancestral (forward) sampling.

    Returns an ``(n, d)`` uint8 array of state codes (column order = ``bn.variables``).
    Vectorised: one pass per node in topological order computes each row's parent-configuration
    index row-major (see module docstring) and draws the state by inverse CDF,
    ``x = #{j < k-1 : u >= F(j | cfg)}`` with ``u ~ U[0, 1)`` in float32 (bias <= 2^-24 per
    threshold), then clips to ``k-1``. Rows are processed in fixed chunks of ``2**16`` to keep
    temporaries in cache; the same ``rng`` seed gives the same array bit for bit.
    """
    rng = np.random.default_rng(rng)
    n = int(n)
    if n < 0:
        raise UserError(f"cannot draw a negative number of rows ({n})")
    if max(bn.cards) > 255:
        raise UserError(f"{bn.name}: variables with more than 255 states are not supported")
    d = bn.d
    plan = []
    for v in bn.topological_order:
        pa = bn.parents[v]
        pcards = [bn.cards[p] for p in pa]
        strides = [np.intp(s) for s in np.cumprod([1, *pcards[::-1]])[:-1][::-1]]
        plan.append((v, list(zip(pa, strides)), _cdf_columns(bn.cpts[v]), bn.cards[v] - 1))
    out = np.empty((n, d), dtype=np.uint8)
    m_max = min(n, _CHUNK)
    codes = np.empty((d, m_max), dtype=np.uint8)
    u = np.empty(m_max, dtype=np.float32)
    cfg = np.empty(m_max, dtype=np.intp)
    tmp = np.empty(m_max, dtype=np.intp)
    thr = np.empty(m_max, dtype=np.float32)
    hit = np.empty(m_max, dtype=bool)
    for start in range(0, n, _CHUNK):
        checkpoint()
        m = min(_CHUNK, n - start)
        uu, cf, tt, th, hh = u[:m], cfg[:m], tmp[:m], thr[:m], hit[:m]
        for v, pa_strides, cols, kmax in plan:
            x = codes[v, :m]
            rng.random(dtype=np.float32, out=uu)
            if kmax == 0:
                x[:] = 0
                continue
            if pa_strides:
                (p0, s0), *rest = pa_strides
                np.multiply(codes[p0, :m], s0, out=cf)
                for p, s in rest:
                    np.multiply(codes[p, :m], s, out=tt)
                    cf += tt
                np.take(cols[0], cf, out=th)
                np.greater_equal(uu, th, out=x, casting="unsafe")
                for col in cols[1:]:
                    np.take(col, cf, out=th)
                    np.greater_equal(uu, th, out=hh)
                    x += hh
            else:
                np.greater_equal(uu, cols[0][0], out=x, casting="unsafe")
                for col in cols[1:]:
                    np.greater_equal(uu, col[0], out=hh)
                    x += hh
            np.minimum(x, kmax, out=x)
        out[start:start + m] = codes[:, :m].T
    return out


# ----------------------------------------------------------------------------- exact inference

def exact_joint(bn: BayesNet, max_states: int = 1 << 22) -> np.ndarray:
    """The full joint distribution as an array of shape ``bn.cards`` (axis i = variable i).

    Brute-force product of all CPT factors, P(x) = prod_v P(x_v | x_pa(v)); only for small
    networks (at most ``max_states`` joint configurations), e.g. for testing the sampler.
    """
    cards = bn.cards
    size = int(np.prod(cards, dtype=np.float64))
    if size > max_states:
        raise ValueError(f"{bn.name} has {size:.3g} joint states (> {max_states}); too large to enumerate")
    joint = np.ones(cards)
    for v in range(bn.d):
        axes = [*bn.parents[v], v]
        factor = bn.cpts[v].reshape([cards[a] for a in axes])
        order = np.argsort(axes)
        factor = factor.transpose(order)
        shape = [cards[i] if i in axes else 1 for i in range(bn.d)]
        joint = joint * factor.reshape(shape)
    return joint


def exact_marginals(bn: BayesNet, max_states: int = 1 << 22) -> list[np.ndarray]:
    """Exact single-variable marginals P(X_i = s) by enumerating the joint (small networks only)."""
    joint = exact_joint(bn, max_states)
    all_axes = set(range(bn.d))
    return [joint.sum(axis=tuple(all_axes - {i})) for i in range(bn.d)]
