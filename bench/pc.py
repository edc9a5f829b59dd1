"""PC speed on sampled benchmark networks: run time, CI tests per order, tests per second.

Usage: python bench/pc.py [--n 100000] [--networks alarm,child,sachs]
Targets (2-core machine): Alarm at n = 100,000 with the G-test and with conditional Kendall ≤ 3 s each.
Each run starts from a cold sufficient-statistics cache (the cost a user sees on new data);
the warm line shows the cost when the same data was already tested (e.g. another α or algorithm).
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.citests import clear_suffstats_cache  # noqa: E402
from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.discover import discover  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--networks", default="alarm,child,sachs")
    ap.add_argument("--alpha", type=float, default=0.01)
    args = ap.parse_args()
    discover(load_dataset("cancer", n=1000, seed=0), ci_test="g2")  # import warm-up (scipy etc.)
    print(f"PC (stable), n = {args.n:,}, alpha = {args.alpha}; target: alarm ≤ 3 s per CI test")
    print(f"{'network':<10} {'test':<8} {'cold s':>7} {'warm s':>7} {'tests':>7} {'tests/s':>9} "
          f"{'skel F1':>7} {'SHD':>4}  tests per order")
    for net in args.networks.split(","):
        ds = load_dataset(net, n=args.n, seed=0)
        for test in ("g2", "kendall"):
            clear_suffstats_cache()
            t = time.perf_counter()
            res = discover(ds, ci_test=test, alpha=args.alpha)
            cold = time.perf_counter() - t
            t = time.perf_counter()
            discover(ds, ci_test=test, alpha=args.alpha / 2)
            warm = time.perf_counter() - t
            m = res.metrics
            verdict = "" if net != "alarm" else ("  OK (≤ 3 s)" if cold <= 3 else "  SLOW (> 3 s)")
            print(f"{net:<10} {test:<8} {cold:7.2f} {warm:7.2f} {res.result.n_ci_tests:7d} "
                  f"{res.result.n_ci_tests / cold:9.0f} {m['skeleton_f1']:7.3f} {m['shd']:4d}  "
                  f"{list(res.result.tests_per_order)}{verdict}")


if __name__ == "__main__":
    main()
