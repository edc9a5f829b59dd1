"""Accessibility of every figure: a colour-blind-safe palette (checked under simulated colour-vision
deficiencies), line styles that carry the categories without colour, projector-size type, legends
that name every category, and hover text on every graph edge and chart point."""
import itertools
import math
import re

import numpy as np
import pytest

from cgdcore.viz import palette as P

LEARNED_PANEL = ("correct", "wrongly oriented", "false positive", "missing")


# ------------------------------------------------------------------ colour science is right
@pytest.mark.parametrize("lab1, lab2, expected", [
    # Sharma, Wu & Dalal (2005), CIEDE2000 test data, pairs 1, 2, 7, 17, 25 and 26
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
])
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    assert P.delta_e2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert P.delta_e2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_lab_of_srgb_primaries_and_white():
    assert P.linear_to_lab(P.linear_rgb("#FFFFFF")) == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    # sRGB red, D65: L* 53.24, a* 80.09, b* 67.20
    assert P.linear_to_lab(P.linear_rgb("#FF0000")) == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def test_simulation_keeps_greys_and_merges_the_confusions_it_should():
    for vision, M in P.MACHADO.items():
        assert [sum(r) for r in M] == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)  # white stays white
        assert P.cvd_distance("#808080", "#808080", vision) == pytest.approx(0.0, abs=1e-6)
        assert P.simulate("#808080", vision) == pytest.approx(P.linear_rgb("#808080"), abs=1e-4)
    red, green = "#D62728", "#2CA02C"  # the classic red/green pair
    assert P.cvd_distance(red, green) > 60
    assert P.cvd_distance(red, green, "deuteranopia") < 0.5 * P.cvd_distance(red, green)
    assert P.cvd_distance(red, green, "protanopia") < 0.5 * P.cvd_distance(red, green)
    # tritanopia confuses blue with green-ish, not red with green
    assert P.cvd_distance(red, green, "tritanopia") > 40


def test_contrast_ratio_matches_wcag_examples():
    assert P.contrast_ratio("#000000") == pytest.approx(21.0)
    assert P.contrast_ratio("#FFFFFF") == pytest.approx(1.0)
    assert P.contrast_ratio("#767676") == pytest.approx(4.54, abs=0.01)


# ------------------------------------------------------------------------------ the palette
def test_edge_categories_are_distinguishable_under_every_colour_vision():
    colours = [P.EDGE_STYLES[k].colour for k in P.COMPARED]
    assert len(set(colours)) == len(colours)
    worst, vision, a, b = P.min_cvd_distance(colours)
    assert worst >= P.MIN_CVD_DELTA_E, f"{a} vs {b} only ΔE00 {worst:.1f} apart under {vision}"
    for vision in P.VISIONS:
        for a, b in itertools.combinations(P.COMPARED, 2):
            d = P.cvd_distance(P.EDGE_STYLES[a].colour, P.EDGE_STYLES[b].colour, vision)
            assert d >= P.MIN_CVD_DELTA_E, (a, b, vision, d)


def test_the_check_rejects_the_former_palette():
    """The palette before the palette change (bluish green beside grey, orange beside vermilion) fails the same check."""
    old = ["#009E73", "#E69F00", "#D55E00", "#7F7F7F"]
    worst, vision, a, b = P.min_cvd_distance(old)
    assert worst < P.MIN_CVD_DELTA_E and vision == "deuteranopia"


def test_edge_colours_have_contrast_against_the_white_background():
    for kind, s in P.EDGE_STYLES.items():
        assert P.contrast_ratio(s.colour) >= 3.0, kind  # WCAG 1.4.11 non-text contrast


def test_every_edge_category_has_its_own_line_style_in_every_renderer():
    styles = [P.EDGE_STYLES[k] for k in LEARNED_PANEL]
    assert len({s.dash for s in styles}) == len(styles)              # plotly
    assert len({s.dot_style for s in styles}) == len(styles)         # Graphviz
    assert len({tuple(s.vis_dashes) if s.vis_dashes else () for s in styles}) == len(styles)  # vis-network
    assert all(s.dash in ("solid", "dot", "dash", "longdash", "dashdot", "longdashdot") for s in styles)
    # the truth panel's arcs share "solid" with correct edges but not colour and width
    t, c = P.EDGE_STYLES["true"], P.EDGE_STYLES["correct"]
    assert (t.colour, t.width) != (c.colour, c.width)
    assert all(s.width >= 2.0 and s.dot_penwidth >= 1.5 for s in P.EDGE_STYLES.values())


