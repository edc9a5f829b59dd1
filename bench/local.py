"""Local-DP privatisation throughput at 1,000,000 rows × 20 attributes (10 categories each).

Usage: python bench/local.py [--n 1000000] [--d 20]
Target (2-core machine): every mechanism ≤ 1 s for 1,000,000 × 20.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.local.mechanisms import geo_comb, geo_cwise, krr_comb, krr_cwise  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(args.n, args.d)).astype(np.uint8)
    ar = [10] * args.d
    runs = [("krr-cwise ε=20", lambda: krr_cwise(X, ar, 20.0, rng)),
            ("krr-comb ε=30", lambda: krr_comb(X, ar, 30.0, rng)),
            ("geo-cwise ε=20", lambda: geo_cwise(X, ar, rng, eps=20.0)),
            ("geo-cwise p_max=0.1", lambda: geo_cwise(X, ar, rng, p_max=0.1)),
            ("geo-comb ε=1", lambda: geo_comb(X, ar, rng, eps=1.0))]
    t = time.perf_counter()
    small = X[:100]
    krr_cwise(small, ar, 20.0, rng), geo_cwise(small, ar, rng, eps=20.0), geo_comb(small, ar, rng, eps=1.0)
    print(f"kernel load/compile: {time.perf_counter() - t:.2f} s (once per machine; cached on disk)")
    print(f"{args.n:,} rows × {args.d} attributes; target ≤ 1 s each")
    for name, f in runs:
        t = time.perf_counter()
        f()
        sec = time.perf_counter() - t
        print(f"{name:<22} {sec:6.2f} s  {args.n / sec:12,.0f} rows/s  {'ok' if sec <= 1 else 'MISS'}")


if __name__ == "__main__":
    main()
