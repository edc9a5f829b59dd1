"""Small, exact computations behind the Learn page's examples (no Streamlit here).

- :func:`pc_stages`: a finished PC run replayed stage by stage (complete graph, the skeleton
  after each order with the separating sets found there, v-structures, Meek's rules).
- :func:`randomized_response`: Warner's randomised response on one yes/no question, the
  simplest ε-DP mechanism, with its unbiased estimate.
- :func:`flip_probability`: the chance that Laplace noise flips one CI decision, given the
  p-value's distance from the threshold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Stage", "pc_stages", "randomized_response", "flip_probability"]


@dataclass(frozen=True)
class Stage:
    title: str
    graph: np.ndarray          # adjacency (i->j iff graph[i, j] and not graph[j, i])
    removed: tuple[tuple[int, int, tuple[int, ...], float], ...]  # (x, y, S, p) removed in this stage
    note: str


def pc_stages(result) -> list[Stage]:
    """Replay ``result`` (cgdcore.pc.Result): the skeleton after each order, then orientation."""
    from cgdcore.graph import meek_closure, unshielded_triples

    d = len(result.variables)
    G = ~np.eye(d, dtype=bool)
    stages = [Stage("Start: every pair connected", G.copy(), (), "PC assumes nothing: every pair of variables "
                    "may be adjacent.")]
    orders = sorted({t.order for t in result.trace if t.phase == "skeleton"})
    for k in orders:
        removed = []
        for t in result.trace:
            if t.phase == "skeleton" and t.order == k and t.independent and G[t.x, t.y]:
                G[t.x, t.y] = G[t.y, t.x] = False
                removed.append((t.x, t.y, tuple(t.S), float(t.p_value)))
        tests = sum(1 for t in result.trace if t.phase == "skeleton" and t.order == k)
        what = "no conditioning set" if k == 0 else f"conditioning sets of size {k}"
        stages.append(Stage(f"Order {k}: {tests} tests with {what}", G.copy(), tuple(removed),
                            f"{len(removed)} edge(s) removed: the test found the pair independent given S, which "
                            "becomes the pair's separating set."))
    skel = np.asarray(result.skeleton, dtype=bool)
    V = skel.copy()
    colliders = []
    for a, b, c in unshielded_triples(skel):  # a - b - c with a, c non-adjacent
        key = (min(a, c), max(a, c))
        if b not in result.sepsets.get(key, ()):
            V[b, a] = V[b, c] = False  # a -> b <- c
            colliders.append((a, b, c))
    stages.append(Stage(f"V-structures: {len(colliders)} collider(s)", V.copy(), (),
                        "For every a – b – c with a and c not adjacent: if b is not in their separating set, "
                        "orient a → b ← c."))
    M = meek_closure(V)
    stages.append(Stage("Meek's rules: orient what the v-structures imply", np.asarray(result.cpdag, dtype=bool),
                        (), f"Meek's rules R1–R4 orient {int((M & ~M.T).sum() - (V & ~V.T).sum())} more edge(s) "
                            "without creating new colliders or cycles; the rest stay undirected (the CPDAG)."))
    return stages


def randomized_response(epsilon: float, true_rate: float, n: int, rng: np.random.Generator) -> dict:
    """Each of ``n`` people answers truthfully with probability e^ε/(1+e^ε), else flips.

    The reported rate r relates to the true rate π by r = (1−q) + (2q−1)π with q = e^ε/(1+e^ε),
    so π̂ = (r − (1−q))/(2q − 1), unbiased, with sd √(r(1−r)/n)/(2q−1).
    """
    q = 1.0 / (1.0 + math.exp(-epsilon))
    truth = rng.random(n) < true_rate
    keep = rng.random(n) < q
    reports = np.where(keep, truth, ~truth)
    r = float(reports.mean())
    est = (r - (1 - q)) / (2 * q - 1)
    sd = math.sqrt(max(r * (1 - r), 1e-12) / n) / (2 * q - 1)
    return {"q": q, "ratio": q / (1 - q), "reported": r, "estimate": est, "sd": sd, "true": float(truth.mean())}


def flip_probability(p_value, alpha: float, scale: float):
    """P(noisy decision ≠ noise-free decision) under Lap(scale) noise on the p-value:
    ½·exp(−|p − α|/scale) (the Laplace tail beyond the gap)."""
    gap = np.abs(np.asarray(p_value, dtype=float) - alpha)
    return 0.5 * np.exp(-gap / scale)
