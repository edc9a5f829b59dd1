"""Accuracy of a learned CPDAG against a true DAG, with the convention named in every output.

- Skeleton precision / recall / F1: over unordered adjacent pairs (NoLeaks, CURATE).
- Arc F1, Priv-PC convention (Wang et al. 2020, reference ``eval.py``): F1 over directed
  edge tuples, where an undirected CPDAG edge counts as both directions, for the learned
  CPDAG against the CPDAG of the true DAG. A reversed edge scores 0.
- SHD between CPDAGs: number of variable pairs whose edge (absent, i -> j, j -> i, i - j)
  differs between the learned CPDAG and the true DAG's CPDAG (causal-learn's ``SHD``;
  a reversal counts 1).
Empty sets: precision is 1 when nothing is predicted, recall is 1 when nothing is true
(as in the Priv-PC reference); F1 is 0 when precision + recall is 0.
"""
from __future__ import annotations

import numpy as np

from .graph import cpdag_from_dag, is_dag, skeleton

CONVENTIONS = {
    "skeleton": "skeleton: unordered adjacent pairs of the learned graph vs the true DAG",
    "arc_f1": "arc F1 (Priv-PC convention): directed edge tuples, undirected = both directions, "
    "learned CPDAG vs CPDAG of the true DAG",
    "shd": "SHD between CPDAGs: pairs whose edge mark differs (learned CPDAG vs true CPDAG; reversal = 1)",
}


def reference_cpdag(truth: np.ndarray) -> np.ndarray:
    """What a learned CPDAG is compared with: the CPDAG of the true DAG.

    A published "truth" that is not acyclic (the Sachs consensus graph has the cycle
    Plcg -> PIP2 -> PIP3 -> Plcg) has no CPDAG; its arcs are then used as given.
    """
    truth = np.asarray(truth, dtype=bool)
    return cpdag_from_dag(truth) if is_dag(truth) else truth.copy()


def _prf(tp: int, n_pred: int, n_true: int) -> tuple[float, float, float]:
    precision = tp / n_pred if n_pred else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0.0
    return float(precision), float(recall), float(f1)


def skeleton_scores(learned: np.ndarray, true_dag: np.ndarray) -> dict[str, float]:
    L = np.triu(skeleton(learned), 1)
    T = np.triu(skeleton(true_dag), 1)
    p, r, f = _prf(int((L & T).sum()), int(L.sum()), int(T.sum()))
    return {"skeleton_precision": p, "skeleton_recall": r, "skeleton_f1": f}


def arc_f1(learned: np.ndarray, true_dag: np.ndarray) -> float:
    L = np.asarray(learned, dtype=bool).copy()
    np.fill_diagonal(L, False)
    T = reference_cpdag(true_dag)
    return _prf(int((L & T).sum()), int(L.sum()), int(T.sum()))[2]


def _marks(A: np.ndarray) -> np.ndarray:
    """Edge state of each pair i < j: 0 none, 1 i->j, 2 j->i, 3 undirected."""
    A = np.asarray(A, dtype=bool)
    return A.astype(np.int8) + 2 * A.T.astype(np.int8)


def shd_between(a: np.ndarray, b: np.ndarray) -> int:
    """SHD between two graphs as given (pairs whose edge mark differs: missing, extra or reversed)."""
    iu = np.triu_indices(np.asarray(a).shape[0], 1)
    return int((_marks(a)[iu] != _marks(b)[iu]).sum())


def every_pair_f1(truth) -> float:
    """Skeleton F1 of the graph linking every pair, which uses no information: precision T/P, recall 1 — the
    baseline every private result is compared with (a run that does no better learned nothing)."""
    t = np.asarray(truth, bool)
    true_adj = int((t | t.T).sum() // 2)
    pairs = t.shape[0] * (t.shape[0] - 1) // 2
    return 2.0 * true_adj / (true_adj + pairs) if pairs else 0.0


def against_every_pair(f1: float, truth) -> str | None:
    """How a skeleton F1 compares with :func:`every_pair_f1` of ``truth``: see :func:`against_every_pair_f1`."""
    return against_every_pair_f1(f1, every_pair_f1(truth))


def against_every_pair_f1(f1: float, every_pair: float) -> str | None:
    """How a skeleton F1 compares with the every-pair F1 ``every_pair`` (both as printed, two decimals): "worse than"
    whenever it is lower, "no better than" when level or at most 0.02 higher, else None (NaN: None)."""
    trivial = round(every_pair, 2)
    f1 = round(float(f1), 2)
    if f1 < trivial:
        return "worse than"
    return "no better than" if f1 <= trivial + 0.02 else None


def edge_differences(a: np.ndarray, b: np.ndarray, names) -> list[dict[str, str]]:
    """The pairs whose edge differs between graphs ``a`` and ``b`` (their SHD, itemised): for each, both marks
    written as ``x → y``, ``x — y`` or ``none``, and what changed (``only in a``, ``only in b``, ``orientation``)."""
    ma, mb = _marks(a), _marks(b)
    out = []
    for i, j in zip(*np.triu_indices(ma.shape[0], 1)):
        if ma[i, j] == mb[i, j]:
            continue
        x, y = str(names[i]), str(names[j])
        word = {0: "none", 1: f"{x} → {y}", 2: f"{y} → {x}", 3: f"{x} — {y}"}
        kind = "only in b" if ma[i, j] == 0 else "only in a" if mb[i, j] == 0 else "orientation"
        out.append({"pair": f"{x} · {y}", "a": word[int(ma[i, j])], "b": word[int(mb[i, j])], "change": kind})
    return out


def shd_cpdag(learned: np.ndarray, true_dag: np.ndarray) -> int:
    return shd_between(learned, reference_cpdag(true_dag))


def evaluate(learned: np.ndarray, true_dag: np.ndarray) -> dict[str, float]:
    """All metrics of the JSON contract: skeleton P/R/F1, arc_f1, shd (see module doc)."""
    out = skeleton_scores(learned, true_dag)
    out["arc_f1"] = arc_f1(learned, true_dag)
    out["shd"] = shd_cpdag(learned, true_dag)
    return out
