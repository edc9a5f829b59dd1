"""Pure functions that turn graphs into figures: plotly, DOT text and offline pyvis HTML.

One classification (:func:`edge_table`) feeds every renderer. plotly and pyvis are imported
inside the functions that need them, so importing this module is cheap.

Edge categories compare the learned CPDAG with the CPDAG of the true DAG (the most that
observational data can identify):
- correct: adjacent in the truth, same mark as the true CPDAG (i -> j or i - j);
- wrongly oriented: adjacent in the truth, different mark (reversed, or directed/undirected);
- false positive: not adjacent in the truth;
- missing: adjacent in the truth, absent from the learned graph (drawn as a ghost edge).
Colours, dashes and widths come from :mod:`cgdcore.palette` (Okabe–Ito plus Tol's wine, checked
under simulated colour-vision deficiencies): each category has its own colour *and* line style, so
the figure reads in greyscale and on a projector. Every edge carries hover text (category, marks in
the learned graph and the truth, and with :func:`edge_evidence` the CI test that kept or removed it).
"""
from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass

import numpy as np

from .graph import skeleton, topological_order
from .metrics import reference_cpdag
from .exports import neutralise

from .palette import EDGE_STYLES, FONT_SIZE, TEXT, theme

#: category -> (colour, dash name, plotly dash, DOT style); kept for callers of the old table, derived
#: from :data:`cgdcore.palette.EDGE_STYLES`, the one place colours and line styles are defined
STYLE = {k: (s.colour, s.dash, s.dash, s.dot_style) for k, s in EDGE_STYLES.items()}
LEGEND = {k: s.label for k, s in EDGE_STYLES.items()}


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


def _fmt_p(v: float) -> str:
    return "nan" if v != v else f"{v:.3g}"


def edge_evidence(result, names) -> dict[tuple[int, int], str]:
    """What the CI tests said about each pair, for hover text: {(i, j) with i < j: one line}.

    ``result`` is a :class:`cgdcore.pc.Result` (``trace`` and ``sepsets``). A removed pair gets the
    test that removed it (separating set, p-value; for private runs the noisy value and threshold
    compared); a kept pair gets how many tests it survived and its largest p-value with that test's
    conditioning set. Pairs no test looked at (score-based runs) are absent.
    """
    names = list(names)
    trace = getattr(result, "trace", ()) or ()
    sepsets = dict(getattr(result, "sepsets", {}) or {})
    kept: dict[tuple[int, int], list] = {}
    removed: dict[tuple[int, int], object] = {}
    for t in trace:
        if t.phase != "skeleton":
            continue
        key = (min(t.x, t.y), max(t.x, t.y))
        if t.independent:
            removed[key] = t
        else:
            n_best = kept.setdefault(key, [0, None])
            n_best[0] += 1
            if n_best[1] is None or t.p_value > n_best[1].p_value:
                n_best[1] = t

    def given(S) -> str:
        return ", ".join(names[v] for v in S) if S else "∅"

    out: dict[tuple[int, int], str] = {}
    for key in set(kept) | set(removed) | set(sepsets):
        i, j = key
        if key in sepsets or key in removed:
            t = removed.get(key)
            S = sepsets.get(key, t.S if t is not None else ())
            txt = f"removed: {names[i]} ⟂ {names[j]} | {given(S)}"
            if t is not None:
                txt += f", p = {_fmt_p(t.p_value)} (order {t.order})"
                if t.noisy == t.noisy:  # a private decision: what was actually compared
                    txt += f"; noisy value {_fmt_p(t.noisy)} vs threshold {_fmt_p(t.threshold)}"
            out[key] = txt
        else:
            n, t = kept[key]
            out[key] = (f"kept after {n} CI test{'s' if n != 1 else ''}; largest p = {_fmt_p(t.p_value)} "
                        f"(given {given(t.S)})")
    return out