def test_chart_series_differ_in_dash_and_marker_not_only_colour():
    for a, b in itertools.combinations(P.SERIES, 2):
        assert a.dash != b.dash and a.symbol != b.symbol and a.colour != b.colour
    worst, vision, a, b = P.min_cvd_distance([s.colour for s in P.SERIES[:6]])
    assert worst >= 10.0, (vision, a, b, worst)


# ---------------------------------------------------------------- figure inspection helpers
def _finite_points(t) -> int:
    xs = getattr(t, "x", None)
    if xs is None:
        return 1  # heatmaps etc.
    return sum(1 for v in xs if v is not None and not (isinstance(v, float) and math.isnan(v)))


def _has_hover(t) -> bool:
    if t.type == "sankey":  # its nodes and its links hover
        return bool(t.node.hovertemplate and t.link.hovertemplate)
    if t.hoverinfo in ("skip", "none"):
        return False
    if t.hovertemplate:
        return True
    ht = t.hovertext if hasattr(t, "hovertext") else None
    if ht is not None and len(ht) and all(str(h).strip() for h in (ht if not isinstance(ht, str) else [ht])):
        return True
    if t.type == "heatmap" and t.text is not None and t.hoverinfo == "text":
        return True
    return False


def check_figure(fig, where: str):
    """Every trace that shows data hovers (edge lines hover through their marker twin; bands and empty
    legend stand-ins are decoration), data lines ≥ 2 px, type ≥ 14 px, no two line series told apart by
    colour alone."""
    groups_with_hover = {t.legendgroup for t in fig.data if _has_hover(t) and getattr(t, "legendgroup", None)}
    for t in fig.data:
        if _finite_points(t) == 0:
            continue
        if getattr(t, "fill", None) in ("toself", "tonexty"):
            continue  # ± sd band
        if getattr(t, "meta", None) == "edges":
            assert t.legendgroup in groups_with_hover, f"{where}: edge lines of {t.name} have no hover twin"
            continue
        assert _has_hover(t), f"{where}: trace {t.name!r} ({t.type}) has no hover text"
        if t.type == "bar" and t.marker.pattern.shape and (t.marker.pattern.fillmode or "replace") == "replace" \
                and t.marker.pattern.bgcolor is None:
            # plotly's "replace" fill draws only the hatch: on a transparent ground in the hatch colour, which
            # defaults to the bar's colour (a hatch of white on the white page is an invisible bar)
            fg = t.marker.pattern.fgcolor
            assert fg is None or P.contrast_ratio(fg) > 1.5, f"{where}: bar {t.name!r} is a {fg} hatch on nothing"
        if t.type == "scatter" and "lines" in (t.mode or "lines") and t.line.width is not None:
            assert t.line.width >= 2.0, f"{where}: {t.name!r} line {t.line.width}px"
    lay = fig.layout
    assert lay.font.size and lay.font.size >= 14, f"{where}: base font {lay.font.size}"
    if lay.legend.y is not None and lay.legend.y < 0 and not (isinstance(lay.meta, dict) and "layout" in lay.meta):
        # under the plot, placed in the plot's frame: plotly leaves it where the first width put it, over the x-axis
        # title once Streamlit redraws the chart at its column's width (the graph figures' plots have a fixed size)
        assert lay.legend.yref == "container", f"{where}: legend under the plot placed in the plot's frame"
    assert lay.legend.font.size is None or lay.legend.font.size >= 14, where
    assert lay.hoverlabel.font.size is None or lay.hoverlabel.font.size >= 14, where
    for a in lay.annotations:
        if a.text:
            assert a.font.size is None or a.font.size >= 14, f"{where}: annotation {a.text!r} at {a.font.size}px"
    for ax in [k for k in lay if re.fullmatch(r"[xy]axis\d*", k)]:
        axis = lay[ax]
        if axis.visible is False:
            continue
        assert axis.tickfont.size is None or axis.tickfont.size >= 14, f"{where}: {ax} ticks"
        if axis.title.text:  # explicit size and a dark colour (Streamlit's theme greys unset axis titles)
            assert axis.title.font.size and axis.title.font.size >= 14, f"{where}: {ax} title {axis.title.font.size}"
            assert P.contrast_ratio(axis.title.font.color or "#FFFFFF") >= 7, f"{where}: {ax} title colour"
    # line series shown in the legend never differ by colour alone
    series = [t for t in fig.data if t.type == "scatter" and t.showlegend is not False and "lines" in (t.mode or "")
              and _finite_points(t) > 1 and t.meta != "edges"]
    for a, b in itertools.combinations(series, 2):
        sa = (a.line.dash or "solid", a.marker.symbol if "markers" in a.mode else None)
        sb = (b.line.dash or "solid", b.marker.symbol if "markers" in b.mode else None)
        assert sa != sb, f"{where}: {a.name!r} and {b.name!r} differ only in colour"


