"""PC against causal-learn on identical sampled data: CPU seconds of the whole process, interleaved runs, and the
learned graphs' SHD to the true CPDAG (same skeleton search, each tool's default collider rule).

Usage: python bench/causal_learn.py [--n 100000] [--networks asia,sachs,child,alarm] [--reps 3]
causal-learn is installed by this script into a throwaway virtual environment in the system's temporary folder
(never a dependency of the project). Both sides read the same rows from CSV (ours with state labels, causal-learn as
integer codes) and run PC with the G-test at
α = 0.01, stable skeleton; ours is `python -m cgdcore discover`, theirs `causallearn.search.ConstraintBased.PC.pc`
(its default uc_rule=0, uc_priority=2). Ratio = causal-learn CPU / ours. Prints numbers only.
"""
import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VENV = Path(tempfile.gettempdir()) / "cgdcore-bench-causal-learn"
VERSION = "0.1.4.8"

THEIRS = r"""
import json, sys, time
import numpy as np
from causallearn.search.ConstraintBased.PC import pc
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
cg = pc(data, alpha=float(sys.argv[2]), indep_test="gsq", stable=True, show_progress=False)
G = cg.G.graph  # G[i, j] = -1 and G[j, i] = 1: i -> j; both -1: i -- j
d = G.shape[0]
edges = []
for i in range(d):
    for j in range(i + 1, d):
        if G[i, j] == -1 and G[j, i] == 1:
            edges.append([i, j, True])
        elif G[i, j] == 1 and G[j, i] == -1:
            edges.append([j, i, True])
        elif G[i, j] == -1 and G[j, i] == -1:
            edges.append([i, j, False])
print(json.dumps(edges))
"""


def ensure_venv() -> Path:
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"causal-learn=={VERSION}"], check=True)
    return py


def cpu_run(cmd, cwd=ROOT) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def shd_of(edges, d, truth) -> int:
    import numpy as np

    from cgdcore.metrics import shd_cpdag

    A = np.zeros((d, d), dtype=bool)
    for i, j, directed in edges:
        A[i, j] = True
        if not directed:
            A[j, i] = True
    return shd_cpdag(A, truth)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--networks", default="asia,sachs,child,alarm")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--ours", default=str(ROOT), help="checkout whose cgdcore runs as 'ours' (e.g. an older commit)")
    args = ap.parse_args()
    from cgdcore.data import load_dataset

    theirs_py = ensure_venv()
    work = Path(tempfile.mkdtemp(prefix="cgdcore-bench-"))
    script = work / "theirs.py"
    script.write_text(THEIRS)
    print(f"PC, G-test α = {args.alpha}, stable, n = {args.n:,}; CPU s of the whole process, best of {args.reps} "
          f"interleaved runs; causal-learn {VERSION}")
    print(f"{'network':<9} {'ours CPU':>9} {'theirs CPU':>11} {'ratio':>7}   {'SHD ours':>8} {'SHD theirs':>10}")
    for net in args.networks.split(","):
        ds = load_dataset(net, n=args.n, seed=0)
        csv, codes = work / f"{net}.csv", work / f"{net}_codes.csv"
        ds.to_frame().to_csv(csv, index=False)  # ours reads state labels; causal-learn the same rows as codes
        ds.to_frame(codes=True).to_csv(codes, index=False)
        ours_cmd = [sys.executable, "-m", "cgdcore", "discover", "--data", str(csv), "--algo", "pc", "--ci-test", "g2",
                    "--alpha", str(args.alpha), "--json"]
        theirs_cmd = [str(theirs_py), str(script), str(codes), str(args.alpha)]
        ours, theirs = [], []
        for _ in range(args.reps):
            t, out_ours = cpu_run(ours_cmd, cwd=args.ours)
            ours.append(t)
            t, out_theirs = cpu_run(theirs_cmd)
            theirs.append(t)
        js = json.loads(out_ours)
        index = {v: i for i, v in enumerate(js["variables"])}
        ours_edges = [[index[e["source"]], index[e["target"]], e["directed"]] for e in js["edges"]]
        shd_ours = shd_of(ours_edges, ds.d, ds.truth)
        shd_theirs = shd_of(json.loads(out_theirs), ds.d, ds.truth)
        print(f"{net:<9} {min(ours):>9.2f} {min(theirs):>11.2f} {min(theirs) / min(ours):>6.1f}×   "
              f"{shd_ours:>8} {shd_theirs:>10}")


if __name__ == "__main__":
    main()
