"""Pure functions that turn graphs into figures: plotly, DOT text and offline pyvis HTML.

One classification (:func:`edge_table`) feeds every renderer. plotly and pyvis are imported
inside the functions that need them, so importing this module is cheap.

Edge categories compare the learned CPDAG with the CPDAG of the true DAG (the most that
observational data can identify):
- correct: adjacent in the truth, same mark as the true CPDAG (i -> j or i - j);
- wrongly oriented: adjacent in the truth, different mark (reversed, or directed/undirected);
- false positive: not adjacent in the truth;
- missing: adjacent in the truth, absent from the learned graph (drawn as a ghost edge).
Colours, dashes and widths come from :mod:`cgdcore.viz.palette` (Okabe–Ito plus Tol's wine, checked
under simulated colour-vision deficiencies): each category has its own colour *and* line style, so
the figure reads in greyscale and on a projector. Every edge carries hover text (category, marks in
the learned graph and the truth, and with :func:`edge_evidence` the CI test that kept or removed it).
"""
from __future__ import annotations

import html as _html
import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from cgdcore.graph import skeleton, topological_order
from cgdcore.metrics import reference_cpdag
from cgdcore.exports import neutralise

from cgdcore.viz.palette import EDGE_STYLES, FONT_FAMILY, FONT_SIZE, TEXT, theme

#: category -> (colour, dash name, plotly dash, DOT style); kept for callers of the old table, derived
#: from :data:`cgdcore.viz.palette.EDGE_STYLES`, the one place colours and line styles are defined
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


def _skeleton_queries(trace):
    """(pair with i < j, query) for each CI query of the skeleton search, in the order asked."""
    for t in trace:
        if t.phase == "skeleton":
            yield (min(t.x, t.y), max(t.x, t.y)), t


def edge_evidence(result, names, *, private: bool) -> dict[tuple[int, int], str]:
    """What the CI tests said about each pair, for hover text: {(i, j) with i < j: one line}.

    ``result`` is a :class:`cgdcore.pc.Result` (``trace`` and ``sepsets``). Pairs no test looked at
    (score-based runs) are absent.

    ``private`` says whether the run is differentially private (its privacy object is accounted). Such a
    run's evidence holds only what it released, for it travels with the graph into its hover and exports:
    a removed pair its separating set (and order), with the noisy value compared for a Laplace or Gaussian
    stage — never for the sparse vector's (:data:`cgdcore.privacy.mechanisms.ANSWER_ONLY_STAGES`), which
    releases only its above/below answer, nor its threshold; a kept pair how many CI tests it was asked.
    No exact p-value: it comes from the exact data and is not covered by ε (the CI-test log shows it,
    labelled so). A non-private run's removed pair gets the test that removed it (separating set,
    p-value), a kept pair how many tests it survived and its largest p-value with that test's
    conditioning set.
    """
    names = list(names)
    trace = getattr(result, "trace", ()) or ()
    sepsets = dict(getattr(result, "sepsets", {}) or {})

    def given(S) -> str:
        return ", ".join(names[v] for v in S) if S else "∅"

    if private:
        from cgdcore.privacy.mechanisms import ANSWER_ONLY_STAGES

        asked: dict[tuple[int, int], int] = {}
        last: dict[tuple[int, int], object] = {}
        for key, t in _skeleton_queries(trace):
            asked[key] = asked.get(key, 0) + 1
            last[key] = t
        out = {}
        for key in set(asked) | set(sepsets):
            i, j = key
            if key in sepsets:  # the private decisions removed it: the released answer
                S = sepsets[key]
                txt = f"removed: {names[i]} ⟂ {names[j]} | {given(S)} (order {len(S)})"
                t = last.get(key)
                if (t is not None and t.independent and tuple(t.S) == tuple(S) and t.noisy == t.noisy
                        and t.stage not in ANSWER_ONLY_STAGES):
                    txt += f"; noisy value {_fmt_p(t.noisy)}, released by its {t.stage} stage"
                out[key] = txt
            else:
                n = asked[key]
                out[key] = f"kept after {n} CI test{'s' if n != 1 else ''}"
        return out

    kept: dict[tuple[int, int], list] = {}
    removed: dict[tuple[int, int], object] = {}
    for key, t in _skeleton_queries(trace):
        if t.independent:
            removed[key] = t
        else:
            n_best = kept.setdefault(key, [0, None])
            n_best[0] += 1
            if n_best[1] is None or t.p_value > n_best[1].p_value:
                n_best[1] = t

    out: dict[tuple[int, int], str] = {}
    for key in set(kept) | set(removed) | set(sepsets):
        i, j = key
        if key in sepsets or key in removed:
            t = removed.get(key)
            S = sepsets.get(key, t.S if t is not None else ())
            txt = f"removed: {names[i]} ⟂ {names[j]} | {given(S)}"
            if t is not None:
                txt += f", p = {_fmt_p(t.p_value)} (order {t.order})"
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
    lines = [f"<b>{plotly_text(a)} {arrow} {plotly_text(b)}: {row.kind}</b>", style.meaning]
    # the detail's parts (learned; true DAG; true CPDAG) are split where they start: a name may hold a ";"
    lines += [plotly_text(part.strip()) for part in re.split(r"; (?=true (?:DAG|CPDAG): )", row.detail)
              if part.strip()]
    if evidence:
        ev = evidence.get((min(row.source, row.target), max(row.source, row.target)))
        if ev:
            lines.append(plotly_text(ev))
    return "<br>".join(lines)