# --------------------------------------------------------------------- the graph figure
@pytest.fixture(scope="module")
def crafted():
    """Truth a→c←b, c→d (all compelled); learned: a→c (correct), d→c (wrongly oriented), a-b (false
    positive), b-c missing."""
    names = ["a", "b", "c", "d"]
    truth = np.zeros((4, 4), bool)
    truth[0, 2] = truth[1, 2] = truth[2, 3] = True
    learned = np.zeros((4, 4), bool)
    learned[0, 2] = True
    learned[3, 2] = True
    learned[0, 1] = learned[1, 0] = True
    return names, truth, learned


def test_crafted_graph_has_all_four_categories(crafted):
    from cgdcore import viz

    names, truth, learned = crafted
    kinds = {r.kind for r in viz.edge_table(learned, truth, names)}
    assert kinds == set(LEARNED_PANEL)


def test_graph_figure_uses_the_palette_names_every_category_and_hovers_every_edge(crafted):
    from cgdcore import viz

    names, truth, learned = crafted
    evidence = {(1, 2): "removed: b ⟂ c | ∅, p = 0.5 (order 0)"}
    fig = viz.graph_figure(learned, truth, names, evidence=evidence)
    check_figure(fig, "graph_figure")
    rows = viz.edge_table(learned, truth, names)
    legend = [t.name for t in fig.data if t.showlegend]
    for kind in {r.kind for r in rows} | {"true"}:
        style = P.EDGE_STYLES[kind]
        assert any(n.startswith(style.label) for n in legend), f"legend lacks {kind}"
        lines = [t for t in fig.data if t.meta == "edges" and t.legendgroup == kind]
        assert lines and all(t.line.color == style.colour and t.line.dash == style.dash and
                             t.line.width == style.width for t in lines)
    hover = {t.legendgroup: list(t.hovertext) for t in fig.data if t.meta == "edge hover"}
    for r in rows:
        a, b = names[r.source], names[r.target]
        arrow = "→" if r.directed else "—"
        texts = [h for h in hover[r.kind] if h.startswith(f"<b>{a} {arrow} {b}: {r.kind}</b>")]
        assert texts, f"no hover text for {a} {arrow} {b}"
    missing = next(h for h in hover["missing"] if "b → c" in h)
    assert "removed: b ⟂ c | ∅, p = 0.5" in missing
    assert any("learned graph: wrongly oriented" in h for h in hover["true"])  # truth panel says what was learned


