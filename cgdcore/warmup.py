"""Compile cgdcore's kernels into numba's disk cache before anyone waits for them: ``python -m cgdcore.warmup``.

A kernel is compiled the first time a process calls it with a new signature (~0.1–1 CPU-second each) and loaded
from the cache afterwards (:mod:`cgdcore.jit`). Compiling cannot be interrupted: the first private run on a fresh
server spent 3.8 s of CPU between two cancel checkpoints compiling Priv-PC's kernels, so a user who left that page
kept the server busy for seconds. ``make app`` and ``make test`` run this module once after an install and whenever
a kernel's source changes.

It runs every central algorithm (each CI test it allows), Priv-PC's sub-sampled sieve, PC to full order and CI tests
past the direct tables' limit on 30,000 rows (enough for the distinct-row tables), tables over codes of up to 256 and
of more categories, the d-separation oracle, and every local mechanism with the de-biased tests on 5,000, with the
kernels loaded first (:func:`cgdcore.citests.contingency.kernels_loaded`). About 15 s of one core with an empty cache,
3 s with a full one. What it does not reach compiles when first used, as before.
"""
from __future__ import annotations

import time

import numpy as np


def warm_kernels(say=print) -> int:
    """Run the workload above; returns the number of kernel entry points (signatures called from Python) this process
    compiled or loaded."""
    t0 = time.perf_counter()
    import cgdcore.kernels  # noqa: F401  (loaded first: every later table takes the compiled path)
    from cgdcore.algorithms import REGISTRY
    from cgdcore.citests import make_ci_test, suffstats_for
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover
    from cgdcore.local.privatize import MECHANISMS
    from cgdcore.pc import OraclePolicy, pc

    for name in ("asia", "alarm"):  # binary and multi-state variables; 30,000 rows reach the distinct-row tables
        ds = load_dataset(name, n=30_000, seed=0)
        discover(ds, algo="pc", seed=0)
        for algo, spec in REGISTRY.items():
            if spec.family in ("pc", "private-pc"):
                for test in spec.ci_tests or ("g2", "chi2", "kendall"):
                    discover(ds, algo=algo, ci_test=test, epsilon=None if algo == "pc" else 1.0, seed=0,
                             max_order=2)
        discover(ds, algo="priv-pc", epsilon=1.0, seed=0, max_order=2, options={"scale": "p"})
        for test in ("g2", "kendall"):  # conditioning sets past the direct tables' limit take the coded tables
            make_ci_test(test, suffstats_for(ds.data, ds.arities))(0, 1, range(2, 8))
    rng = np.random.default_rng(0)
    for k in (200, 300):  # rows mostly distinct (tables over the code columns); uint8 and uint16 codes (code_dtype)
        wide = np.column_stack([rng.integers(0, k, 2_000), rng.integers(0, 3, (2_000, 9))])
        g2 = make_ci_test("g2", suffstats_for(wide, [k] + [3] * 9))
        g2(0, 1, (2,)), g2(0, 1, range(2, 10))
    asia = load_dataset("asia", n=5_000, seed=0)
    for trace in (True, False):  # the d-separation oracle: one set per search, and the batched search
        pc(OraclePolicy(asia.truth), asia.variables, record_trace=trace)
    for mechanism in MECHANISMS:
        discover(asia, algo="pc", ldp={"mechanism": mechanism, "epsilon": 2.0, "debias": "invert"}, seed=0)
    discover(asia, algo="pc", ldp={"mechanism": "krr-cwise", "epsilon": 2.0, "debias": "ibu"}, seed=0)
    discover(asia, algo="pc", ldp={"mechanism": "geo-comb", "p_max": 0.5}, seed=0)
    signatures = _signatures()
    say(f"cgdcore: {signatures} kernel entry points compiled, or loaded from numba's cache, in "
        f"{time.perf_counter() - t0:.1f} s")
    return signatures


def _signatures() -> int:
    """Kernel signatures this process holds for calls from Python (a kernel another kernel calls is compiled into
    its caller)."""
    import sys

    from numba.core.registry import CPUDispatcher

    return sum(len(obj.signatures) for name, mod in list(sys.modules.items()) if name.startswith("cgdcore.")
               for obj in vars(mod).values() if isinstance(obj, CPUDispatcher) and obj.__module__ == name)


if __name__ == "__main__":
    warm_kernels()