# ------------------------------------------------------------------------------ layout
def _layers(graph: np.ndarray) -> np.ndarray:
    """Layer of every node by longest path from a root (top = 0); undirected edges count as lower -> higher
    index; a graph with a directed cycle is layered on its skeleton oriented by index."""
    A = np.asarray(graph, dtype=bool)
    d = A.shape[0]
    G = (A & ~A.T) | np.triu(A & A.T, 1)
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
    return layer


def _ordered_layers(graph: np.ndarray, sweeps: int = 8) -> tuple[np.ndarray, list[np.ndarray]]:
    """(layer of each node, nodes of each layer left to right) after ``sweeps`` barycentre sweeps.

    The barycentre heuristic of Sugiyama, Tagawa & Toda (1981): alternately downwards and upwards, each
    layer is sorted by the mean position of its neighbours in the adjacent layers (ties by node index,
    nodes without such neighbours keep their place). One matrix product per layer and sweep.
    """
    A = np.asarray(graph, dtype=bool)
    d = A.shape[0]
    layer = _layers(A)
    nlayers = int(layer.max()) + 1 if d else 1
    layers = [np.flatnonzero(layer == k) for k in range(nlayers)]
    pos = np.zeros(d)
    for lay in layers:
        pos[lay] = np.arange(len(lay))
    near = (A | A.T) & (np.abs(layer[:, None] - layer[None, :]) == 1)
    for sweep in range(sweeps):
        for k in (range(1, nlayers) if sweep % 2 == 0 else range(nlayers - 2, -1, -1)):
            lay = layers[k]
            M = near[lay]
            cnt = M.sum(axis=1)
            bary = np.where(cnt > 0, (M @ pos) / np.maximum(cnt, 1), pos[lay])
            lay = lay[np.lexsort((lay, bary))]
            layers[k] = lay
            pos[lay] = np.arange(len(lay))
    return layer, layers


def layered_layout(graph: np.ndarray, sweeps: int = 8) -> np.ndarray:
    """(d, 2) node positions on a unit grid: layers by longest path (top = roots, y = -layer),
    barycentre ordering, each layer centred.

    A small Sugiyama-style layout (Sugiyama, Tagawa & Toda 1981) for DAGs; for graphs with
    undirected edges the undirected part is oriented from lower to higher index first. The figures use
    :func:`graph_layout`, which spaces the same order by the width of each node's label.
    """
    A = np.asarray(graph, dtype=bool)
    d = A.shape[0]
    _, layers = _ordered_layers(A, sweeps)
    width = max(len(lay) for lay in layers) if layers else 1
    xy = np.zeros((d, 2))
    for k, lay in enumerate(layers):
        xy[lay, 0] = (width - len(lay)) / 2.0 + np.arange(len(lay))
        xy[lay, 1] = -float(k)
    return xy


#: advance widths of Helvetica (and its metric twin Arial, Liberation Sans) in 1/1000 em, from Adobe's
#: Helvetica AFM, for printable ASCII; the labels' real font (Source Sans) is narrower, so estimates err wide
_HELVETICA = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, *(556,) * 10, 278, 278, 584,
     584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778,
     722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278,
     556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
     260, 334, 584)))
#: the fallback sans-serif fonts of a Linux browser (DejaVu Sans) run up to ~10 % wider than Helvetica
TEXT_WIDTH_MARGIN = 1.12


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """Estimated width in px of ``text`` set at ``size`` px (Helvetica metrics with a safety margin;
    characters outside ASCII count as a wide letter, ideographs as a full em)."""
    units = sum(_HELVETICA.get(c, 1000 if ord(c) >= 0x2E80 else 722) for c in str(text))
    return units * size / 1000.0 * TEXT_WIDTH_MARGIN


#: geometry of the drawn graph, in px: node marker radius, where its label starts right of the centre,
#: the label box height, the clear space after a label, and the pitch of rows and of layers
NODE_R = 8.0
LABEL_DX = 10.0
LABEL_H = 1.3 * FONT_SIZE
GAP_X = 20.0
ROW_PITCH = 36.0
LAYER_PITCH = 92.0
#: rows wider than this are wrapped onto several rows (px; the Discover page's main column on a
#: 1366-px-wide screen with the sidebar open is about this wide)
MAX_ROW_PX = 1000.0