def edge_hover(row: EdgeRow, names, evidence: dict | None = None) -> str:
    """Hover text of one edge: "A → B: category (meaning)", the marks, and the CI evidence if known."""
    names = list(names)
    a, b = names[row.source], names[row.target]
    arrow = "→" if row.directed else "—"
    style = EDGE_STYLES[row.kind]
    lines = [f"<b>{_html.escape(a)} {arrow} {_html.escape(b)}: {row.kind}</b>", style.meaning]
    lines += [_html.escape(part.strip()) for part in row.detail.split(";") if part.strip()]
    if evidence:
        ev = evidence.get((min(row.source, row.target), max(row.source, row.target)))
        if ev:
            lines.append(_html.escape(ev))
    return "<br>".join(lines)


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


def _points_along(pts, fractions=(0.2, 0.35, 0.5, 0.65, 0.8)):
    """Points at the given fractions of a polyline's length (hover targets along the whole edge)."""
    seg = [float(np.hypot(x1 - x0, y1 - y0)) for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:])]
    total = sum(seg) or 1.0
    out = []
    for f in fractions:
        left, k = f * total, 0
        while k < len(seg) - 1 and left > seg[k]:
            left -= seg[k]
            k += 1
        u = left / seg[k] if seg[k] else 0.0
        (x0, y0), (x1, y1) = pts[k], pts[k + 1]
        out.append((x0 + u * (x1 - x0), y0 + u * (y1 - y0)))
    return out


def _edge_traces(fig, rows, xy, names, col, show_legend, legend_seen, counts, hovers):
    """One line trace per category (the visible edges) and one marker trace per category carrying the
    hover text: plotly lines do not hover, so invisible markers sit along every edge."""
    import plotly.graph_objects as go

    gap = _layer_gap(xy)
    by_kind: dict[str, list[int]] = {}
    for k, r in enumerate(rows):
        by_kind.setdefault(r.kind, []).append(k)
    order = [k for k in EDGE_STYLES if k in by_kind]
    for kind in order:
        style = EDGE_STYLES[kind]
        xs, ys, hx, hy, ht = [], [], [], [], []
        paths = []
        for k in by_kind[kind]:
            r = rows[k]
            pts = _edge_path(xy[r.source], xy[r.target], gap)
            paths.append((r, pts))
            xs += [p[0] for p in pts] + [None]
            ys += [p[1] for p in pts] + [None]
            for q in _points_along(pts):
                hx.append(q[0])
                hy.append(q[1])
                ht.append(hovers[k])
        label = style.label + (f" — {counts[kind]}" if counts and kind in counts else "")
        first = kind not in legend_seen
        legend_seen.add(kind)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=style.colour, width=style.width,
                                                                     dash=style.dash),
                                 name=label, legendgroup=kind, showlegend=show_legend and first,
                                 hoverinfo="skip", meta="edges"), row=1, col=col)
        fig.add_trace(go.Scatter(x=hx, y=hy, mode="markers", marker=dict(size=16, color=style.colour, opacity=0.01),
                                 hovertext=ht, hoverinfo="text", name=f"{kind} (hover)", legendgroup=kind,
                                 showlegend=False, meta="edge hover",
                                 hoverlabel=dict(bgcolor="white", bordercolor=style.colour, align="left",
                                                 font=dict(color=TEXT, size=FONT_SIZE))),
                      row=1, col=col)
        axis = "" if col == 1 else str(col)
        for r, pts in paths:
            if not r.directed:
                continue
            # only the head: an annotation arrow draws a solid shaft from (ax, ay), which would hide the
            # edge's dash pattern, so the shaft starts just short of the head
            (x0, y0), (x1, y1) = pts[-2], pts[-1]
            seg = float(np.hypot(x1 - x0, y1 - y0)) or 1.0
            u = min(1.0, 0.2 / seg)
            fig.add_annotation(x=x1, y=y1, ax=x1 - u * (x1 - x0), ay=y1 - u * (y1 - y0), xref=f"x{axis}",
                               yref=f"y{axis}", axref=f"x{axis}", ayref=f"y{axis}", showarrow=True, arrowhead=2,
                               arrowsize=1.7, arrowwidth=2.0, arrowcolor=style.colour, standoff=9, text="")


