"""Priv-PC (sieve on a sub-sample, examine on the full data) run time, compiled tables vs the numpy reference.

Usage: python bench/privpc.py [--net child] [--n 100000] [--round-epsilon 1.0] [--seeds 0,1]
Each run starts from a cold statistics cache; CPU seconds (process time). The sieve's sub-sample statistics
are views over the full data's columns (SuffStats.subsample); the reference switch
(cgdcore.citests.contingency.USE_KERNEL etc.) changes only how tables and statistics are computed, so the
row-copying sub-samples of before the compiled kernels are not reproduced here (check out an older commit for
that). Prints numbers only.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.citests import chisq, clear_suffstats_cache, contingency, kendall  # noqa: E402
from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.discover import discover  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--net", default="child")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--round-epsilon", type=float, default=1.0)
    ap.add_argument("--seeds", default="0,1")
    args = ap.parse_args()
    ds = load_dataset(args.net, n=args.n, seed=0)
    discover(load_dataset("cancer", n=20_000, seed=0), algo="priv-pc", round_epsilon=1.0, seed=0)  # warm-up
    for name, compiled in (("numpy (reference)", False), ("compiled", True)):
        contingency.USE_KERNEL = chisq.USE_KERNEL = kendall.USE_KERNEL = compiled
        for seed in (int(s) for s in args.seeds.split(",")):
            clear_suffstats_cache()
            c0 = time.process_time()
            r = discover(ds, algo="priv-pc", round_epsilon=args.round_epsilon, seed=seed)
            print(f"{args.net} n = {args.n:,} priv-pc seed {seed} {name:<18} CPU {time.process_time() - c0:5.2f} s  "
                  f"tests {r.result.n_ci_tests}  SHD {r.metrics['shd']}")
    contingency.USE_KERNEL = chisq.USE_KERNEL = kendall.USE_KERNEL = True


if __name__ == "__main__":
    main()