@dataclass(frozen=True)
class GraphLayout:
    """Node centres and estimated label boxes in px (1 data unit = 1 px; y up, the top row at y = 0).

    ``boxes[v] = (x0, y0, x1, y1)`` is the label of node ``v`` drawn right of its marker;
    ``layer[v]`` its longest-path layer; ``width``/``height`` the extent of nodes and labels."""

    xy: np.ndarray
    boxes: np.ndarray
    layer: np.ndarray
    rows: int
    width: float
    height: float

    @cached_property
    def bands(self) -> dict[float, list[tuple[float, float]]]:
        """Per row of nodes (its y): the x intervals its markers and labels cover, widened by
        :data:`ROUTE_MARGIN`, merged and sorted (what an edge passing through the row must avoid)."""
        out: dict[float, list[tuple[float, float]]] = {}
        for y in np.unique(self.xy[:, 1]):
            on = np.flatnonzero(self.xy[:, 1] == y)
            merged: list[list[float]] = []
            for a, b in sorted(zip(self.xy[on, 0] - NODE_R - ROUTE_MARGIN, self.boxes[on, 2] + ROUTE_MARGIN)):
                if merged and a <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], float(b))
                else:
                    merged.append([float(a), float(b)])
            out[float(y)] = [(a, b) for a, b in merged]
        return out


def graph_layout(graph: np.ndarray, names, max_row_px: float = MAX_ROW_PX, sweeps: int = 8) -> GraphLayout:
    """Label-aware layered layout: the order of :func:`layered_layout`, spaced in px so that no two labels
    (nor a label and the next node) overlap; a layer wider than ``max_row_px`` is wrapped onto several
    rows of about equal width, :data:`ROW_PITCH` apart (the canvas grows downwards instead of sideways).
    """
    names = [str(v) for v in names]
    A = np.asarray(graph, dtype=bool)
    d = A.shape[0]
    layer, layers = _ordered_layers(A, sweeps)
    tw = np.array([text_width(v) for v in names]) if d else np.zeros(0)
    need = NODE_R + LABEL_DX + tw + GAP_X  # from a node's left edge to the next node's left edge
    rows: list[np.ndarray] = []
    row_y: list[float] = []
    y = 0.0
    for k, lay in enumerate(layers):
        if k:
            y -= LAYER_PITCH
        if not len(lay):
            continue
        w = need[lay]
        total = float(w.sum()) - GAP_X
        nsub = max(1, int(np.ceil(total / max_row_px)))
        # contiguous chunks of about total / nsub each: cut where a node's midpoint passes a multiple of it
        mids = np.cumsum(w) - w / 2
        cuts = np.searchsorted(mids, total * np.arange(1, nsub) / nsub)
        for j, chunk in enumerate(np.split(lay, cuts)):
            if not len(chunk):
                continue
            if j:
                y -= ROW_PITCH
            rows.append(chunk)
            row_y.append(y)
    xy = np.zeros((d, 2))
    widths = [float(need[r].sum()) - GAP_X for r in rows]
    width = max(widths) if widths else 0.0
    for r, yy, rw in zip(rows, row_y, widths):
        left = (width - rw) / 2.0 + np.concatenate([[0.0], np.cumsum(need[r])[:-1]])
        xy[r, 0] = left + NODE_R
        xy[r, 1] = yy
    boxes = np.column_stack([xy[:, 0] + LABEL_DX, xy[:, 1] - LABEL_H / 2, xy[:, 0] + LABEL_DX + tw,
                             xy[:, 1] + LABEL_H / 2]) if d else np.zeros((0, 4))
    height = -min(row_y) if row_y else 0.0
    return GraphLayout(xy, boxes, layer, len(rows), width, height)


