"""Pure functions that turn graphs into figures: plotly, DOT text and offline pyvis HTML.

One classification (:func:`edge_table`) feeds every renderer. plotly and pyvis are imported
inside the functions that need them, so importing this module is cheap.

Edge categories compare the learned CPDAG with the CPDAG of the true DAG (the most that
observational data can identify):
- correct: adjacent in the truth, same mark as the true CPDAG (i -> j or i - j);
- wrongly oriented: adjacent in the truth, different mark (reversed, or directed/undirected);
- false positive: not adjacent in the truth;
- missing: adjacent in the truth, absent from the learned graph (drawn as a ghost edge).
Colours are the Okabe–Ito colour-blind-safe palette, and each category also has its own
line style so the figure reads in greyscale and on a projector.
"""
from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass

import numpy as np

from .graph import skeleton, topological_order
from .metrics import reference_cpdag

STYLE = {
    #  category             colour     dash       plotly dash  DOT style
    "correct": ("#009E73", "solid", "solid", "solid"),
    "wrongly oriented": ("#E69F00", "dashdot", "dashdot", "bold"),
    "false positive": ("#D55E00", "dot", "dot", "dotted"),
    "missing": ("#7F7F7F", "dash", "dash", "dashed"),
    "learned": ("#0072B2", "solid", "solid", "solid"),
    "true": ("#404040", "solid", "solid", "solid"),
}
LEGEND = {
    "correct": "correct (edge and mark match the true CPDAG)",
    "wrongly oriented": "wrongly oriented (right pair, wrong mark)",
    "false positive": "false positive (pair not adjacent in truth)",
    "missing": "missing (true edge not found)",
    "learned": "learned edge (no ground truth)",
    "true": "true DAG arc",
}


@dataclass(frozen=True)
class EdgeRow:
    source: int
    target: int
    directed: bool
    kind: str
    detail: str


def _mark(A, i, j) -> str:
    if A[i, j] and A[j, i]:
        return "—"
    if A[i, j]:
        return "→"
    if A[j, i]:
        return "←"
    return "none"


def edge_table(learned: np.ndarray, true_dag: np.ndarray | None, names) -> list[EdgeRow]:
    """Classify every edge of the learned CPDAG (and every missed true edge)."""
    L = np.asarray(learned, dtype=bool)
    d = L.shape[0]
    truth_cp = None if true_dag is None else reference_cpdag(true_dag)
    rows: list[EdgeRow] = []
    for i in range(d):
        for j in range(i + 1, d):
            la = L[i, j] or L[j, i]
            ta = truth_cp is not None and (truth_cp[i, j] or truth_cp[j, i])
            if not la and not ta:
                continue
            if la:
                directed = not (L[i, j] and L[j, i])
                s, t = (i, j) if (L[i, j] or not directed) else (j, i)
                if truth_cp is None:
                    kind = "learned"
                elif not ta:
                    kind = "false positive"
                elif _mark(L, i, j) == _mark(truth_cp, i, j):
                    kind = "correct"
                else:
                    kind = "wrongly oriented"
            else:
                directed = not (truth_cp[i, j] and truth_cp[j, i])
                s, t = (i, j) if (truth_cp[i, j] or not directed) else (j, i)
                kind = "missing"
            learned_txt = f"{names[i]} {_mark(L, i, j)} {names[j]}" if la else "absent"
            detail = f"learned: {learned_txt}"
            if true_dag is not None:
                td = np.asarray(true_dag, bool)
                true_txt = f"{names[i]} {_mark(td, i, j)} {names[j]}" if ta else "not adjacent"
                detail += f"; true DAG: {true_txt}; true CPDAG: {names[i]} {_mark(truth_cp, i, j)} {names[j]}"
            rows.append(EdgeRow(s, t, directed, kind, detail))
    return rows


def category_counts(rows: list[EdgeRow]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r.kind] = out.get(r.kind, 0) + 1
    return out