def _node_trace(xy, names, hover=None):
    import plotly.graph_objects as go

    return go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", marker=dict(size=15, color="#FFFFFF",
                      line=dict(color="#333333", width=2)), hovertext=hover or list(names), hoverinfo="text",
                      showlegend=False, name="nodes",
                      hoverlabel=dict(bgcolor="white", bordercolor="#333333", font=dict(color=TEXT, size=FONT_SIZE)))


def _node_hover(graph, names) -> list[str]:
    A = np.asarray(graph, dtype=bool)
    out = []
    for v, name in enumerate(names):
        par = [names[u] for u in np.flatnonzero(A[:, v] & ~A[v, :])]
        ch = [names[u] for u in np.flatnonzero(A[v, :] & ~A[:, v])]
        un = [names[u] for u in np.flatnonzero(A[v, :] & A[:, v])]
        parts = [f"<b>{_html.escape(str(name))}</b>"]
        for lab, vs in (("parents", par), ("children", ch), ("undirected", un)):
            if vs:
                parts.append(f"{lab}: {_html.escape(', '.join(map(str, vs)))}")
        if len(parts) == 1:
            parts.append("no edges")
        out.append("<br>".join(parts))
    return out


def _node_labels(fig, xy, names, col):
    """Node names as annotations to the right of each node, on a white backing so edges never hide them."""
    axis = "" if col == 1 else str(col)
    for (x, y), name in zip(xy, names):
        fig.add_annotation(x=x, y=y, xref=f"x{axis}", yref=f"y{axis}", text=str(name), showarrow=False,
                           xanchor="left", xshift=12, yshift=0, font=dict(size=FONT_SIZE, color=TEXT),
                           bgcolor="rgba(255,255,255,0.85)", borderpad=1)


def graph_figure(learned: np.ndarray, true_dag: np.ndarray | None, names, title_learned="Learned CPDAG",
                 title_truth="True DAG", height: int | None = None, evidence: dict | None = None,
                 edge_kind: str | None = None):
    """Plotly figure: the truth (left) and the learned CPDAG (right) on the same node layout.

    Learned edges are coloured and styled by :data:`LEGEND` category; undirected edges have no
    arrowhead; hovering anywhere along an edge shows its category, its marks in both graphs and
    (``evidence``, from :func:`edge_evidence`) the CI test that kept or removed it. Without truth only
    the learned graph is drawn, its edges in category ``edge_kind`` (default "learned"; "true" when the
    graph drawn *is* a true DAG).
    """
    from plotly.subplots import make_subplots

    names = list(names)
    rows = edge_table(learned, true_dag, names)
    if true_dag is None and edge_kind is not None:
        rows = [EdgeRow(r.source, r.target, r.directed, edge_kind, "") for r in rows]  # nothing to compare
    counts = category_counts(rows)
    base = true_dag if true_dag is not None else learned
    xy = layered_layout(base)
    ncols = 2 if true_dag is not None else 1
    titles = (title_truth, title_learned) if ncols == 2 else (title_learned,)
    fig = make_subplots(rows=1, cols=ncols, subplot_titles=titles, horizontal_spacing=0.04)
    seen: set[str] = set()
    if true_dag is not None:
        kind_of = {(min(r.source, r.target), max(r.source, r.target)): r.kind for r in rows}
        t = np.asarray(true_dag, bool)  # a symmetric pair (a true skeleton) is drawn once, undirected
        truth_rows = [EdgeRow(int(i), int(j), not t[j, i], "true",
                              f"learned graph: {kind_of.get((min(i, j), max(i, j)), 'absent')}")
                      for i, j in zip(*np.nonzero(t)) if not (t[j, i] and j < i)]
        _edge_traces(fig, truth_rows, xy, names, 1, True, seen, {"true": len(truth_rows)},
                     [edge_hover(r, names, evidence) for r in truth_rows])
        fig.add_trace(_node_trace(xy, names, _node_hover(true_dag, names)), row=1, col=1)
        _node_labels(fig, xy, names, 1)
    _edge_traces(fig, rows, xy, names, ncols, True, seen, counts, [edge_hover(r, names, evidence) for r in rows])
    fig.add_trace(_node_trace(xy, names, _node_hover(learned, names)), row=1, col=ncols)
    _node_labels(fig, xy, names, ncols)
    nlay = len(set(xy[:, 1].tolist())) if len(xy) else 1
    h = height or int(min(1100, max(400, 100 * nlay + 140)))
    if len(xy):
        x0, x1 = float(xy[:, 0].min()), float(xy[:, 0].max())
        w = max(x1 - x0, 1.0)
        fig.update_xaxes(range=[x0 - 0.06 * w, x1 + 0.24 * w])  # room for the labels right of the nodes
        y0, y1 = float(xy[:, 1].min()), float(xy[:, 1].max())
        fig.update_yaxes(range=[y0 - 0.12, y1 + 0.25])  # room for the labels above the top layer
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    theme(fig, legend_y=-0.02)
    fig.update_layout(height=h, margin=dict(l=10, r=10, t=44, b=10), plot_bgcolor="white",
                      hovermode="closest", hoverdistance=24)
    return fig


