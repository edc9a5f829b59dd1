"""v-structure rules compared: SHD to the true CPDAG with the d-separation oracle on every shipped network,
and with the G-test on sampled data ("priority" = causal-learn's uc_priority=2 on our first separating sets;
"union" = causal-learn's stable PC, every separating set of the removal depth, the default of non-private PC).

Usage: python bench/orientation.py [--n 100000] [--sampled child,alarm,insurance] [--seeds 0]
Prints numbers only.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cgdcore.data import load_dataset  # noqa: E402
from cgdcore.data.registry import NETWORKS  # noqa: E402
from cgdcore.discover import discover  # noqa: E402
from cgdcore.metrics import shd_cpdag  # noqa: E402
from cgdcore.pc import OraclePolicy, orient, pc  # noqa: E402

RULES = ("standard", "priority", "union")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--sampled", default="child,alarm,insurance")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--test", default="g2")
    args = ap.parse_args()
    print("oracle (d-separation), SHD to the true CPDAG per rule; conflicts in brackets")
    for net in NETWORKS:
        ds = load_dataset(net, n=10, seed=0)
        res = pc(OraclePolicy(ds.truth), ds.variables, record_trace=False)
        out = []
        for rule in RULES:
            if rule == "union":  # re-tests through the policy: a run of its own
                r = pc(OraclePolicy(ds.truth), ds.variables, record_trace=False, orientation="union")
                g, conf = r.cpdag, r.orientation_conflicts
            else:
                g, _, conf = orient(res.skeleton, res.sepsets, rule=rule)
            out.append(f"{rule} {shd_cpdag(g, ds.truth)} ({conf})")
        print(f"  {net:<11} " + "   ".join(out))
    print(f"sampled, n = {args.n:,}, {args.test}, default α; SHD (conflicts)")
    for net in args.sampled.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            ds = load_dataset(net, n=args.n, seed=seed)
            res = discover(ds, ci_test=args.test, orientation="standard").result
            out = []
            for rule in RULES:
                if rule == "union":
                    r = discover(ds, ci_test=args.test, orientation="union").result
                    g, conf = r.cpdag, r.orientation_conflicts
                else:
                    g, _, conf = orient(res.skeleton, res.sepsets, rule=rule)
                out.append(f"{rule} {shd_cpdag(g, ds.truth)} ({conf})")
            print(f"  {net:<11} seed {seed}  " + "   ".join(out))


if __name__ == "__main__":
    main()
