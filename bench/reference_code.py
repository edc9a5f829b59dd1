"""Priv-PC, SVT-PC and Kendall PC beside the Priv-PC authors' reference code: whole-process CPU seconds at
n = 100,000 and per-round ε = 1.

The authors' code cannot be run here; its figures, measured on this kind of machine (CPU s of the whole process,
n = 100,000, ε_round = 1), are printed beside ours with the ratio theirs / ours.
Usage: python bench/reference_code.py [--reps 3]. Prints numbers only.
"""
import argparse
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the authors' reference code: CPU s of the whole process (n = 100,000, ε_round = 1)
REFERENCE = {("priv-pc", "sachs"): 17.5, ("priv-pc", "child"): 53.1, ("svt-pc", "sachs"): 9.5,
             ("svt-pc", "child"): 37.5, ("pc-kendall", "sachs"): 45.0, ("pc-kendall", "child"): 122.1}
ARGS = {"priv-pc": ["--algo", "priv-pc", "--round-epsilon", "1", "--noise-seed", "0"],
        "svt-pc": ["--algo", "svt-pc", "--round-epsilon", "1", "--noise-seed", "0"],
        "pc-kendall": ["--algo", "pc", "--ci-test", "kendall", "--alpha", "0.1"]}


def cpu(cmd) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"whole process `python -m cgdcore discover --dataset NET --n 100000 ...`, CPU s, best of {args.reps}")
    print(f"{'algorithm':<11} {'network':<7} {'ours':>6} {'reference':>10} {'ratio':>7}")
    for (algo, net), theirs in REFERENCE.items():
        cmd = [sys.executable, "-m", "cgdcore", "discover", "--dataset", net, "--n", "100000", *ARGS[algo]]
        ours = min(cpu(cmd) for _ in range(args.reps))
        print(f"{algo:<11} {net:<7} {ours:>6.2f} {theirs:>10.1f} {theirs / ours:>6.0f}×")


if __name__ == "__main__":
    main()
