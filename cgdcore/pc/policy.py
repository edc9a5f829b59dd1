"""What the PC engine asks of a CI-decision policy (:class:`Policy`: every hook declared, one stop signal),
and the two deterministic policies: a p-value test at level α and the d-separation oracle."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from cgdcore import UserError
from cgdcore.graph import DSeparation, topological_order


class Decision(NamedTuple):
    """A policy's answer to one CI query.

    Private policies also say what they released: the exact value the noise was added to
    (``released``, on its own scale) and its sensitivity as charged, the noise drawn, the noisy
    value that was compared, the threshold it was compared with, the ε charged by this query
    and the stage ("laplace", "sieve", "examine", "svt", "curate" ...). ``p_value`` is the
    non-private p-value on the full data, so a trace can show which decisions the noise flipped.
    """

    independent: bool
    statistic: float
    p_value: float
    noise: float = float("nan")
    noisy: float = float("nan")
    threshold: float = float("nan")
    epsilon: float = 0.0
    stage: str = ""
    released: float = float("nan")
    sensitivity: float = float("nan")


class TestRecord(NamedTuple):
    """One row of the per-test trace."""

    x: int
    y: int
    S: tuple[int, ...]
    order: int
    statistic: float
    p_value: float
    independent: bool
    phase: str  # "skeleton" or "orientation"
    noise: float = float("nan")
    noisy: float = float("nan")
    threshold: float = float("nan")
    epsilon: float = 0.0
    stage: str = ""
    released: float = float("nan")
    sensitivity: float = float("nan")

    @classmethod
    def of(cls, x: int, y: int, S: tuple[int, ...], order: int, dec: Decision, phase: str) -> "TestRecord":
        return cls(x, y, S, order, dec.statistic, dec.p_value, dec.independent, phase,
                   dec.noise, dec.noisy, dec.threshold, dec.epsilon, dec.stage, dec.released, dec.sensitivity)


class Policy:
    """What the PC engine asks of a CI-decision policy, every hook declared (pcalg's idea: the skeleton search is
    fixed, the test is passed in; private variants change the policy, never the loop).

    ``strategy`` says how the engine asks its questions: ``"test"`` — one query at a time through
    :meth:`decide`; ``"edge"`` — one release per edge and level through :meth:`decide_edge` (Gauss-PC);
    ``"node"`` — a whole node at a time through :meth:`decide_node` (EM-PC's exponential mechanism).
    The one stop signal is ``exhausted`` (with ``stop_reason``): set it when no further query can be answered — a
    spent budget — and the engine stops and keeps the remaining edges; a refused query is not counted.
    :meth:`begin_order` runs before each level with the current adjacency sets (post-processing of earlier
    decisions). Two optional answers serve deterministic policies: ``first_separating`` (a whole (x, y) at once,
    used without a trace) and ``best_sepset`` (a preferred separating set after the search).
    """

    strategy = "test"
    exhausted = False
    stop_reason: str | None = None
    #: optional ``first_separating(x, adj_x, y, order, seen) -> (S | None, n_asked)``: the batched path
    first_separating = None
    #: optional ``best_sepset(i, j, first) -> S``: the separating set kept for (i, j)
    best_sepset = None

    def begin_order(self, order: int, adjacency) -> None:
        """Called before each skeleton level with the current adjacency sets."""

    def decide(self, x: int, y: int, S: tuple[int, ...], order: int) -> Decision:
        raise NotImplementedError(f"{type(self).__name__} answers by strategy {self.strategy!r}, not decide()")

    def decide_edge(self, x: int, y: int, sets, order: int):
        """``(decision, S)`` for edge x–y from every candidate separating set of the level (adj(x)\\{y} first)."""
        raise NotImplementedError

    def decide_node(self, x: int, order: int, candidates):
        """``(deletions, records)`` for node x from ``[(y, [S, ...]), ...]``: deletions ``[(y, S), ...]``."""
        raise NotImplementedError

    def why_stopped(self) -> str:
        return self.stop_reason or "the policy could answer no more queries"


#: kept for type hints written against the protocol name
CIPolicy = Policy


class PValuePolicy(Policy):
    """Non-private decision: independent iff p-value ≥ α (pcalg's convention)."""

    def __init__(self, ci_test, alpha: float = 0.05):
        if not (0.0 < float(alpha) < 1.0):
            raise UserError(f"alpha must be strictly between 0 and 1 (got {alpha}).")
        self.ci_test = ci_test
        self.alpha = float(alpha)

    def decide(self, x, y, S, order):
        r = self.ci_test(x, y, S)
        return Decision(bool(r.p_value >= self.alpha), float(r.statistic), float(r.p_value))


class OraclePolicy(Policy):
    """Perfect CI decisions: d-separation in a known DAG (statistic/p are 1 or 0).

    Besides ``decide`` it offers ``first_separating`` for the engine's batched path (stable
    skeleton without a trace): for a fixed x and order, the nodes d-connected to x given each candidate S are
    computed in compiled code, 64 sets per bit-parallel search, the first time a neighbour y needs one of them, and
    reused for the others. A y
    adjacent to x in the DAG is d-connected to x given every S (the edge is an active trail), so
    for it only the sets asked are counted.
    """

    _INDEPENDENT = Decision(True, 1.0, 1.0)
    _DEPENDENT = Decision(False, 0.0, 0.0)

    def __init__(self, dag: np.ndarray):
        self.dsep = DSeparation(dag)
        self._adjacent = self.dsep.dag | self.dsep.dag.T
        self._rtopo = np.array(topological_order(self.dsep.dag)[::-1], dtype=np.int64)  # children before parents
        self._batch_key = None
        self._batch = None

    def decide(self, x, y, S, order):
        return self._DEPENDENT if self.dsep.reachable(x, S)[y] else self._INDEPENDENT

    def first_separating(self, x, adj_x, y, order, seen):
        """(S, n_asked): the first S ⊆ adj_x \\ {y} of size ``order`` (lexicographic) not inside
        ``seen`` that separates x and y, or None — exactly what the engine's loop would find."""
        from cgdcore.pc.kernels import BLOCK, first_separating, subsets

        key = (x, order, tuple(adj_x))
        ds = self.dsep
        if key != self._batch_key:
            combos = subsets(np.asarray(adj_x, dtype=np.int64), order)
            d = len(ds._pptr) - 1
            blocks = -(-len(combos) // BLOCK)
            self._batch = combos, np.empty((blocks, d), np.uint64), np.zeros(blocks, np.uint8)
            self._batch_key = key
            self._mask = np.zeros(d, dtype=np.uint8)
        combos, conn, have = self._batch
        mask = self._mask
        mask[:] = 0
        if seen is not None:
            mask[list(seen)] = 1
        r, asked = first_separating(x, combos, conn, have, y, mask, seen is not None, bool(self._adjacent[x, y]),
                                    self._rtopo, ds._pptr, ds._pidx, ds._cptr, ds._cidx)
        return (None if r < 0 else tuple(int(v) for v in combos[r])), int(asked)
