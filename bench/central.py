"""Central-DP algorithms: run time and CI-test counts against the Priv-PC paper's Tables 2 and 3.

Usage: python bench/central.py [--n 100000] [--networks child,alarm,sachs,asia] [--round-epsilon 1]
Targets (2-core machine, Child, n = 100,000, per-round ε = 1): Priv-PC ≤ 2 s (paper: 85.55 s),
SVT-PC ≤ 2 s (32.85 s), CURATE ≤ 3 s, EM-PC ≤ 60 s (25,140.67 s). CURATE runs with a total
budget (--curate-epsilon, default 10). Runs use the reference code's non-stable skeleton
(variant "original"), as Table 3's counts do; each run starts from a cold statistics cache.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.citests import clear_suffstats_cache  # noqa: E402
from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.discover import discover  # noqa: E402

# Priv-PC paper, Table 2 (seconds at per-round ε = 1) and Table 3 (number of CI tests)
PAPER_TIME = {
    "earthquake": {"em-pc": 176.04, "svt-pc": 3.38, "priv-pc": 6.62},
    "cancer": {"em-pc": 64.62, "svt-pc": 2.94, "priv-pc": 6.09},
    "asia": {"em-pc": 531.80, "svt-pc": 10.06, "priv-pc": 16.19},
    "survey": {"em-pc": 68.13, "svt-pc": 1.21, "priv-pc": 2.13},
    "alarm": {"em-pc": 10601.33, "svt-pc": 71.23, "priv-pc": 143.01},
    "sachs": {"em-pc": 4858.42, "svt-pc": 4.29, "priv-pc": 16.65},
    "child": {"em-pc": 25140.67, "svt-pc": 32.85, "priv-pc": 85.55},
}
PAPER_TESTS = {
    "asia": {"priv-pc": 95, "em-pc": 216}, "cancer": {"priv-pc": 37, "em-pc": 57},
    "earthquake": {"priv-pc": 40, "em-pc": 61}, "survey": {"priv-pc": 29, "em-pc": 38},
    "alarm": {"priv-pc": 1843, "em-pc": 12979}, "sachs": {"priv-pc": 165, "em-pc": 1224},
    "child": {"priv-pc": 1162, "em-pc": 7393},
}
TARGET = {"priv-pc": 2.0, "svt-pc": 2.0, "curate": 3.0, "em-pc": 60.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--networks", default="child,sachs,asia,alarm")
    ap.add_argument("--round-epsilon", type=float, default=1.0)
    ap.add_argument("--curate-epsilon", type=float, default=10.0)
    ap.add_argument("--algos", default="priv-pc,svt-pc,curate,em-pc")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    # warm-up: imports, scipy, and the compiled EM-PC kernel (cached on disk after the first run)
    warm = load_dataset("cancer", n=2000, seed=0)
    discover(warm, algo="em-pc", round_epsilon=1.0)
    discover(warm, algo="priv-pc", round_epsilon=1.0)
    print(f"n = {args.n:,}, per-round ε = {args.round_epsilon}, CURATE total ε = {args.curate_epsilon}, "
          f"variant original, seed {args.seed}")
    print(f"{'network':<9} {'algorithm':<9} {'seconds':>8} {'paper s':>9} {'speed-up':>9} {'target':>7} "
          f"{'tests':>6} {'paper':>6} {'skel F1':>7} {'ε spent':>8}  rule")
    for net in args.networks.split(","):
        ds = load_dataset(net, n=args.n, seed=0)
        for algo in args.algos.split(","):
            clear_suffstats_cache()
            kw = {"epsilon": args.curate_epsilon} if algo == "curate" else {"round_epsilon": args.round_epsilon}
            t = time.perf_counter()
            r = discover(ds, algo=algo, variant="original", seed=args.seed, **kw)
            sec = time.perf_counter() - t
            paper = PAPER_TIME.get(net, {}).get(algo)
            ptests = PAPER_TESTS.get(net, {}).get(algo)
            target = TARGET[algo] if net == "child" else None
            print(f"{net:<9} {algo:<9} {sec:8.2f} {paper if paper else '-':>9} "
                  f"{(f'{paper / sec:.0f}x' if paper else '-'):>9} "
                  f"{(('ok ' if sec <= target else 'MISS') + f'{target:g}') if target else '-':>7} "
                  f"{r.result.n_ci_tests:6d} {ptests if ptests else '-':>6} {r.metrics['skeleton_f1']:7.3f} "
                  f"{r.privacy['epsilon']:8.3g}  {r.privacy['rule']}")


if __name__ == "__main__":
    main()