def label_overlaps(boxes: np.ndarray, pad: float = 0.0) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, whose boxes (x0, y0, x1, y1) overlap by more than ``pad`` px both ways."""
    b = np.asarray(boxes, dtype=float)
    if len(b) < 2:
        return []
    ox = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
    oy = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
    hit = np.triu((ox > pad) & (oy > pad), 1)
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(hit))]


# ------------------------------------------------------------------------------ plotly
def _bends(p0, p1) -> list[list[tuple[float, float]]]:
    """The one-bend paths from p0 to p1, in order of preference: bent at the midpoint to the right of the direction
    of travel by 0.18 of the edge's length (at most :data:`MAX_BEND`), to the left by as much, then right and left
    by MAX_BEND."""
    (x0, y0), (x1, y1) = p0, p1
    dx, dy = x1 - x0, y1 - y0
    length = float(np.hypot(dx, dy)) or 1.0
    off = min(0.18 * length, MAX_BEND)
    # perpendicular to the edge; a positive offset bends to the right of its direction of travel
    return [[(x0, y0), ((x0 + x1) / 2 + o * dy / length, (y0 + y1) / 2 - o * dx / length), (x1, y1)]
            for o in (off, -off, MAX_BEND, -MAX_BEND)]


def _crossed(pts, boxes: np.ndarray) -> np.ndarray:
    """Which of ``boxes`` the polyline ``pts`` passes through: the boxes that meet its bounding box, clipped against
    every segment at once (Liang–Barsky on a segments × boxes grid)."""
    boxes = np.asarray(boxes, dtype=float)
    P = np.asarray(pts, dtype=float)
    (ax, ay), (bx, by) = P.min(axis=0), P.max(axis=0)
    hit = np.zeros(len(boxes), dtype=bool)
    near = np.flatnonzero((boxes[:, 0] <= bx) & (boxes[:, 2] >= ax) & (boxes[:, 1] <= by) & (boxes[:, 3] >= ay))
    b = boxes[near]
    x0, y0, x1, y1 = P[:-1, 0:1], P[:-1, 1:2], P[1:, 0:1], P[1:, 1:2]
    lo = np.zeros((len(P) - 1, len(b)))
    hi = np.ones_like(lo)
    ok = np.ones(lo.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((x0 - x1, x0 - b[:, 0]), (x1 - x0, b[:, 2] - x0), (y0 - y1, y0 - b[:, 1]),
                     (y1 - y0, b[:, 3] - y0)):
            p = np.broadcast_to(p, lo.shape)
            r = q / p
            ok &= (p != 0) | (q >= 0)
            lo = np.where(p < 0, np.maximum(lo, r), lo)
            hi = np.where(p > 0, np.minimum(hi, r), hi)
    hit[near] = (ok & (lo <= hi)).any(axis=0)
    return hit


def _crosses(pts, boxes: np.ndarray) -> bool:
    """Whether the polyline ``pts`` passes through any of ``boxes``."""
    return bool(_crossed(pts, boxes).any())


def _obstacles(lay: "GraphLayout", i: int, j: int) -> np.ndarray:
    """The label boxes and marker squares of every node but ``i`` and ``j`` (what an edge i–j should not cross)."""
    keep = np.ones(len(lay.xy), dtype=bool)
    keep[[i, j]] = False
    xy = lay.xy[keep]
    markers = np.column_stack([xy[:, 0] - NODE_R, xy[:, 1] - NODE_R, xy[:, 0] + NODE_R, xy[:, 1] + NODE_R])
    return np.concatenate([lay.boxes[keep], markers])


#: clear space kept between an edge routed through a row and the markers and labels of that row (px)
ROUTE_MARGIN = 5.0


def _through_rows(lay: "GraphLayout", p0, p1, stubs: bool = False) -> list[tuple[float, float]]:
    """Points of a path from p0 to p1 through the gaps of every row of nodes strictly between them, like the dummy
    nodes of a layered drawing: heading straight for p1 from where it is, where the line would cross a row's band
    (its markers and labels, plus :data:`ROUTE_MARGIN`) behind a node, or leave its gap inside the band, the path
    crosses the band vertically at the nearest clear x. ``stubs``: also leave p0 and reach p1 vertically across
    their own rows' bands (a steep edge otherwise clips the labels beside its ends)."""
    (x0, y0), (x1, y1) = p0, p1
    h = LABEL_H / 2 + ROUTE_MARGIN / 2
    down = y1 < y0
    sign = -1.0 if down else 1.0
    inner = [y for y in lay.bands if min(y0, y1) + 1e-6 < y < max(y0, y1) - 1e-6]
    pts: list[tuple[float, float]] = [(x0, y0 + sign * h)] if stubs else []
    cx, cy = pts[-1] if pts else (x0, y0)  # where the path is: it heads from here straight for its end
    ex, ey = (x1, y1 - sign * h) if stubs else (x1, y1)
    clear = None  # where the line leaves the last band it crossed in the clear
    for y in sorted(inner, reverse=down):
        x = cx + (y - cy) / (ey - cy) * (ex - cx)
        slack = abs((ex - cx) / (ey - cy)) * h  # how far the line moves sideways inside the band
        merged = lay.bands[y]
        if not any(a < x + slack and x - slack < b for a, b in merged):
            out = y + sign * h
            clear = (float(cx + (out - cy) / (ey - cy) * (ex - cx)), float(out))
            continue  # the line crosses this band in the clear
        if clear is not None:  # keep the line as it was through the bands before: turn only after the last one
            pts.append(clear)
            clear = None
        hit = next(((a, b) for a, b in merged if a < x < b), None)
        if hit is not None:
            x = hit[0] if x - hit[0] <= hit[1] - x else hit[1]
        pts += [(float(x), float(y - sign * h)), (float(x), float(y + sign * h))]
        cx, cy = pts[-1]
    if stubs:
        pts.append((x1, y1 - sign * h))
    return pts


def edge_route(lay: "GraphLayout", i: int, j: int) -> list[tuple[float, float]]:
    """The polyline of edge i–j, the one route the figure and the SVG both draw: the first of these that passes
    behind no other node's marker or label — straight (nodes of adjacent layers), through the gaps of the rows in
    between (:func:`_through_rows`), bent once sideways (:func:`_bends`), through the gaps leaving and reaching its
    nodes vertically — else the one crossing the fewest boxes."""
    p0, p1 = (float(lay.xy[i, 0]), float(lay.xy[i, 1])), (float(lay.xy[j, 0]), float(lay.xy[j, 1]))
    avoid = _obstacles(lay, i, j)

    def candidates():
        if abs(int(lay.layer[i]) - int(lay.layer[j])) == 1:
            yield [p0, p1]
        via = _through_rows(lay, p0, p1)
        if via:
            yield [p0, *via, p1]
        yield from _bends(p0, p1)
        yield [p0, *_through_rows(lay, p0, p1, stubs=True), p1]

    tried = []
    for c in candidates():
        crossed = int(_crossed(c, avoid).sum())
        if not crossed:
            return c
        tried.append((crossed, len(tried), c))
    return min(tried)[2]