def test_edge_hover_points_lie_along_their_edges(crafted):
    from cgdcore import viz

    names, truth, learned = crafted
    fig = viz.graph_figure(learned, truth, names)
    nodes = next(t for t in fig.data if t.meta == "nodes")  # the figure's own layout (px)
    xy = np.column_stack([nodes.x, nodes.y])
    col_of = {}
    for t in fig.data:
        if t.meta == "edge hover":
            for x, y, h in zip(t.x, t.y, t.hovertext):
                col_of.setdefault(h, []).append((x, y))
    assert all(len(pts) >= 3 for pts in col_of.values())  # several hover targets per edge, not only the midpoint
    for r in viz.edge_table(learned, truth, names):
        arrow = "→" if r.directed else "—"
        h = next(h for h in col_of if h.startswith(f"<b>{names[r.source]} {arrow} {names[r.target]}: {r.kind}</b>"))
        (x0, y0), (x1, y1) = xy[r.source], xy[r.target]
        for x, y in col_of[h]:
            # inside the edge's bounding box, widened by the bend of edges that skip a layer
            pad = 0.2 * math.hypot(x1 - x0, y1 - y0) + 1e-9
            assert min(x0, x1) - pad <= x <= max(x0, x1) + pad and min(y0, y1) - pad <= y <= max(y0, y1) + pad


def test_graph_without_truth_and_truth_alone(crafted):
    from cgdcore import viz

    names, truth, learned = crafted
    fig = viz.graph_figure(learned, None, names)
    check_figure(fig, "graph_figure without truth")
    assert [t.name for t in fig.data if t.showlegend][0].startswith(P.EDGE_STYLES["learned"].label)
    fig = viz.graph_figure(truth, None, names, title_learned="True DAG", edge_kind="true")
    assert [t.name for t in fig.data if t.showlegend][0].startswith("true DAG arc")
    texts = [h for t in fig.data if t.meta == "edge hover" for h in t.hovertext]
    assert texts and all("learned" not in h for h in texts)


def test_evidence_from_a_real_run_reaches_hover_dot_and_pyvis():
    from cgdcore import viz
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("asia", 5000, 0)
    res = discover(ds, algo="pc")
    names = list(ds.variables)
    ev = viz.edge_evidence(res.result, names, private=False)
    removed = [k for k, v in ev.items() if v.startswith("removed")]
    kept = [k for k, v in ev.items() if v.startswith("kept")]
    assert set(removed) == set(res.result.sepsets)
    skel = np.asarray(res.cpdag, bool) | np.asarray(res.cpdag, bool).T
    assert {k for k in kept} == {(i, j) for i, j in zip(*np.nonzero(np.triu(skel, 1)))}
    assert all(" p = " in ev[k] for k in removed + kept)
    fig = viz.graph_figure(res.cpdag, ds.truth, names, evidence=ev)
    check_figure(fig, "graph_figure asia")
    texts = [h for t in fig.data if t.meta == "edge hover" for h in t.hovertext]
    assert any("kept after" in h for h in texts) and any("removed:" in h for h in texts)
    dot = viz.to_dot(res.cpdag, ds.truth, names, evidence=ev)
    for kind in {r.kind for r in viz.edge_table(res.cpdag, ds.truth, names)} - {"missing"}:
        s = P.EDGE_STYLES[kind]
        assert f'color="{s.colour}", style={s.dot_style}, penwidth={s.dot_penwidth:g}' in dot
    assert "kept after" in dot and "\n" not in dot.split("tooltip=")[1].split('"')[1]
    html = viz.pyvis_html(res.cpdag, ds.truth, names, evidence=ev)
    assert "edge-legend" in html and "kept after" in html
    for kind in {r.kind for r in viz.edge_table(res.cpdag, ds.truth, names)}:
        assert P.EDGE_STYLES[kind].label in html


def _private_run(algo, n):
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("asia", n, 0)
    return ds, discover(ds, algo=algo, epsilon=1.0, seed=1)


@pytest.mark.parametrize("algo,n,noisy", [("svt-pc", 2000, False), ("priv-pc", 2000, True),
                                          ("laplace-pc", 20000, True)])
