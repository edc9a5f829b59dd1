"""PC at large n against the floor of one ``np.bincount`` per CI test.

Usage: python bench/tables.py [--net alarm] [--n 100000] [--reps 3] [--test g2]

For each implementation of the table + statistic path (the numpy reference of before the compiled kernels and the
compiled kernels, switched by ``cgdcore.citests.contingency.USE_KERNEL``), the same process runs PC
(stable, default α) from a cold sufficient-statistics cache and reports CPU seconds (process time) and
wall seconds. The floor is the time of one ``np.bincount`` over a ready-made length-n int32 code
(minlength = that test's number of cells) per computed test. Ratio = PC CPU time / floor CPU time,
both measured in this run (timings on a shared machine are noisy; compare ratios, not absolute times).
Prints numbers only; no assertions.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from cgdcore.citests import clear_suffstats_cache, contingency  # noqa: E402
from cgdcore.citests import chisq as chisq_mod  # noqa: E402
from cgdcore.citests import kendall as kendall_mod  # noqa: E402
from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.discover import discover  # noqa: E402


def _set_impl(compiled: bool) -> None:
    contingency.USE_KERNEL = compiled
    chisq_mod.USE_KERNEL = compiled
    kendall_mod.USE_KERNEL = compiled


def _run(ds, test, alpha):
    clear_suffstats_cache()
    c0, w0 = time.process_time(), time.perf_counter()
    res = discover(ds, ci_test=test, alpha=alpha)
    return time.process_time() - c0, time.perf_counter() - w0, res


def _floor(ds, queries, reps):
    """CPU seconds of one np.bincount per query over a ready length-n int32 code."""
    ar = ds.arities
    rng = np.random.default_rng(0)
    code = rng.integers(0, 64, size=ds.n).astype(np.int32)
    cells = []
    for x, y, S in queries:
        k = ar[x] * ar[y]
        for v in S:
            k *= ar[v]
        cells.append(max(64, k))
    best = np.inf
    for _ in range(reps):
        c0 = time.process_time()
        for m in cells:
            np.bincount(code, minlength=m)
        best = min(best, time.process_time() - c0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--net", default="alarm")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--test", default="g2")
    ap.add_argument("--alpha", type=float, default=None)
    args = ap.parse_args()
    ds = load_dataset(args.net, n=args.n, seed=0)
    discover(load_dataset("cancer", n=1000, seed=0), ci_test=args.test)  # warm-up: imports, scipy, numba cache
    impls = [("numpy (reference)", False)]
    if hasattr(contingency, "USE_KERNEL"):
        impls.append(("compiled", True))
    rows = []
    for name, compiled in impls:
        _set_impl(compiled)
        _run(ds, args.test, args.alpha)  # first call per implementation (kernel load/compile)
        best = None
        for _ in range(args.reps):
            cpu, wall, res = _run(ds, args.test, args.alpha)
            if best is None or cpu < best[0]:
                best = (cpu, wall, res)
        rows.append((name, *best))
    res = rows[0][3]
    queries = sorted({(min(r.x, r.y), max(r.x, r.y), tuple(sorted(r.S))) for r in res.result.trace})
    floor = _floor(ds, queries, args.reps)
    print(f"{args.net} n = {args.n:,}, PC stable, {args.test}; {len(queries)} distinct tests "
          f"({res.result.n_ci_tests} asked); best of {args.reps} cold runs per implementation")
    print(f"floor: one np.bincount per test   CPU {floor:6.3f} s  ({1e3 * floor / len(queries):.3f} ms/test)")
    for name, cpu, wall, r in rows:
        print(f"{name:<20} CPU {cpu:6.3f} s  wall {wall:6.3f} s  {1e3 * cpu / len(queries):.3f} ms/test  "
              f"ratio to floor {cpu / floor:5.2f}x  SHD {r.metrics['shd']}")
    if len(rows) > 1:
        same = all(np.array_equal(rows[0][3].result.cpdag, r[3].result.cpdag)
                   and rows[0][3].result.sepsets == r[3].result.sepsets for r in rows[1:])
        print(f"compiled / reference CPU: {rows[1][1] / rows[0][1]:.2f}; same CPDAG and sepsets: {same}")
    _set_impl(True)


if __name__ == "__main__":
    main()
