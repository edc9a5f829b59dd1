"""Graph drawing speed for every shipped network: layout, plotly figure, serialisation, pyvis HTML.

Usage: python bench/graph.py [--networks alarm,andes] [--repeat 1] [--module cgdcore.viz]
Target (2-core machine): every shipped network (up to Andes, 223 nodes) drawn in ≤ 1 s, i.e. the
Discover page's figure (truth and learned graph) built *and* serialised as Streamlit does within a second.

The "learned" graph is the true CPDAG with every 7th edge dropped, every 11th reversed and a few
false positives added (deterministic), so all four comparison categories are drawn, as on Discover.
Columns: layout = :func:`cgdcore.viz.layered_layout`; discover = build + ``to_json`` of the two-panel
figure; datasets = the same for the one-panel truth figure (Datasets page); pyvis = the interactive
HTML. Serialisation is Streamlit's own (``st.plotly_chart``: ``fig.to_dict()`` then
``plotly.io.to_json(..., validate=False)``). ``--module`` times another copy of the module (e.g. the
code before a change, ``git show REV:cgdcore/viz.py > cgdcore/_viz_before.py``). Each is wall seconds
(CPU seconds in brackets), best of ``--repeat``. Prints numbers only; the browser's own drawing time
is not included (the old per-label and per-arrow annotations cost it too).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import importlib  # noqa: E402

import plotly.io as pio  # noqa: E402

from cgdcore.data.registry import NETWORKS, load_network  # noqa: E402
from cgdcore.metrics import reference_cpdag  # noqa: E402


def fake_learned(truth: np.ndarray) -> np.ndarray:
    """The true CPDAG with deterministic damage: drops, reversals and false positives."""
    L = reference_cpdag(truth).astype(bool).copy()
    d = L.shape[0]
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d) if L[i, j] or L[j, i]]
    for k, (i, j) in enumerate(pairs):
        if k % 7 == 3:
            L[i, j] = L[j, i] = False
        elif k % 11 == 5 and L[i, j] != L[j, i]:
            L[i, j], L[j, i] = L[j, i], L[i, j]
    for k in range(max(1, d // 10)):
        i, j = (k * 7) % d, (k * 13 + 5) % d
        if i != j and not (L[i, j] or L[j, i]):
            L[i, j] = True
    return L


def timed(fn, repeat):
    best = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        w, c = time.perf_counter() - w0, time.process_time() - c0
        if best is None or w < best[0]:
            best = (w, c)
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--module", default="cgdcore.viz")
    args = ap.parse_args()
    viz = importlib.import_module(args.module)

    def streamlit_json(fig):
        return pio.to_json(fig.to_dict(), validate=False)

    import plotly.graph_objects  # noqa: F401  (import cost is not the figure's)
    streamlit_json(viz.graph_figure(np.zeros((2, 2), bool), None, ["a", "b"]))
    print(f"Graph drawing per network ({args.module}); wall s (CPU s); target: discover ≤ 1 s for every network")
    print(f"{'network':<11} {'nodes':>5} {'arcs':>5} {'layout':>14} {'discover':>14} {'datasets':>14} "
          f"{'pyvis':>14} {'traces':>6} {'annot':>6} {'json MB':>7}")
    worst = 0.0
    for net in args.networks.split(","):
        bn = load_network(net)
        truth = np.asarray(bn.adjacency(), bool)
        names = list(bn.variables)
        learned = fake_learned(truth)
        (lw, lc), _ = timed(lambda: viz.layered_layout(truth), args.repeat)
        (dw, dc), js = timed(lambda: streamlit_json(viz.graph_figure(learned, truth, names)), args.repeat)
        (tw, tc), _ = timed(lambda: streamlit_json(viz.graph_figure(
            truth, None, names, title_learned="True DAG", edge_kind="true")), args.repeat)
        (pw, pc), _ = timed(lambda: viz.pyvis_html(learned, truth, names), args.repeat)
        fig = viz.graph_figure(learned, truth, names)
        worst = max(worst, dw)
        print(f"{net:<11} {len(names):>5} {int(truth.sum()):>5} {lw:>6.3f} ({lc:>5.3f}) {dw:>6.3f} ({dc:>5.3f}) "
              f"{tw:>6.3f} ({tc:>5.3f}) {pw:>6.3f} ({pc:>5.3f}) {len(fig.data):>6} "
              f"{len(fig.layout.annotations):>6} {len(js) / 1e6:>7.2f}")
    print(f"slowest discover figure: {worst:.3f} s (target ≤ 1 s: {'met' if worst <= 1 else 'NOT met'})")


if __name__ == "__main__":
    main()