# ------------------------------------------------------------------------------ layout
def layered_layout(graph: np.ndarray, sweeps: int = 8) -> np.ndarray:
    """(d, 2) node positions: layers by longest path (top = roots), barycentre ordering.

    A small Sugiyama-style layout (Sugiyama, Tagawa & Toda 1981) for DAGs; for graphs with
    undirected edges the undirected part is oriented from lower to higher index first.
    """
    A = np.asarray(graph, dtype=bool)
    d = A.shape[0]
    D = A & ~A.T
    U = np.triu(A & A.T, 1)
    G = D | U
    try:
        order = topological_order(G)
    except ValueError:
        order = list(range(d))
        G = np.triu(A | A.T, 1)
    layer = np.zeros(d, dtype=int)
    for v in order:
        ps = np.flatnonzero(G[:, v])
        if len(ps):
            layer[v] = layer[ps].max() + 1
    # isolated nodes go to the widest-spare layer 0
    nlayers = int(layer.max()) + 1 if d else 1
    layers = [sorted(np.flatnonzero(layer == k).tolist()) for k in range(nlayers)]
    pos_in = np.zeros(d)
    for lay in layers:
        for r, v in enumerate(lay):
            pos_in[v] = r
    S = skeleton(A)
    for sweep in range(sweeps):
        rng_layers = range(1, nlayers) if sweep % 2 == 0 else range(nlayers - 2, -1, -1)
        for k in rng_layers:
            lay = layers[k]
            bary = []
            for v in lay:
                nb = np.flatnonzero(S[v] & (np.abs(layer - k) == 1))
                bary.append(pos_in[nb].mean() if len(nb) else pos_in[v])
            layers[k] = [v for _, v in sorted(zip(bary, lay))]
            for r, v in enumerate(layers[k]):
                pos_in[v] = r
    width = max(len(l) for l in layers) if layers else 1
    xy = np.zeros((d, 2))
    for k, lay in enumerate(layers):
        off = (width - len(lay)) / 2.0
        for r, v in enumerate(lay):
            xy[v] = (off + r, -k * 1.0)
    return xy


# ------------------------------------------------------------------------------ plotly
def _edge_path(p0, p1, gap: float):
    """Points of an edge's polyline: straight between adjacent layers; an edge that skips layers
    bends sideways at its midpoint so it does not run through the nodes in between."""
    (x0, y0), (x1, y1) = p0, p1
    if gap <= 0 or abs(y1 - y0) <= 1.5 * gap:
        return [(x0, y0), (x1, y1)]
    dx, dy = x1 - x0, y1 - y0
    length = float(np.hypot(dx, dy)) or 1.0
    off = 0.18 * length
    # perpendicular to the edge, always bending to the right of its direction of travel
    mx, my = (x0 + x1) / 2 + off * dy / length, (y0 + y1) / 2 - off * dx / length
    return [(x0, y0), (mx, my), (x1, y1)]


def _layer_gap(xy) -> float:
    ys = np.unique(np.round(np.asarray(xy)[:, 1], 9)) if len(xy) else np.array([])
    return float(np.min(np.diff(ys))) if len(ys) > 1 else 0.0


