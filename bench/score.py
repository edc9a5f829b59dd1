"""Score-based discovery speed: NOTEARS (covariance form), DP-NOTEARS and CURATE-score.

Usage: python bench/score.py [--sizes 20,50] [--n 5000]
Targets (2-core machine, ER-2, n = 5,000): NOTEARS d = 20 ≤ 5 s (the reference implementation: ~276 s
measured on this class of machine, anchors_cd.md §3.2); DP-NOTEARS and CURATE-score d = 20 ≤ 10 s.
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.discover import discover  # noqa: E402

TARGET = {"notears": 5.0, "noleaks": 10.0, "curate-score": 10.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="20,50")
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--epsilon", type=float, default=1.0)
    args = ap.parse_args()
    discover(load_dataset("synthetic:d=5", n=500, seed=0), algo="noleaks", epsilon=1.0)  # warm-up
    print(f"ER-2 linear-Gaussian SEM, n = {args.n:,}; private runs at ε = {args.epsilon}, δ = 1e-5")
    print("seconds: wall clock (the target); cpu: process time of all threads (BLAS threads count)")
    print(f"{'d':>3} {'algorithm':<13} {'seconds':>8} {'cpu':>6} {'target':>8} {'SHD':>5} {'skel F1':>8} "
          f"{'releases':>9}")
    for d in (int(x) for x in args.sizes.split(",")):
        ds = load_dataset(f"synthetic:d={d},degree=2,graph=er", n=args.n, seed=0)
        for algo in ("notears", "noleaks", "curate-score"):
            kw = {} if algo == "notears" else {"epsilon": args.epsilon}
            if algo in ("noleaks", "curate-score"):  # the gradient releases (curate-score: ε0 by its public rule)
                kw["options"] = {"release": "gradient"} if algo == "noleaks" else {}
            t, c = time.perf_counter(), time.process_time()
            r = discover(ds, algo=algo, **kw)
            sec, cpu = time.perf_counter() - t, time.process_time() - c
            tgt = TARGET[algo] if d == 20 else None
            mark = "-" if tgt is None else ("ok " if sec <= tgt else "MISS") + f"{tgt:g}"
            rel = r.privacy["releases"] if r.privacy else "-"
            print(f"{d:>3} {algo:<13} {sec:8.2f} {cpu:6.2f} {mark:>8} {r.metrics['shd']:>5} "
                  f"{r.metrics['skeleton_f1']:8.3f} {rel:>9}")


if __name__ == "__main__":
    main()