#: the largest sideways bend of an edge that skips layers (px)
MAX_BEND = 56.0


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


#: arrowheads: plotly's "arrow" marker turned along the edge's last segment (``angleref="previous"``,
#: measured on screen) and moved back from the node centre by ``standoff`` px so its tip touches the node
ARROW_SIZE = 13
ARROW_STANDOFF = NODE_R + 1.5


def _edge_traces(fig, rows, lay: GraphLayout, names, row, col, show_legend, legend_seen, counts, hovers, extent):
    """Per category three traces, whatever the number of edges: the lines (one polyline with ``None``
    breaks), invisible markers along every edge carrying the hover text (plotly lines do not hover), and
    the arrowheads of the directed edges (pairs of points: a size-0 point on the last segment, then the
    head at the target, so each head turns along its own edge)."""
    import plotly.graph_objects as go

    xy = lay.xy
    by_kind: dict[str, list[int]] = {}
    for k, r in enumerate(rows):
        by_kind.setdefault(r.kind, []).append(k)
    for kind in [k for k in EDGE_STYLES if k in by_kind]:
        style = EDGE_STYLES[kind]
        xs, ys, hx, hy, ht, ax, ay, at = [], [], [], [], [], [], [], []
        for k in by_kind[kind]:
            r = rows[k]
            pts = edge_route(lay, r.source, r.target)
            extent += [p[0] for p in pts[1:-1]]
            xs += [p[0] for p in pts] + [None]
            ys += [p[1] for p in pts] + [None]
            for q in _points_along(pts):
                hx.append(q[0])
                hy.append(q[1])
                ht.append(hovers[k])
            if r.directed:
                (x0, y0), (x1, y1) = pts[-2], pts[-1]
                ax += [x0 + 0.8 * (x1 - x0), x1]
                ay += [y0 + 0.8 * (y1 - y0), y1]
                at += [hovers[k], hovers[k]]
        label = style.label + (f" — {counts[kind]}" if counts and kind in counts else "")
        first = kind not in legend_seen
        legend_seen.add(kind)
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=style.colour, width=style.width,
                                                                     dash=style.dash),
                                 name=label, legendgroup=kind, showlegend=show_legend and first,
                                 hoverinfo="skip", meta="edges"), row=row, col=col)
        hoverlabel = dict(bgcolor="white", bordercolor=style.colour, align="left",
                          font=dict(color=TEXT, size=FONT_SIZE))
        fig.add_trace(go.Scatter(x=hx, y=hy, mode="markers", marker=dict(size=16, color=style.colour, opacity=0.01),
                                 hovertext=ht, hoverinfo="text", name=f"{kind} (hover)", legendgroup=kind,
                                 showlegend=False, meta="edge hover", hoverlabel=hoverlabel), row=row, col=col)
        if ax:
            n = len(ax) // 2
            fig.add_trace(go.Scatter(x=ax, y=ay, mode="markers", hovertext=at, hoverinfo="text",
                                     marker=dict(symbol="arrow", angleref="previous", size=[0, ARROW_SIZE] * n,
                                                 standoff=[0, ARROW_STANDOFF] * n, color=style.colour,
                                                 line=dict(width=0)),
                                     name=f"{kind} (arrowheads)", legendgroup=kind, showlegend=False,
                                     meta="edge arrows", hoverlabel=hoverlabel), row=row, col=col)


#: a white halo around node labels (over the backing of :func:`_label_backing`)
LABEL_HALO = "0 0 2px #fff, 0 0 2px #fff, 0 0 3px #fff"


def _label_backing(lay: GraphLayout, names):
    """One filled trace of near-white boxes under the labels, so edges passing behind a label never cross
    its letters (the rendered text sits 10 px right of the centre, ~9.5 px above and 6.5 px below it; its
    width is the Helvetica estimate without the safety margin)."""
    import plotly.graph_objects as go

    xs: list = []
    ys: list = []
    for (x, y), (x0, _, x1, _) in zip(lay.xy, lay.boxes):
        right = x0 + (x1 - x0) / TEXT_WIDTH_MARGIN + 2
        xs += [x0 - 1, right, right, x0 - 1, x0 - 1, None]
        ys += [y - 7.5, y - 7.5, y + 10.5, y + 10.5, y - 7.5, None]
    return go.Scatter(x=xs, y=ys, mode="lines", fill="toself", fillcolor="rgba(255,255,255,0.88)",
                      line=dict(width=0), hoverinfo="skip", showlegend=False, name="label backing",
                      meta="label backing")