def _edge_traces(fig, rows, xy, names, col, show_legend, legend_seen, counts):
    import plotly.graph_objects as go

    gap = _layer_gap(xy)
    by_kind: dict[str, list[EdgeRow]] = {}
    for r in rows:
        by_kind.setdefault(r.kind, []).append(r)
    for kind, rs in by_kind.items():
        colour, _, dash, _ = STYLE[kind]
        xs, ys, hx, hy, ht = [], [], [], [], []
        paths = []
        for r in rs:
            pts = _edge_path(xy[r.source], xy[r.target], gap)
            paths.append(pts)
            xs += [p[0] for p in pts] + [None]
            ys += [p[1] for p in pts] + [None]
            mid = pts[1] if len(pts) == 3 else ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
            hx.append(mid[0])
            hy.append(mid[1])
            ht.append(r.detail)
        label = LEGEND[kind] + (f" — {counts[kind]}" if counts and kind in counts else "")
        first = kind not in legend_seen
        legend_seen.add(kind)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, width=2.5, dash=dash),
                                 name=label, legendgroup=kind, showlegend=show_legend and first,
                                 hoverinfo="skip"), row=1, col=col)
        fig.add_trace(go.Scatter(x=hx, y=hy, mode="markers", marker=dict(size=10, color=colour, opacity=0.01),
                                 hovertext=ht, hoverinfo="text", legendgroup=kind, showlegend=False),
                      row=1, col=col)
        for r, pts in zip(rs, paths):
            if not r.directed:
                continue
            (x0, y0), (x1, y1) = pts[-2], pts[-1]
            axis = "" if col == 1 else str(col)
            fig.add_annotation(x=x1, y=y1, ax=x0, ay=y0, xref=f"x{axis}", yref=f"y{axis}", axref=f"x{axis}",
                               ayref=f"y{axis}", showarrow=True, arrowhead=3, arrowsize=1.3, arrowwidth=1.6,
                               arrowcolor=colour, standoff=8, startstandoff=0 if len(pts) == 3 else 6, text="")


def _node_trace(xy, names, hover=None):
    import plotly.graph_objects as go

    return go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", marker=dict(size=13, color="#FFFFFF",
                      line=dict(color="#333333", width=1.8)), hovertext=hover or list(names), hoverinfo="text",
                      showlegend=False)


def _node_labels(fig, xy, names, col):
    """Node names as annotations to the right of each node, on a white backing so edges never hide them."""
    axis = "" if col == 1 else str(col)
    for (x, y), name in zip(xy, names):
        fig.add_annotation(x=x, y=y, xref=f"x{axis}", yref=f"y{axis}", text=str(name), showarrow=False,
                           xanchor="left", xshift=9, yshift=9, font=dict(size=12, color="#111111"),
                           bgcolor="rgba(255,255,255,0.85)", borderpad=1)


def graph_figure(learned: np.ndarray, true_dag: np.ndarray | None, names, title_learned="Learned CPDAG",
                 title_truth="True DAG", height: int | None = None):
    """Plotly figure: the truth (left) and the learned CPDAG (right) on the same node layout.

    Learned edges are coloured and styled by :data:`LEGEND` category; undirected edges have no
    arrowhead; hover on an edge's midpoint for details. Without truth only the learned graph is drawn.
    """
    from plotly.subplots import make_subplots

    names = list(names)
    rows = edge_table(learned, true_dag, names)
    counts = category_counts(rows)
    base = true_dag if true_dag is not None else learned
    xy = layered_layout(base)
    ncols = 2 if true_dag is not None else 1
    titles = (title_truth, title_learned) if ncols == 2 else (title_learned,)
    fig = make_subplots(rows=1, cols=ncols, subplot_titles=titles, horizontal_spacing=0.04)
    seen: set[str] = set()
    if true_dag is not None:
        truth_rows = [EdgeRow(int(i), int(j), True, "true", f"true arc {names[i]} → {names[j]}")
                      for i, j in zip(*np.nonzero(np.asarray(true_dag, bool)))]
        _edge_traces(fig, truth_rows, xy, names, 1, True, seen, {"true": len(truth_rows)})
        fig.add_trace(_node_trace(xy, names), row=1, col=1)
        _node_labels(fig, xy, names, 1)
    _edge_traces(fig, rows, xy, names, ncols, True, seen, counts)
    fig.add_trace(_node_trace(xy, names), row=1, col=ncols)
    _node_labels(fig, xy, names, ncols)
    nlay = len(set(xy[:, 1].tolist())) if len(xy) else 1
    h = height or int(min(1100, max(380, 95 * nlay + 120)))
    if len(xy):
        x0, x1 = float(xy[:, 0].min()), float(xy[:, 0].max())
        w = max(x1 - x0, 1.0)
        fig.update_xaxes(range=[x0 - 0.06 * w, x1 + 0.22 * w])  # room for the labels right of the nodes
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=h, margin=dict(l=10, r=10, t=40, b=10), plot_bgcolor="white",
                      legend=dict(orientation="h", yanchor="top", y=-0.02, x=0, font=dict(size=13)),
                      hoverlabel=dict(font_size=13), font=dict(size=13))
    return fig