def test_private_evidence_carries_only_what_the_run_released(algo, n, noisy):
    """A private run's hover, DOT and interactive HTML carried exact p-values and, for the sparse vector, its noisy
    values and thresholds ("removed: smoke ⟂ bronc | ∅, p = 3.81e-61 (order 0); noisy value 7.71 vs threshold
    -9.46"), unlabelled, beside the graph a user shares. Now: the decision, and the noisy value only where a Laplace
    stage released it (Priv-PC's examine, Laplace-PC; laplace-pc stops before its first test at n 2,000, ε 1)."""
    from cgdcore import viz

    ds, res = _private_run(algo, n)
    assert res.privacy is not None and res.privacy.accounted
    names = list(ds.variables)
    ev = viz.edge_evidence(res.result, names, private=True)
    removed = [v for v in ev.values() if v.startswith("removed")]
    kept = [v for v in ev.values() if v.startswith("kept")]
    assert removed and len(removed) == len(res.result.sepsets)
    assert all(re.fullmatch(r"kept after \d+ CI tests?", v) for v in kept), kept
    assert any("noisy value" in v for v in removed) == noisy, removed
    fig = viz.graph_figure(res.cpdag, ds.truth, names, evidence=ev)
    hover = " ".join(h for t in fig.data if t.meta == "edge hover" for h in t.hovertext)
    titles = re.findall(r'"title": "((?:[^"\\]|\\.)*)"', viz.pyvis_html(res.cpdag, ds.truth, names, evidence=ev))
    for text in (" ".join(ev.values()), hover, viz.to_dot(res.cpdag, ds.truth, names, evidence=ev), " ".join(titles)):
        assert "removed:" in text
        assert "p = " not in text and "largest p" not in text and "threshold" not in text, algo
    if not noisy:  # the sparse vector releases its answers alone
        assert "noisy" not in " ".join(ev.values())
    # the same run's evidence without the flag is the teaching view, with the exact p-values
    assert any(" p = " in v for v in viz.edge_evidence(res.result, names, private=False).values())


def test_non_private_evidence_keeps_its_p_values():
    from cgdcore import viz
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset("asia", 2000, 0)
    res = discover(ds, algo="pc")
    ev = viz.edge_evidence(res.result, list(ds.variables), private=False)
    assert all(" p = " in v for v in ev.values() if v.startswith("removed"))
    assert all("; largest p = " in v for v in ev.values() if v.startswith("kept"))
    assert re.search(r"\bp = \d", viz.to_dot(res.cpdag, ds.truth, list(ds.variables), evidence=ev))


# ------------------------------------------------------------------- every other figure
def _z_noise_rows():
    """A z-scale run: noisy statistics far from [0, 1], a threshold near 2 (dependent above it)."""
    rows = []
    for k in range(40):
        z = 30.0 + k if k in (7, 31) else 0.5 * (k % 8)  # two far-off statistics
        noisy, p = z + (-0.8 if k % 3 else 0.9), 2 * (1 - 0.5 * (1 + math.erf(z / math.sqrt(2))))
        rows.append({"test": k, "x": "a", "y": "b", "S": "∅", "order": k // 10, "true p": p, "noisy": noisy,
                     "noise": noisy - z, "threshold": 2.06, "stage": "gauss", "ε": 1.0,
                     "private decision": "dependent" if noisy > 2.06 else "independent",
                     "non-private decision": "independent" if p >= 0.1 else "dependent",
                     "flipped": (noisy <= 2.06) != (p >= 0.1)})
    return rows


def test_noise_view_draws_each_value_on_its_own_scale():
    """The true p-values are drawn against α; the noisy values against their threshold, on the run's scale: on the
    z scale the lower panel says so and carries no α line, and values beyond its axis are counted with their range
    (not called the noise's range)."""
    from cgdcore.viz import privacy as vp

    fig = vp.noise_threshold_figure(_z_noise_rows(), 0.1, scale="z")
    by_name = {t.name: t for t in fig.data}
    assert by_name["true p-value (circles)"].yaxis == "y" and by_name["noisy value compared (diamonds)"].yaxis == "y2"
    assert [sh.yref for sh in fig.layout.shapes] == ["y"]  # the α line, in the p-value panel only
    titles = [a.text for a in fig.layout.annotations]
    beyond = next(t for t in titles if "beyond the axis" in t)
    assert beyond.startswith("noisy value compared and its threshold: statistic + noise (its own scale)<br>")
    assert "noisy values range from" in beyond and "noise reaches" not in beyond
    lo, hi = fig.layout.yaxis2.range
    assert lo <= 2.06 <= hi and hi < 30  # the threshold is in view; the far-off statistics are counted instead
    assert fig.layout.yaxis.range[0] < 0 < 1 < fig.layout.yaxis.range[1]
    p_fig = vp.noise_threshold_figure(_noise_rows(), 0.1, scale="p")
    assert any(t.startswith("noisy value compared and its threshold: p-value + noise")
               for t in (a.text for a in p_fig.layout.annotations))


