"""Small, exact computations behind the Learn page's examples (no Streamlit here).

- :func:`pc_stages`: a finished PC run replayed stage by stage (complete graph, the skeleton
  after each order with the separating sets found there, v-structures, Meek's rules).
- :func:`pc_mistakes`: where a PC run's skeleton differs from the truth, and the test behind each missed edge.
- :func:`randomized_response`: Warner's randomised response on one yes/no question, the
  simplest ε-DP mechanism, with its unbiased estimate.
- :func:`flip_probability`: the chance that Laplace noise flips one CI decision, given the
  p-value's distance from the threshold.
- :func:`sieve_examine_flow`: where each CI test of a Priv-PC run ended (sieve, examine) and
  how often that disagreed with the noise-free decision.
- :func:`floating_point_leak`: Mironov's (2012) attack on textbook Laplace noise in doubles,
  against the snapping mechanism, on two neighbouring inputs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Stage", "pc_stages", "pc_mistakes", "randomized_response", "flip_probability", "sieve_examine_flow",
           "floating_point_leak"]


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
    union = result.params.get("orientation") == "union"
    found: dict[tuple[int, int], list] = {}  # the union rule's re-tests: further separating sets of each pair
    for t in result.trace:
        if union and t.phase == "orientation" and t.independent:
            found.setdefault((min(t.x, t.y), max(t.x, t.y)), []).append(tuple(t.S))
    for a, b, c in unshielded_triples(skel):  # a - b - c with a, c non-adjacent
        key = (min(a, c), max(a, c))
        if key in result.sepsets and all(b not in S for S in [result.sepsets[key], *found.get(key, ())]):
            V[b, a] = V[b, c] = False  # a -> b <- c
            colliders.append((a, b, c))
    how = ("if b is in none of the separating sets of that size (the union rule re-tests the other sets of the "
           "size at which the edge was removed), " if union else "if b is not in their separating set, ")
    stages.append(Stage(f"V-structures: {len(colliders)} collider(s)", V.copy(), (),
                        f"For every a – b – c with a and c not adjacent: {how}orient a → b ← c."))
    M = meek_closure(V)
    stages.append(Stage("Meek's rules: orient what the v-structures imply", np.asarray(result.cpdag, dtype=bool),
                        (), f"Meek's rules R1–R4 orient {int((M & ~M.T).sum() - (V & ~V.T).sum())} more edge(s) "
                            "without creating new colliders or cycles; the rest stay undirected (the CPDAG)."))
    return stages


def pc_mistakes(result, truth) -> dict:
    """The skeleton errors of a PC run against the true DAG: each missed edge with the test that removed it (order,
    S, p-value, which was ≥ α: the data did not show the dependence), and each extra edge (no test found a
    separating set at α)."""
    truth = np.asarray(truth, dtype=bool)
    true_skel = truth | truth.T
    skel = np.asarray(result.skeleton, dtype=bool)
    removed_by = {}
    for t in result.trace:
        if t.phase == "skeleton" and t.independent:
            removed_by[(min(t.x, t.y), max(t.x, t.y))] = t
    d = len(skel)
    missed, extra = [], []
    for x in range(d):
        for y in range(x + 1, d):
            if true_skel[x, y] and not skel[x, y]:
                t = removed_by.get((x, y))
                missed.append((x, y, tuple(t.S) if t else (), float(t.p_value) if t else float("nan")))
            elif skel[x, y] and not true_skel[x, y]:
                extra.append((x, y))
    return {"missed": missed, "extra": extra}


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


def sieve_examine_flow(trace, alpha: float) -> dict:
    """Counts of a Priv-PC run's skeleton tests by where they were decided (Wang et al. 2020, Alg. 2).

    A test below the noisy threshold on the sub-sample stops at the sieve (edge kept, no ε
    spent); a sieve hit is examined on the full data (one round, ε) and either removes the
    edge or is a false alarm. ``flipped`` counts disagreements with the noise-free decision
    (p ≥ α on the full data). Tests after a budget stop are ``unasked``.
    """
    out = {"asked": 0, "sieve_keep": 0, "examined": 0, "examine_remove": 0, "examine_keep": 0, "stopped": 0,
           "flipped_sieve": 0, "flipped_examine": 0}
    for t in trace:
        if t.phase != "skeleton":
            continue
        out["asked"] += 1
        truth = t.p_value >= alpha
        if t.stage == "sieve":
            out["sieve_keep"] += 1
            out["flipped_sieve"] += int(truth != t.independent)
        elif t.stage == "examine":
            out["examined"] += 1
            out["examine_remove" if t.independent else "examine_keep"] += 1
            out["flipped_examine"] += int(truth != t.independent)
        else:
            out["stopped"] += 1
    return out


def floating_point_leak(samples: int, scale: float, rng: np.random.Generator) -> dict:
    """Mironov (CCS 2012, §3–4): release f(D) ∈ {0, 1} (Δ = 1) with noise of scale λ.

    *Plain*: y = f + λ·Laplace in doubles (numpy). Near 0, the noise alone is a double with up to
    53 significant bits, but 1 + noise is rounded to the grid of doubles near 1 (multiples of
    2^−53), so an output in (0, 2^−6) that lies on that grid almost surely came from f = 1 and
    one that does not came from f = 0: far beyond the e^ε = e^{1/λ} that DP promises.
    *Snapping*: both inputs give multiples of Λ (the smallest power of two ≥ λ) clamped to
    [−B, B], B = 2Λ; each output's frequency ratio stays within e^ε (Theorem 1).
    *Discrete* (what the private algorithms use): f is put on a lattice of resolution r = 2^j, an exact
    discrete Laplace integer is added, and every output is a lattice point reachable from both inputs;
    the largest ratio of output probabilities is exactly K·s/t ≤ ε (cgdcore.privacy.discrete).
    Returns, per input, the share of plain outputs in the window that lie on the 2^−53 grid,
    one example output of each in hexadecimal, the snapping outputs' frequencies and the discrete
    mechanism's lattice and exact worst-case ratio.
    """
    from cgdcore.privacy.mechanisms import LaplaceMechanism
    from cgdcore.privacy.snapping import snapping_epsilon, snapping_grid, snapping_laplace_array

    window, grid = 2.0 ** -6, 2.0 ** -53
    plain: dict[float, dict] = {}
    seeds = rng.integers(0, 2 ** 63, size=2)
    for x, seed in zip((0.0, 1.0), seeds):
        y = x + np.random.default_rng(seed).laplace(0.0, scale, samples)
        w = y[(y > 0) & (y < window)]
        on = np.mod(w, grid) == 0
        example = float(w[0]) if w.size else float("nan")
        plain[x] = {"in_window": int(w.size), "on_grid": float(on.mean()) if w.size else float("nan"),
                    "example": example, "example_hex": example.hex() if w.size else "—"}
    big, _ = snapping_grid(scale)
    bound = 2.0 * big
    snap: dict[float, dict[float, int]] = {}
    for x, seed in zip((0.0, 1.0), seeds):
        out = snapping_laplace_array(np.full(samples, x), scale, bound, np.random.default_rng(seed))
        values, counts = np.unique(out, return_counts=True)
        snap[x] = dict(zip(values.tolist(), counts.tolist()))
    support = sorted(set(snap[0.0]) | set(snap[1.0]))
    ratios = [abs(math.log(snap[0.0].get(v, 0) / snap[1.0][v])) if snap[0.0].get(v) and snap[1.0].get(v) else math.inf
              for v in support]
    noise = LaplaceMechanism(1.0, 1.0 / scale, np.random.default_rng(int(seeds[0])), None, bound=4.0).noise
    lat = noise.lattice
    draws = [noise.add(x).noisy for x in (0.0, 1.0) for _ in range(200)]
    discrete = {"resolution": lat.resolution, "K": lat.sensitivity,
                "exact_log_ratio": lat.sensitivity * noise.stream.s / noise.stream.t,
                "on_lattice": all((v / lat.resolution).is_integer() for v in draws)}
    return {"plain": plain, "snapping": snap, "support": support, "max_log_ratio": max(ratios),
            "epsilon": 1.0 / scale, "snapping_epsilon": snapping_epsilon(1.0, scale, bound), "grid": big,
            "bound": bound, "window": window, "discrete": discrete}


def scale_comparison(dataset, epsilons=(1.0, 3.0, 10.0), algos=("laplace-pc", "svt-pc"), seeds=range(3)) -> list[dict]:
    """Skeleton F1 of the same algorithms at the same total ε with decisions on the p-value scale (as in the papers)
    and on the statistic's own z scale: one row per (algorithm, scale, ε), mean over ``seeds`` (fixed, so the lesson
    reproduces)."""
    import statistics

    from cgdcore.discover import discover

    rows = []
    for algo in algos:
        for scale in ("p", "z"):
            for eps in epsilons:
                f1 = [discover(dataset, algo=algo, epsilon=eps, seed=s, options={"scale": scale}).metrics["skeleton_f1"]
                      for s in seeds]
                rows.append({"algorithm": algo, "scale": scale, "epsilon": eps, "skeleton_f1": statistics.mean(f1)})
    return rows


def statistic_comparison(dataset, epsilons=(0.3, 1.0, 3.0, 10.0, 30.0, 100.0), seeds=range(3)) -> dict:
    """Gauss-PC with the Kendall statistic and with the G statistic at the same total ε (mean skeleton F1 over the
    fixed ``seeds``), the two statistics' sensitivities, and non-private PC with each test: the ceilings."""
    import statistics

    from cgdcore.citests import g2_sensitivity, kendall_public_z_sensitivity
    from cgdcore.discover import discover

    rows = []
    for test in ("kendall", "g2"):
        for eps in epsilons:
            f1 = [discover(dataset, algo="gauss-pc", ci_test=test, epsilon=eps, seed=s).metrics["skeleton_f1"]
                  for s in seeds]
            rows.append({"test": test, "epsilon": eps, "skeleton_f1": statistics.mean(f1)})
    ceiling = {t: discover(dataset, algo="pc", ci_test=t).metrics["skeleton_f1"] for t in ("kendall", "g2")}
    return {"rows": rows, "ceiling": ceiling, "n": dataset.n,
            "sensitivity": {"kendall": kendall_public_z_sensitivity(dataset.n), "g2": g2_sensitivity(dataset.n)}}


def p_and_z_margins(z_values=(2.0, 5.0, 20.0), alpha: float = 0.05) -> list[dict]:
    """How far a test with statistic z sits from the decision line on each scale: on the p scale the margin
    α − p(z) can never exceed α; on the z scale it is |z| − z_α and grows with the evidence."""
    from cgdcore.central.scale import z_alpha
    from cgdcore.citests import normal_p_value

    za = z_alpha(alpha, "one")
    return [{"z": z, "p": normal_p_value(z, "one"), "p margin": alpha - normal_p_value(z, "one"),
             "z margin": abs(z) - za} for z in z_values]