def _node_trace(xy, names, hover=None):
    """Nodes and their names (right of each marker) in one trace."""
    import plotly.graph_objects as go

    # plotly reads <b>, <a href>, <br> and entities in text as markup: escaped, a name is drawn as typed
    return go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers+text", text=[plotly_text(v) for v in names],
                      textposition="middle right", cliponaxis=False,
                      textfont=dict(size=FONT_SIZE, color=TEXT, shadow=LABEL_HALO),
                      marker=dict(size=2 * NODE_R - 1, color="#FFFFFF", line=dict(color="#333333", width=2)),
                      hovertext=hover or [plotly_text(v) for v in names], hoverinfo="text", showlegend=False, name="nodes", meta="nodes",
                      hoverlabel=dict(bgcolor="white", bordercolor="#333333", font=dict(color=TEXT, size=FONT_SIZE)))



def _node_hover(graph, names) -> list[str]:
    A = np.asarray(graph, dtype=bool)
    out = []
    for v, name in enumerate(names):
        par = [names[u] for u in np.flatnonzero(A[:, v] & ~A[v, :])]
        ch = [names[u] for u in np.flatnonzero(A[v, :] & ~A[:, v])]
        un = [names[u] for u in np.flatnonzero(A[v, :] & A[:, v])]
        parts = [f"<b>{plotly_text(name)}</b>"]
        for lab, vs in (("parents", par), ("children", ch), ("undirected", un)):
            if vs:
                parts.append(f"{lab}: {plotly_text(', '.join(map(str, vs)))}")
        if len(parts) == 1:
            parts.append("no edges")
        out.append("<br>".join(parts))
    return out


#: the two panels of a comparison sit side by side, each wrapped at this width (px; two fit the main column
#: of a 1500-px-wide window), unless a label too long for it makes a panel wider still (by 10 %): then
#: the truth is drawn above the learned graph, each panel wrapped at :data:`MAX_ROW_PX`
SIDE_BY_SIDE_PX = 480.0
#: px of blank canvas around the nodes and labels, the band for a lower panel's title, the legend's margin
CANVAS_PAD = 14.0
TITLE_BAND = 48.0
LEGEND_MARGIN = 84


def graph_figure(learned: np.ndarray, true_dag: np.ndarray | None, names, title_learned="Learned CPDAG",
                 title_truth="True DAG", height: int | None = None, evidence: dict | None = None,
                 edge_kind: str | None = None):
    """Plotly figure: the truth and the learned CPDAG on the same node layout (side by side for graphs
    that fit, else the truth above), or the learned graph alone.

    Learned edges are coloured and styled by :data:`LEGEND` category; undirected edges have no
    arrowhead; hovering anywhere along an edge shows its category, its marks in both graphs and
    (``evidence``, from :func:`edge_evidence`) the CI test that kept or removed it. Without truth only
    the learned graph is drawn, its edges in category ``edge_kind`` (default "learned"; "true" when the
    graph drawn *is* a true DAG).

    The layout is :func:`graph_layout` in px, and the figure's height is the layout's, so labels keep
    the spacing computed for them (axes: 1 unit = 1 px at the intended width; a wider container only
    spreads the nodes). The number of traces is bounded (three per edge category and panel, plus the
    nodes) whatever the size of the graph, and nothing is drawn as a per-node or per-edge annotation,
    which plotly builds and renders one by one.
    """
    from plotly.subplots import make_subplots

    names = list(names)
    rows = edge_table(learned, true_dag, names)
    if true_dag is None and edge_kind is not None:
        rows = [EdgeRow(r.source, r.target, r.directed, edge_kind, "") for r in rows]  # nothing to compare
    counts = category_counts(rows)
    base = true_dag if true_dag is not None else learned
    two = true_dag is not None
    lay = None if two else graph_layout(base, names)
    stacked = False
    if two:
        narrow = graph_layout(base, names, max_row_px=SIDE_BY_SIDE_PX)
        if narrow.width <= 1.1 * SIDE_BY_SIDE_PX:
            lay = narrow
        else:
            lay, stacked = graph_layout(base, names), True
    panel_h = lay.height + 2 * CANVAS_PAD + LABEL_H
    titles = (title_truth, title_learned) if two else (title_learned,)
    if stacked:
        plot_h = 2 * panel_h + TITLE_BAND
        fig = make_subplots(rows=2, cols=1, subplot_titles=titles, vertical_spacing=TITLE_BAND / plot_h)
        places = [(1, 1), (2, 1)]
    else:
        plot_h = panel_h
        fig = make_subplots(rows=1, cols=len(titles), subplot_titles=titles, horizontal_spacing=0.04)
        places = [(1, 1), (1, 2)] if two else [(1, 1)]
    seen: set[str] = set()
    xs: list[float] = [0.0, lay.width]  # x extent of nodes, labels and bent edges
    if two:
        kind_of = {(min(r.source, r.target), max(r.source, r.target)): r.kind for r in rows}
        t = np.asarray(true_dag, bool)  # a symmetric pair (a true skeleton) is drawn once, undirected
        truth_rows = [EdgeRow(int(i), int(j), not t[j, i], "true",
                              f"learned graph: {kind_of.get((min(i, j), max(i, j)), 'absent')}")
                      for i, j in zip(*np.nonzero(t)) if not (t[j, i] and j < i)]
        _edge_traces(fig, truth_rows, lay, names, *places[0], True, seen, {"true": len(truth_rows)},
                     [edge_hover(r, names, evidence) for r in truth_rows], xs)
        fig.add_trace(_label_backing(lay, names), *places[0])
        fig.add_trace(_node_trace(lay.xy, names, _node_hover(true_dag, names)), *places[0])
    _edge_traces(fig, rows, lay, names, *places[-1], True, seen, counts, [edge_hover(r, names, evidence) for r in rows], xs)
    fig.add_trace(_label_backing(lay, names), *places[-1])
    fig.add_trace(_node_trace(lay.xy, names, _node_hover(learned, names)), *places[-1])
    top = CANVAS_PAD + LABEL_H / 2
    fig.update_xaxes(range=[min(xs) - CANVAS_PAD, max(xs) + CANVAS_PAD], visible=False)
    fig.update_yaxes(range=[-lay.height - top, top], visible=False)
    # 1 unit = 1 px both ways whatever the container: a wider panel centres the graph instead of stretching it
    # (edges would lengthen while labels do not), a narrower one shrinks it evenly
    for k, (r_, c_) in enumerate(places[:len(titles)]):
        fig.update_yaxes(scaleanchor="x" if k == 0 else f"x{k + 1}", scaleratio=1, row=r_, col=c_)
    margin_t = 44
    h = height or int(round(plot_h + margin_t + LEGEND_MARGIN))
    theme(fig, legend_y=-6.0 / plot_h)
    fig.update_layout(height=h, margin=dict(l=10, r=10, t=margin_t, b=LEGEND_MARGIN), plot_bgcolor="white",
                      hovermode="closest", hoverdistance=24, meta={"layout": "stacked" if stacked else "side"})
    return fig