def _noise_rows():
    rows = []
    for k in range(30):
        p = (k % 10) / 10
        noisy = p + (0.3 if k % 7 == 0 else 0.01)
        rows.append({"test": k, "x": "a", "y": "b", "S": "∅", "order": k // 10, "true p": p, "noisy": noisy,
                     "noise": noisy - p, "threshold": 0.1, "stage": "laplace", "ε": 1.0,
                     "private decision": "independent" if noisy >= 0.1 else "dependent",
                     "non-private decision": "independent" if p >= 0.1 else "dependent",
                     "flipped": (noisy >= 0.1) != (p >= 0.1)})
    return rows


def _figures() -> dict:
    """Every other figure, by name, each built only when its test runs (building them all at collection cost
    each test worker ~1.4 s)."""
    from cgdcore import viz
    from cgdcore.viz import fhe as viz_fhe, local as viz_local, privacy as vp, score as viz_score, teach as viz_teach

    acc = {"basic": {"epsilon": 3.0, "delta": 0.0, "valid": True, "note": "sum"},
           "advanced": {"epsilon": 2.0, "delta": 1e-3, "valid": True, "note": "Dwork–Roth"},
           "paper": {"epsilon": 0.5, "delta": 0.0, "valid": False, "note": "as in paper"}}
    plans = [{"orders": [0, 1, 2], "planned": [0.1, 0.05, 0.02], "order": 0, "remaining": 1.0, "edges": 10},
             {"orders": [1, 2], "planned": [0.08, 0.03], "order": 1, "remaining": 0.6, "edges": 6}]
    utility = [{"mechanism": m, "pipeline": p, "level": lv, "skeleton_f1": 0.5 + 0.1 * s, "shd": 3 + s}
               for m in ("krr-cwise", "krr-comb", "geo-cwise", "geo-comb") for p in ("naive", "de-biased")
               for lv in (0.01, 0.1, 0.5) for s in range(2)]
    utility += [{"mechanism": "no noise", "pipeline": "no noise", "level": 1.0, "skeleton_f1": 0.9, "shd": 1}]
    freq = [{"oracle": o, "epsilon": e, "mse": 0.01 / e, "theory": 0.011 / e} for o in ("grr", "oue", "olh")
            for e in (0.5, 1, 2)]
    names = ["a", "b", "c"]
    W = np.array([[0, 0.8, 0], [0, 0, -0.5], [0, 0, 0]])
    trace = [{"release": k, "loss": 1 / (k + 1), "h": 0.1 / (k + 1), "epsilon_spent": 0.1 * k} for k in range(20)]
    return {
        "noise_threshold": lambda: vp.noise_threshold_figure(_noise_rows(), 0.1),
        "noise_threshold_z": lambda: vp.noise_threshold_figure(_z_noise_rows(), 0.1, scale="z"),
        "ledger_totals": lambda: vp.ledger_totals_figure(acc, "advanced"),
        "releases_per_order": lambda: vp.releases_per_order_figure([{"order": 0, "epsilon": 1.0, "releases": 8},
                                                                  {"order": None, "epsilon": 0.2, "releases": 1}]),
        "curate_plan": lambda: vp.curate_plan_figure(plans, {0: 0.1, 1: 0.07}),
        "lemma1": lambda: vp.lemma1_figure(0.05, 0.1, 0.2, 0.01),
        "objective": lambda: vp.objective_figure(0.05, 0.1, 0.1, 0.01),
        "privpc_scales": lambda: vp.privpc_scales_figure(10_000),
        "composition": lambda: vp.composition_figure(0.1, 1e-3),
        "channel": lambda: viz_local.channel_figure(np.array([[0.8, 0.2], [0.2, 0.8]]), ["x", "y"]),
        "distortion": lambda: viz_local.distortion_figure([{"variable": "a", "privatised": 0.2, "de-biased": 0.05},
                                                        {"variable": "b", "privatised": 0.1, "de-biased": 0.02}]),
        "utility_f1": lambda: viz_local.utility_figure(utility, "skeleton_f1"),
        "utility_shd": lambda: viz_local.utility_figure(utility, "shd"),
        "frequency": lambda: viz_local.frequency_figure(freq),
        "weights": lambda: viz_score.weights_figure(W, W != 0, names, 0.3),
        "convergence": lambda: viz_score.convergence_figure(trace, True),
        "schedules": lambda: viz_score.schedules_figure(1.0, 0.01),
        "iterations": lambda: viz_score.iterations_figure(0.01),
        "agreement": lambda: viz_fhe.agreement_figure([{"order": 0, "agreement": 1.0, "tests": 28},
                                                     {"order": 1, "agreement": 0.97, "tests": 60}],
                                                    {"level 0": 1.0, "level 1": 0.95}),
        "fhe_time": lambda: viz_fhe.time_figure({"keygen": 1.0, "count": 0.2, "encrypt": 2.0, "compute": 5.0,
                                               "decrypt": 0.5}),
        "tests_per_order": lambda: viz.tests_per_order_figure([28, 40, 12]),
        "lesson_ci_test": lambda: viz_teach.ci_test_figure(np.linspace(0, 15, 50), np.exp(-np.linspace(0, 15, 50) / 2),
                                                           9.8, 1),
        "lesson_ci_test_tail": lambda: viz_teach.ci_test_figure(np.linspace(0, 15, 50),
                                                                np.exp(-np.linspace(0, 15, 50) / 2), 9.8, 1, 0.0018),
        "lesson_flip": lambda: viz_teach.flip_figure(np.linspace(0, 0.15, 31), 0.5 * np.exp(-np.abs(
            np.linspace(0, 0.15, 31) - 0.05) * 100), 0.05),
        "lesson_budget": lambda: viz_teach.per_test_budget_figure([0, 1, 2], {"CURATE": [0.08, 0.03, 0.2],
                                                                              "Laplace-PC": [0.09, 0.04, 0.1]},
                                                                  ([0, 1, 2], [0.08, 0.02, 0.01])),
        "lesson_sieve": lambda: viz_teach.sieve_flow_figure(["asked", "kept", "examined", "removed", "false alarm"],
                                                            [0.001, 0.45, 0.45, 0.999, 0.999],
                                                            [0.4, 0.35, 0.9, 0.8, 0.97],
                                                            [(0, 1, 577), (0, 2, 48), (2, 3, 40), (2, 4, 8)]),
        "lesson_f1": lambda: viz_teach.f1_against_epsilon_figure(
            [(name, [{"epsilon": e, "skeleton_f1": f} for e, f in zip((0.3, 1, 10), f1)])
             for name, f1 in (("Gauss-PC, Kendall τ", (0.8, 0.88, 0.94)), ("Gauss-PC, G", (0.5, 0.79, 0.99)))],
            ceilings=[(0.94, "PC without noise, Kendall"), (1.0, "PC without noise, G-test")]),
    }