def tests_per_order_figure(per_order, seconds: float | None = None):
    """Bar chart of CI tests per conditioning-set size."""
    import plotly.graph_objects as go

    from .palette import BLUE

    fig = go.Figure(go.Bar(x=list(range(len(per_order))), y=list(per_order), marker_color=BLUE, name="CI tests",
                           hovertemplate="order %{x} (|S| = %{x}): %{y} CI tests<extra></extra>"))
    fig.update_layout(xaxis_title="order (size of the conditioning set)", yaxis_title="CI tests", height=320,
                      margin=dict(l=10, r=10, t=30, b=10), xaxis=dict(dtick=1))
    return theme(fig)


# ------------------------------------------------------------------------------- DOT
def _q(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _plain(hover: str) -> str:
    """Hover HTML as plain text (DOT tooltips, vis-network titles)."""
    return _html.unescape(re.sub(r"<[^>]+>", "", hover.replace("<br>", "\n")))


NL, BSN = "\n", "\\n"  # a line break, and DOT's escape for one inside a quoted string


def to_dot(learned: np.ndarray, true_dag: np.ndarray | None, names, name: str = "learned",
           evidence: dict | None = None) -> str:
    """Graphviz DOT of the learned CPDAG; undirected edges ``dir=none``; colour, style and pen width by
    category (:data:`cgdcore.palette.EDGE_STYLES`); a tooltip per edge and a legend as a comment."""
    names = list(names)
    lines = [f"digraph {_q(name)} {{", "  rankdir=TB;", '  node [shape=ellipse, fontname="Helvetica", fontsize=14];']
    rows = edge_table(learned, true_dag, names)
    for kind in dict.fromkeys(r.kind for r in rows):
        st_ = EDGE_STYLES[kind]
        lines.append(f"  // {kind}: color {st_.colour}, style {st_.dot_style}, penwidth {st_.dot_penwidth:g}")
    for v in names:
        lines.append(f"  {_q(v)};")
    for r in rows:
        st_ = EDGE_STYLES[r.kind]
        tip = _q(_plain(edge_hover(r, names, evidence))).replace(NL, BSN)
        attrs = [f'dir={"forward" if r.directed else "none"}', f'color="{st_.colour}"', f"style={st_.dot_style}",
                 f"penwidth={st_.dot_penwidth:g}", f"tooltip={tip}", f"class={_q(r.kind)}"]
        lines.append(f"  {_q(names[r.source])} -> {_q(names[r.target])} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ pyvis
def pyvis_html(learned: np.ndarray, true_dag: np.ndarray | None, names, height_px: int = 560,
               evidence: dict | None = None) -> str:
    """Interactive (drag, hover) HTML of the learned graph; all JavaScript inlined, no CDN links.

    Edges use the same colours, widths and (as dash patterns) line styles as the plotly figure; a
    legend of the categories present is drawn under the network, and every edge's hover title says
    its category, marks and CI evidence.
    """
    from pyvis.network import Network

    names = list(names)
    xy = layered_layout(true_dag if true_dag is not None else learned)
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line", heading="")
    for k, v in enumerate(names):
        net.add_node(k, label=v, title=v, x=float(xy[k, 0] * 150), y=float(-xy[k, 1] * 115), shape="ellipse",
                     color={"background": "#F2F2F2", "border": "#333333"}, font={"size": 16, "color": TEXT})
    rows = edge_table(learned, true_dag, names)
    for r in rows:
        st_ = EDGE_STYLES[r.kind]
        dashes = list(st_.vis_dashes) if st_.vis_dashes else False
        net.add_edge(r.source, r.target, color=st_.colour, width=st_.width, dashes=dashes,
                     title=_plain(edge_hover(r, names, evidence)), arrows={"to": {"enabled": r.directed}})
    net.set_options('{"physics": {"enabled": false}, "interaction": {"hover": true, "dragNodes": true, '
                    '"tooltipDelay": 150}, "layout": {"randomSeed": 7}, "edges": {"smooth": false, '
                    '"hoverWidth": 1.5, "selectionWidth": 1.5}}')
    out = net.generate_html()
    out = re.sub(r"<link[^>]*cdn\.jsdelivr\.net[^>]*/?>", "", out, flags=re.S)
    out = re.sub(r"<script[^>]*cdn\.jsdelivr\.net[^>]*>\s*</script>", "", out, flags=re.S)
    out = out.replace("<center>\n<h1></h1>\n</center>", "")
    # legend under the canvas (vis-network has none); line samples drawn in SVG with the same dashes
    items = []
    for kind in dict.fromkeys(r.kind for r in rows):
        st_ = EDGE_STYLES[kind]
        dash = " ".join(map(str, st_.vis_dashes)) if st_.vis_dashes else "none"
        items.append(f'<span style="margin-right:18px;white-space:nowrap"><svg width="46" height="12" '
                     f'aria-hidden="true"><line x1="2" y1="6" x2="44" y2="6" stroke="{st_.colour}" '
                     f'stroke-width="{st_.width}" stroke-dasharray="{dash}"/></svg> {escape(st_.label)}</span>')
    legend = ('<div class="edge-legend" style="font:15px Helvetica,Arial,sans-serif;color:#111;padding:6px 4px">'
              + "".join(items) + "</div>")
    out = out.replace("</body>", legend + "\n</body>", 1)
    # vis-network shows a string title as text; keep its line breaks
    out = out.replace("</head>", "<style>div.vis-tooltip{white-space:pre-line;font:14px Helvetica,Arial,sans-serif;"
                                 "max-width:520px}</style>\n</head>", 1)
    return out


def edge_list_csv(rows: list[EdgeRow], names) -> str:
    """CSV text of the learned edges with their category (source, target, directed, category, detail)."""
    out = ["source,target,directed,category,detail"]
    for r in rows:
        if r.kind == "missing":
            continue
        detail = '"' + str(neutralise(r.detail)).replace('"', '""') + '"'
        out.append(f"{_csv(names[r.source])},{_csv(names[r.target])},{str(r.directed).lower()},{r.kind},{detail}")
    return "\n".join(out) + "\n"


def _csv(s: str) -> str:
    """One CSV cell: a name a spreadsheet would run as a formula is neutralised (cgdcore.exports), then quoted."""
    s = str(neutralise(str(s)))
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def escape(s: str) -> str:
    return _html.escape(str(s))