def tests_per_order_figure(per_order, seconds: float | None = None):
    """Bar chart of CI tests per conditioning-set size."""
    import plotly.graph_objects as go

    from cgdcore.viz.palette import BLUE

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
    category (:data:`cgdcore.viz.palette.EDGE_STYLES`); a tooltip per edge and a legend as a comment."""
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

    Nodes are boxes around their names, placed where :func:`graph_layout` puts the labels (so no two
    boxes overlap) with physics off; the view is fitted to the whole graph whenever the canvas gets a
    size (also when it was built in a hidden tab) until the user first drags, zooms or clicks.
    """
    from pyvis.network import Network

    names = list(names)
    lay = graph_layout(true_dag if true_dag is not None else learned, names)
    cx = (lay.boxes[:, 0] + lay.boxes[:, 2]) / 2 if len(names) else np.zeros(0)
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line", heading="")
    for k, v in enumerate(names):
        net.add_node(k, label=v, title=str(v).replace("href", _HREF), x=float(cx[k]), y=float(-lay.xy[k, 1]), shape="box",
                     color={"background": "#F2F2F2", "border": "#333333"},
                     font={"size": FONT_SIZE, "color": TEXT, "face": "Helvetica, Arial, sans-serif"})
    rows = edge_table(learned, true_dag, names)
    for r in rows:
        st_ = EDGE_STYLES[r.kind]
        dashes = list(st_.vis_dashes) if st_.vis_dashes else False
        net.add_edge(r.source, r.target, color=st_.colour, width=st_.width, dashes=dashes,
                     title=_plain(edge_hover(r, names, evidence)), arrows={"to": {"enabled": r.directed}})
    net.set_options('{"physics": {"enabled": false}, "interaction": {"hover": true, "dragNodes": true, '
                    '"tooltipDelay": 150}, "layout": {"randomSeed": 7}, "edges": {"smooth": false, '
                    '"hoverWidth": 1.5, "selectionWidth": 1.5}}')
    net.templateEnv = _pyvis_templates()  # its own Environment would compile the page template again (~30 ms)
    out = net.generate_html().replace(_HREF_JSON, "hr\\u0065f")  # JavaScript reads the escape as "href"
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
    out = out.replace("</body>", legend + "\n" + _FIT_ON_SIZE + "\n</body>", 1)
    # vis-network shows a string title as text; keep its line breaks
    out = out.replace("</head>", "<style>div.vis-tooltip{white-space:pre-line;font:14px Helvetica,Arial,sans-serif;"
                                 "max-width:520px}</style>\n</head>", 1)
    return out


@lru_cache(maxsize=1)
def _pyvis_templates():
    """One Jinja environment for pyvis's page template, so the template is compiled once per process (every
    pyvis Network makes an environment of its own, and with it compiles the template on each ``generate_html``)."""
    import os

    import pyvis.network
    from jinja2 import Environment, FileSystemLoader

    return Environment(loader=FileSystemLoader(os.path.join(os.path.dirname(pyvis.network.__file__), "templates")))