FIGURES = ("noise_threshold", "noise_threshold_z", "ledger_totals", "releases_per_order", "curate_plan", "lemma1", "objective",
           "privpc_scales", "composition", "channel", "distortion", "utility_f1", "utility_shd", "frequency", "weights",
           "convergence", "schedules", "iterations", "agreement", "fhe_time", "tests_per_order", "lesson_ci_test",
           "lesson_ci_test_tail", "lesson_flip", "lesson_budget", "lesson_sieve", "lesson_f1")


def test_the_figure_list_names_every_figure():
    assert set(_figures()) == set(FIGURES)


@pytest.mark.parametrize("name", FIGURES)
def test_every_chart_hovers_and_is_readable(name):
    check_figure(_figures()[name](), name)


def test_check_figure_catches_a_bad_chart():
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_scatter(x=[1, 2], y=[1, 2], mode="lines", name="a", line={"color": "red", "width": 1})
    P.theme(fig)
    with pytest.raises(AssertionError, match="no hover"):
        check_figure(fig, "bad")
    fig.data[0].hovertemplate = "%{y}"
    with pytest.raises(AssertionError, match="1px"):
        check_figure(fig, "bad")
    fig.data[0].line.width = 3
    fig.add_scatter(x=[1, 2], y=[2, 3], mode="lines", name="b", line={"color": "blue", "width": 3},
                    hovertemplate="%{y}")
    with pytest.raises(AssertionError, match="only in colour"):
        check_figure(fig, "bad")
    fig.data[1].line.dash = "dash"
    check_figure(fig, "fixed")
    fig.update_layout(font_size=11)
    with pytest.raises(AssertionError, match="base font"):
        check_figure(fig, "small")