def tests_per_order_figure(per_order, seconds: float | None = None):
    """Bar chart of CI tests per conditioning-set size."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=list(range(len(per_order))), y=list(per_order), marker_color="#0072B2",
                           hovertemplate="order %{x}: %{y} tests<extra></extra>"))
    fig.update_layout(xaxis_title="order (size of the conditioning set)", yaxis_title="CI tests", height=300,
                      margin=dict(l=10, r=10, t=30, b=10), xaxis=dict(dtick=1))
    return fig


# ------------------------------------------------------------------------------- DOT
def _q(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(learned: np.ndarray, true_dag: np.ndarray | None, names, name: str = "learned") -> str:
    """Graphviz DOT of the learned CPDAG; undirected edges ``dir=none``; colour/style by category."""
    names = list(names)
    lines = [f"digraph {_q(name)} {{", "  rankdir=TB;", '  node [shape=ellipse, fontname="Helvetica"];']
    for v in names:
        lines.append(f"  {_q(v)};")
    for r in edge_table(learned, true_dag, names):
        colour, _, _, style = STYLE[r.kind]
        attrs = [f'dir={"forward" if r.directed else "none"}', f'color="{colour}"', f"style={style}",
                 f"tooltip={_q(r.detail)}", f"class={_q(r.kind)}"]
        lines.append(f"  {_q(names[r.source])} -> {_q(names[r.target])} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ pyvis
def pyvis_html(learned: np.ndarray, true_dag: np.ndarray | None, names, height_px: int = 560) -> str:
    """Interactive (drag, hover) HTML of the learned graph; all JavaScript inlined, no CDN links."""
    from pyvis.network import Network

    names = list(names)
    xy = layered_layout(true_dag if true_dag is not None else learned)
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line", heading="")
    for k, v in enumerate(names):
        net.add_node(k, label=v, title=v, x=float(xy[k, 0] * 140), y=float(-xy[k, 1] * 110), shape="ellipse",
                     color={"background": "#F2F2F2", "border": "#333333"})
    for r in edge_table(learned, true_dag, names):
        colour = STYLE[r.kind][0]
        net.add_edge(r.source, r.target, color=colour, width=3 if r.kind != "missing" else 2,
                     dashes=r.kind in ("missing", "false positive", "wrongly oriented"), title=f"{r.kind}: {r.detail}",
                     arrows={"to": {"enabled": r.directed}})
    net.set_options('{"physics": {"enabled": false}, "interaction": {"hover": true, "dragNodes": true},'
                    ' "layout": {"randomSeed": 7}, "edges": {"smooth": false}}')
    out = net.generate_html()
    out = re.sub(r"<link[^>]*cdn\.jsdelivr\.net[^>]*/?>", "", out, flags=re.S)
    out = re.sub(r"<script[^>]*cdn\.jsdelivr\.net[^>]*>\s*</script>", "", out, flags=re.S)
    out = out.replace("<center>\n<h1></h1>\n</center>", "")
    return out


def edge_list_csv(rows: list[EdgeRow], names) -> str:
    """CSV text of the learned edges with their category (source, target, directed, category, detail)."""
    out = ["source,target,directed,category,detail"]
    for r in rows:
        if r.kind == "missing":
            continue
        detail = '"' + r.detail.replace('"', '""') + '"'
        out.append(f"{_csv(names[r.source])},{_csv(names[r.target])},{str(r.directed).lower()},{r.kind},{detail}")
    return "\n".join(out) + "\n"


def _csv(s: str) -> str:
    s = str(s)
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s


def escape(s: str) -> str:
    return _html.escape(str(s))