#: pyvis replaces vis-network's tooltip (which shows a title as text) by a popup that sets it as HTML whenever a node
#: title contains "href", so a column named <a href=x onmouseover=...> ran script in the interactive view: titles are
#: passed with "href" spelt otherwise and the JSON spelling is restored in the page's data afterwards
_HREF = "hr\ue000f"
_HREF_JSON = json.dumps(_HREF)[1:-1]

#: fit the whole graph into view whenever the canvas gets a (new) size, until the user takes over
_FIT_ON_SIZE = """<script>
(function () {
  var el = document.getElementById("mynetwork"), touched = false;
  function fit() {
    if (!touched && typeof network !== "undefined" && network && el.clientWidth > 0 && el.clientHeight > 0) {
      network.redraw();
      network.fit({animation: false});
    }
  }
  ["mousedown", "wheel", "touchstart", "keydown"].forEach(function (e) {
    el.addEventListener(e, function () { touched = true; }, {passive: true});
  });
  if (window.ResizeObserver) { new ResizeObserver(fit).observe(el); }
  window.addEventListener("load", fit);
  fit();
})();
</script>"""


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


def plotly_text(s) -> str:
    """``s`` drawn as typed in a plotly text or hover label, which reads <b>, <a href>, <br> and entities as markup
    (&lt; &gt; &amp; are decoded; &quot; is not, so quotes stay as they are: outside a tag they are plain text)."""
    return _html.escape(str(s), quote=False)


def dag_svg(dag: np.ndarray, names, label: str = "Graph") -> str:
    """The graph ``dag`` as one static SVG (no script, no plotly): the layout of :func:`graph_layout`, edges in the
    "true" style with arrowheads on directed edges (the routes of :func:`edge_route`), every name escaped as XML
    text, and each node's parents and children in its tooltip (``<title>``). A page that only shows a graph draws
    it at once, with nothing for the browser to load or lay out but the SVG itself."""
    names = [str(v) for v in names]
    A = np.asarray(dag, dtype=bool)
    lay = graph_layout(A, names)
    style = EDGE_STYLES["true"]
    top = CANVAS_PAD + LABEL_H / 2
    right = float(lay.boxes[:, 2].max()) if len(names) else 0.0
    xs: list[float] = [0.0, right]
    edges = []
    for i, j in zip(*np.nonzero(A)):
        if A[j, i] and j < i:  # an undirected pair is drawn once
            continue
        pts = edge_route(lay, i, j)
        xs += [p[0] for p in pts[1:-1]]
        (x0, y0), (x1, y1) = pts[-2], pts[-1]
        gap = (NODE_R + 2.0) / (float(np.hypot(x1 - x0, y1 - y0)) or 1.0)
        if not A[j, i]:  # stop the line at the node's rim, where its arrowhead points
            pts[-1] = (x1 - gap * (x1 - x0), y1 - gap * (y1 - y0))
        edges.append((pts, not A[j, i]))
    left = min(xs) - CANVAS_PAD
    width = max(xs) + CANVAS_PAD - left
    height = lay.height + 2 * top

    def at(x, y):
        return f"{x - left:.1f},{top - y:.1f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_html.escape(label)}" '
           f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
           # a graph wider than the page's column (Andes: 1,081 px) is scaled down to it, not drawn past its edge
           'style="max-width: 100%; height: auto" '
           f'font-family="{_html.escape(FONT_FAMILY)}" font-size="{FONT_SIZE}">',
           f'<title>{_html.escape(label)}</title>',
           '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" '
           'markerWidth="11" markerHeight="11" orient="auto-start-reverse">'
           f'<path d="M0,0 L10,5 L0,10 z" fill="{style.colour}"/></marker></defs>',
           f'<g fill="none" stroke="{style.colour}" stroke-width="{style.width}">']  # the "true" style: solid
    for pts, directed in edges:
        out.append(f'<polyline points="{" ".join(at(x, y) for x, y in pts)}"'
                   + (' marker-end="url(#head)"' if directed else "") + "/>")
    out.append("</g>")
    for v, name in enumerate(names):
        x, y = lay.xy[v]
        par = [names[u] for u in np.flatnonzero(A[:, v] & ~A[v, :])]
        ch = [names[u] for u in np.flatnonzero(A[v, :] & ~A[:, v])]
        tip = "; ".join(f"{k}: {', '.join(vs)}" for k, vs in (("parents", par), ("children", ch)) if vs)
        tip = f"{name} — {tip or 'no edges'}"
        cx, cy = x - left, top - y
        out.append(f'<g><title>{_html.escape(tip)}</title>'
                   f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{NODE_R - 0.5}" fill="#fff" stroke="#333" stroke-width="2"/>'
                   f'<text x="{cx + LABEL_DX:.1f}" y="{cy:.1f}" dominant-baseline="central" fill="{TEXT}" '
                   f'stroke="#fff" stroke-width="3" paint-order="stroke">{_html.escape(name)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)  # one element a line, the open tag alone on the first: Markdown keeps it a raw HTML block