def test_sweep_curves_and_bars():
    from cgdcore.viz import sweep as vs
    from cgdcore.experiments import SweepSpec, run_sweep, summarise

    spec = SweepSpec(datasets=("asia",), n=(5000,), algorithms=("pc", "priv-pc", "svt-pc"), epsilons=(0.5, 5.0),
                     reps=1, seed=3)
    s = summarise(run_sweep(spec, jobs=1), x="eps_basic")
    fig = vs.curves_figure(s, "skeleton_f1", "total ε, basic composition")
    check_figure(fig, "sweep curves")
    ref = next(t for t in fig.data if t.name == "pc (non-private)")
    assert len(ref.x) == 2 and ref.hovertemplate and "non-private" in ref.hovertemplate
    check_figure(vs.curves_figure(s, "n_ci_tests", "requested ε", log_y=True), "sweep tests")
    check_figure(vs.bars_figure(s[s.epsilon_kind != "none"], "n_ci_tests"), "sweep bars")
    styles = vs.style(["priv-pc", "svt-pc", "em-pc", "curate", "laplace-pc", "noleaks", "curate-score", "x"])
    combos = [(v["dash"], v["symbol"]) for v in styles.values()]
    assert len(set(combos)) == len(combos)
    # labels without a fixed style take styles no other algorithm of the same figure has
    for algos in (["pc", "priv-pc", "curate", "pc+krr-cwise"], ["priv-pc", "pc+krr-comb", "pc+geo-cwise", "a", "b"]):
        combos = [(v["colour"] if "colour" in v else v["color"], v["dash"]) for v in vs.style(algos).values()]
        assert len(set(combos)) == len(combos), algos


def test_a_curves_log_axis_labels_a_few_requested_epsilons_and_else_the_powers_of_ten():
    """With ε = 0.5, 2 and 10 requested, the log axis labelled only 1 and 10: a few x values far enough apart are
    each labelled; many (a logspace) or crowded ones (0.5 and 0.6) keep the powers of ten."""
    from cgdcore.experiments import summarise
    from cgdcore.experiments.results import to_frame
    from cgdcore.viz import sweep as vs

    def summary(xs):
        return summarise(to_frame({"dataset": "asia", "n": 5000, "algorithm": "priv-pc", "epsilon": float(x),
                                   "epsilon_kind": "total", "rep": 0, "seed": 1, "skeleton_f1": 0.5, "arc_f1": 0.5,
                                   "shd": 3, "n_ci_tests": 10, "seconds": 0.1} for x in xs), x="epsilon")

    axis = vs.curves_figure(summary([0.5, 2.0, 10.0]), "skeleton_f1", "requested ε").layout.xaxis
    assert list(axis.tickvals) == [0.5, 2.0, 10.0] and list(axis.ticktext) == ["0.5", "2", "10"]
    for xs in (list(np.logspace(-2, 1.5, 21)), [0.5, 0.6, 10.0]):
        axis = vs.curves_figure(summary(xs), "skeleton_f1", "requested ε").layout.xaxis
        assert axis.tickvals is None and axis.dtick == 1
