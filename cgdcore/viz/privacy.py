"""Plotly figures about privacy: noise against thresholds, ledger totals, budget plans, bounds.

Pure functions of results and parameters (plotly imported lazily); the pages only place them.
Colours, dashes, markers and font sizes come from :mod:`cgdcore.viz.palette` (Okabe–Ito; every curve
differs from its neighbours in dash and marker as well as colour; every point has hover text with
its series, x and y).
"""
from __future__ import annotations

import math
import textwrap

import numpy as np

# ORANGE, PURPLE and SKY are re-exported for older callers
from cgdcore.viz.palette import (BLACK, BLUE, DARK_GREY, GREEN, GREY, ORANGE, PURPLE, SKY, VERMILION,  # noqa: F401
                              line, marker, rgba, theme)

__all__ = ["noise_rows", "noise_threshold_figure", "ledger_totals_figure", "STATUS_STYLE", "releases_per_order_figure", "objective_figure",
           "curate_plan_figure", "lemma1_figure", "privpc_scales_figure", "composition_figure"]


def _layout(fig, height=340, **kw):
    """Shared look: projector-size type (:func:`cgdcore.viz.palette.theme`), legend at the foot (so it never
    collides with the title), below the x-axis title."""
    fig.update_layout(height=height + 80, margin=dict(l=10, r=10, t=56 if "title" in kw else 24, b=10), **kw)
    # after the titles: a title given as a string replaces the whole title object, font included
    return theme(fig)


def _curve(x, y, name: str, i: int, x_label: str, y_label: str, *, dash: str | None = None, fmt: str = ".4~g",
           n_markers: int = 12, **kw):
    """A smooth curve in series style ``i`` (colour, dash, marker) with a few markers so it reads
    in greyscale, and hover "series / x / y" with units."""
    import plotly.graph_objects as go

    ln = line(i)
    if dash is not None:
        ln["dash"] = dash
    return go.Scatter(x=x, y=y, mode="lines+markers", name=name, line=ln,
                      marker=marker(i, maxdisplayed=n_markers),
                      hovertemplate=f"<b>{name}</b><br>{x_label} = %{{x:.3~g}}<br>{y_label} = %{{y:{fmt}}}"
                                    "<extra></extra>",
                      **kw)


def noise_rows(trace, alpha: float, names) -> list[dict]:
    """One row per private skeleton test: true p, noisy value, threshold, decision, flipped?

    "flipped" = the private decision differs from the non-private one (p ≥ α) on the same
    query; stages with no noise (budget stops, EM-PC's exact tests) are skipped.
    """
    rows = []
    for k, t in enumerate(trace):
        if t.phase != "skeleton" or not math.isfinite(t.noisy):
            continue
        truth = t.p_value >= alpha
        rows.append({"test": k, "x": names[t.x], "y": names[t.y], "S": ", ".join(names[s] for s in t.S) or "∅",
                     "order": t.order, "true p": t.p_value, "noisy": t.noisy, "noise": t.noise,
                     "threshold": t.threshold, "stage": t.stage, "ε": t.epsilon,
                     "private decision": "independent" if t.independent else "dependent",
                     "non-private decision": "independent" if truth else "dependent",
                     "flipped": bool(truth != t.independent)})
    return rows


def noise_threshold_figure(rows: list[dict], alpha: float, max_points: int = 4000, scale: str = "p"):
    """Each test's true p-value against α (top, not released), and the noisy value the mechanism compared with its
    threshold (bottom, on the run's decision ``scale``: "p" — p-value plus noise — or "z", the statistic's own
    scale, where a p-value and α have no place); decisions the noise flipped are ringed in both."""
    from plotly.subplots import make_subplots

    rows = rows[:max_points]
    if not rows:
        import plotly.graph_objects as go

        return _layout(go.Figure(), title="no noisy tests to show")
    units = "p-value + noise" if scale == "p" else "statistic + noise (its own scale)"
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.35, 0.65], vertical_spacing=0.12,
                        subplot_titles=("true p-value (computed for this view, not released) and α",
                                        f"noisy value compared and its threshold: {units}"))
    idx = [r["test"] for r in rows]
    from cgdcore.viz.graph import plotly_text  # names may come from an upload: plotly reads markup in hover text

    hover = [f"{plotly_text(r['x'])} ⟂ {plotly_text(r['y'])} | {plotly_text(r['S'])}<br>order {r['order']}, stage {r['stage']}<br>true p {r['true p']:.4g}"
             f"<br>noisy {r['noisy']:.4g} vs threshold {r['threshold']:.4g}<br>private: {r['private decision']}"
             f"<br>non-private: {r['non-private decision']}" for r in rows]
    small = 7 if len(rows) > 300 else 9
    fig.add_scatter(x=idx, y=[r["true p"] for r in rows], mode="markers", name="true p-value (circles)",
                    marker=dict(color=BLUE, size=small, symbol="circle"), hovertext=["true p-value<br>" + h
                    for h in hover], hoverinfo="text", row=1, col=1)
    fig.add_hline(y=alpha, line=dict(color=GREEN, dash="dash", width=2.5), row=1, col=1,
                  annotation_text=f"α = {alpha:g}", annotation_position="top left")
    fig.add_scatter(x=idx, y=[r["noisy"] for r in rows], mode="markers", name="noisy value compared (diamonds)",
                    marker=dict(color=VERMILION, size=small, symbol="diamond"),
                    hovertext=["noisy value compared<br>" + h for h in hover], hoverinfo="text", row=2, col=1)
    fig.add_scatter(x=idx, y=[r["threshold"] for r in rows], mode="lines", name="threshold used (grey steps)",
                    line=dict(color=GREY, width=2.5, shape="hv"),
                    hovertemplate="threshold used by test %{x}: %{y:.4g}<extra></extra>", row=2, col=1)
    flips = [(r, h) for r, h in zip(rows, hover) if r["flipped"]]
    if flips:
        for k, key in enumerate(("true p", "noisy")):
            fig.add_scatter(x=[r["test"] for r, _ in flips], y=[r[key] for r, _ in flips], mode="markers",
                            name=f"decision flipped by noise ({len(flips)}, black rings)", legendgroup="flips",
                            showlegend=k == 1, marker=dict(color="rgba(0,0,0,0)", size=small + 9,
                                                             line=dict(color=BLACK, width=2.5)),
                            hovertext=["<b>decision flipped by the noise</b><br>" + h for _, h in flips],
                            hoverinfo="text", row=k + 1, col=1)
    fig.update_yaxes(range=[-0.03, 1.03], title_text="true p", row=1, col=1)
    # the noisy panel shows the thresholds and the values near them; far-off values are counted, not drawn
    values = sorted(r["noisy"] for r in rows)
    lines = [r["threshold"] for r in rows]
    bottom = min(min(lines), values[int(0.05 * (len(values) - 1))])
    top = max(max(lines), values[int(0.95 * (len(values) - 1))])
    if scale == "p":
        bottom, top = min(bottom, 0.0), max(top, 1.0)
    span = (top - bottom) or 1.0
    bottom, top = bottom - 0.15 * span, top + 0.15 * span
    fig.update_yaxes(range=[bottom, top], title_text="noisy value", row=2, col=1)
    outside = sum(1 for v in values if not bottom <= v <= top)
    if outside:  # say what the axis range leaves out instead of clipping silently (under the panel's title)
        title = next(a for a in fig.layout.annotations if a.text.startswith("noisy value compared"))
        title.text += (f"<br><span style='font-size:14px;color:{DARK_GREY}'>{outside} noisy "
                       f"value{'s' if outside > 1 else ''} beyond the axis: the noisy values range from "
                       f"{values[0]:.3g} to {values[-1]:.3g}</span>")
    fig.update_xaxes(tickformat="d")
    fig.update_xaxes(title_text="test number (in the order PC asked)", row=2, col=1)
    return _layout(fig, height=560)


#: how each status of a total is drawn: colour and hatch (cgdcore.privacy.ledger.STATUS)
STATUS_STYLE = {"guarantee": (VERMILION, ""), "no guarantee": (GREY, "."), "realised": (GREY, "/"),
                "as in paper": (DARK_GREY, "x")}


def ledger_totals_figure(accounting: dict, with_title: bool = True):
    """Horizontal bars: the run's guarantee (solid) and the comparison totals (hatched), each labelled with
    its status from the ledger's one vocabulary ("guarantee", "realised", "as in paper")."""
    import plotly.graph_objects as go

    from cgdcore.privacy.ledger import readable

    names = list(accounting)
    eps = [accounting[k]["epsilon"] for k in names]
    status = [accounting[k].get("status", "guarantee" if accounting[k]["valid"] else "realised") for k in names]
    void = not any(accounting[k]["valid"] for k in names)
    colours = [STATUS_STYLE[s][0] for s in status]
    pattern = [STATUS_STYLE[s][1] for s in status]
    from cgdcore.privacy.ledger import total_label, verdict

    # short names spelled out ("pld (privacy-loss distribution)"); the note in lines of at most 80 characters, so the
    # hover stays inside the figure (on one line it ran off both sides and hid the name's spelling)
    hover = [f"{total_label(k)}: ε = {readable(accounting[k]['epsilon'])}, δ = {readable(accounting[k]['delta'])}<br>"
             + "<br>".join(textwrap.wrap(accounting[k]["note"], 80)) for k in names]
    # the verdict goes under the total's name (one vocabulary: cgdcore.privacy.ledger.verdict); beside the bar only
    # the number, which fits however long the bar is (a long label ran off the figure and was cut)
    # the total named for its verdict (the run's "guarantee") is named once, not "guarantee / guarantee"
    ticks = [f"<b>{k}</b>" if k == verdict(s) else f"{total_label(k)}<br><i>{verdict(s)}</i>"
             for k, s in zip(names, status)]
    text = [readable(e) for e in eps]
    # values outside the bars: white text on a hatched bar is unreadable
    fig = go.Figure(go.Bar(y=names, x=eps, orientation="h", marker=dict(color=colours, pattern_shape=pattern),
                           hovertext=hover, hoverinfo="text", text=text, textposition="outside", cliponaxis=False,
                           name="ε", textfont=dict(size=14, color="#111111")))
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=names, ticktext=ticks, automargin=True)
    pos = [e for e in eps if e > 0 and math.isfinite(e)]
    log = bool(pos) and max(pos) / min(pos) > 30
    if log:
        lo, hi = math.log10(min(pos)), math.log10(max(pos))
        fig.update_xaxes(type="log", dtick=1, range=[lo - 0.3, hi + 0.35 * (hi - lo) + 0.6])
    elif pos:
        fig.update_xaxes(range=[0, max(pos) * 1.6])
    title = ("No total is a guarantee for this run" if void else
             "The guarantee (solid) and comparisons that are not guarantees (hatched)")
    return _layout(fig, height=70 + 52 * len(names), xaxis_title="ε" + (" (log scale)" if log else ""),
                   **({"title": title} if with_title else {}))


def plan_rows(plan: list[dict]) -> list[dict]:
    """The per-order plan of Laplace-PC or Gauss-PC as table rows (Gauss-PC: one release per edge, budgets in ρ)."""
    rows = []
    for p in plan:
        gauss = "rho_per_test" in p
        row = {"order": p["order"], "budget for the order": p["budget"],
               ("edges (one release each)" if gauss else "tests (upper bound)"): p["tests_bound"]}
        if gauss:
            row["ρ per edge"] = p["rho_per_test"]
            row["set selections (at most)"] = p.get("selections_bound", 0)
            row["ρ per selection"] = p.get("rho_per_selection", 0.0)
        else:
            row["ε per test"] = p["epsilon_per_test"]
        row["noise scale"] = p.get("noise_scale")
        row["line"] = p.get("line")
        rows.append(row)
    return rows


def releases_per_order_figure(per_order: list[dict]):
    import plotly.graph_objects as go

    orders = ["—" if r["order"] is None else str(r["order"]) for r in per_order]
    fig = go.Figure(go.Bar(x=orders, y=[r["epsilon"] for r in per_order], marker_color=BLUE, name="Σ ε per order",
                           customdata=[r["releases"] for r in per_order],
                           hovertemplate="order %{x}: %{customdata} releases, Σε = %{y:.4g}<extra></extra>"))
    fig.update_xaxes(type="category")
    return _layout(fig, xaxis_title="PC order", yaxis_title="Σ ε of its releases (basic composition)",
                   title="ε charged per PC order, summed")


def curate_plan_figure(plans: list[dict], spent: dict[int, float]):
    """CURATE: the per-test ε planned for every order at each re-plan, and what was used."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for k, p in enumerate(plans):
        # every plan dotted (the page says so); plans differ in colour and marker
        name = f"plan made before order {p['order']} (ε left {p['remaining']:.3g}, {p['edges']} edges)"
        fig.add_trace(go.Scatter(x=p["orders"], y=p["planned"], mode="lines+markers", name=name,
                                 line=line(k, dash="dot"), marker=marker(k, size=11),
                                 hovertemplate=f"<b>plan made before order {p['order']}</b><br>order %{{x}}: "
                                               "planned ε per test %{y:.4g}<extra></extra>"))
    if spent:
        xs = sorted(spent)
        fig.add_trace(go.Bar(x=xs, y=[spent[o] for o in xs], name="ε per test actually used",
                             marker=dict(color=rgba(DARK_GREY, 0.18), pattern_shape="/",
                                         pattern_fgcolor=DARK_GREY, line=dict(color=DARK_GREY, width=1.5)),
                             hovertemplate="order %{x}: used ε per test %{y:.4g}<extra></extra>"))
    vals = [v for p in plans for v in p["planned"] if v > 0] + [v for v in spent.values() if v > 0]
    if vals and max(vals) / min(vals) > 30:
        fig.update_yaxes(type="log", dtick=1)
    return _layout(fig, height=380, xaxis_title="PC order", yaxis_title="ε per CI test", xaxis=dict(dtick=1),
                   title="CURATE: planned (re-optimised after each order) vs used")


def lemma1_figure(T: float, beta1: float, beta2: float, sensitivity: float, c1: float = 1.0, c2: float = 1.0):
    """Lemma 1 bounds q⁽¹⁾, q⁽²⁾ vs ε, with the exact error probabilities at p = T(1 ± 2β)."""
    import plotly.graph_objects as go

    from cgdcore.central.curate import keep_probability, lemma1_bounds

    eps = np.logspace(-3, 1.5, 200)
    q1, q2 = lemma1_bounds(eps, T, beta1, beta2, sensitivity, c1, c2)
    f_hi, f_lo = T * (1 + 2 * beta2), max(T * (1 - 2 * beta1), 0.0)
    exact1 = keep_probability(f_hi, eps, T, beta1, beta2, sensitivity)
    exact2 = 1 - keep_probability(f_lo, eps, T, beta1, beta2, sensitivity)
    fig = go.Figure()
    # bounds solid, exact probabilities dashed (the page says so); Type I / II differ in colour and marker
    xl, yl = "ε of one CI test", "error probability"
    fig.add_trace(_curve(eps, q1, "Lemma 1 bound q⁽¹⁾ (Type I)", 0, xl, yl, dash="solid"))
    fig.add_trace(_curve(eps, q2, "Lemma 1 bound q⁽²⁾ (Type II)", 1, xl, yl, dash="solid"))
    fig.add_trace(_curve(eps, exact1, f"exact P[keep] at p = {f_hi:.3g}", 0, xl, yl, dash="dash"))
    fig.add_trace(_curve(eps, exact2, f"exact P[delete] at p = {f_lo:.3g}", 1, xl, yl, dash="dash"))
    fig.data[2].marker.symbol = "circle-open"
    fig.data[3].marker.symbol = "square-open"
    fig.update_xaxes(type="log", dtick=1)
    return _layout(fig, height=380, xaxis_title="ε of one CI test", yaxis_title="error probability",
                   title="CURATE Lemma 1: relative error bounds vs exact probabilities")


def objective_figure(T, beta1, beta2, sensitivity, orders: int = 3, c1=1.0, c2=1.0):
    """Objective (2) for ``orders`` orders sharing the same ε, and with all budget on order 0."""
    import plotly.graph_objects as go

    from cgdcore.central.curate import surrogate_error

    eps = np.logspace(-3, 1.5, 200)
    uniform = [surrogate_error(np.full(orders, e), T, beta1, beta2, sensitivity, c1, c2) for e in eps]
    first = [surrogate_error(np.r_[e, np.zeros(orders - 1)], T, beta1, beta2, sensitivity, c1, c2) for e in eps]
    fig = go.Figure()
    fig.add_trace(_curve(eps, uniform, f"same ε for all {orders} orders", 0, "ε per test", "objective (2)"))
    fig.add_trace(_curve(eps, first, "ε on order 0 only", 1, "ε per test", "objective (2)"))
    fig.update_xaxes(type="log", dtick=1)
    return _layout(fig, height=340, xaxis_title="ε per test", yaxis_title="objective (2)",
                   title="CURATE objective (2): Π q⁽¹⁾ + 1 − Π(1 − q⁽²⁾)")


def privpc_scales_figure(n: int, sided: str = "one"):
    """Priv-PC: optimal n/m and the three noise scales vs the per-round ε (seed_privpc.md §2 table), with the
    sensitivity of the proven statistic, Φ(9/√n) − ½ on the full data and Φ(9/√m) − ½ on the sub-sample."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from cgdcore.central.policies import optimal_subsample_ratio
    from cgdcore.citests import KENDALL_PUBLIC_C, p_sensitivity
    from cgdcore.privacy.mechanisms import sieve_epsilon

    eps = np.logspace(-2, 1.5, 60)
    sens = p_sensitivity(KENDALL_PUBLIC_C / math.sqrt(n), sided)
    ratio = np.array([optimal_subsample_ratio(e) for e in eps])
    m = np.floor(n / ratio)
    eps_s = np.array([sieve_epsilon(e, n, mm) for e, mm in zip(eps, m)])
    sub = np.array([p_sensitivity(KENDALL_PUBLIC_C / math.sqrt(mm), sided) for mm in m])
    fig = make_subplots(rows=1, cols=2, subplot_titles=("sub-sampling rate m/n", "noise scale (p-value units)"))
    xl = "per-round ε"
    fig.add_trace(_curve(eps, 1 / ratio, "optimal m/n", 0, xl, "sub-sampling rate m/n"), 1, 1)
    yl = "noise scale (p-value units)"
    fig.add_trace(_curve(eps, 2 * sub / eps_s, "threshold Lap(2Δₘ/ε′)", 1, xl, yl), 1, 2)
    fig.add_trace(_curve(eps, 4 * sub / eps_s, "sieve Lap(4Δₘ/ε′)", 2, xl, yl), 1, 2)
    fig.add_trace(_curve(eps, 2 * sens / eps, "examine Lap(2Δ/ε)", 3, xl, yl), 1, 2)
    fig.update_xaxes(type="log", dtick=1, title_text="per-round ε")
    fig.update_yaxes(type="log", dtick=1, row=1, col=2)
    return _layout(fig, height=380)


def composition_figure(eps0: float, delta: float, k_max: int = 2000):
    """Total ε of k releases of ε0: basic, Dwork–Roth's advanced composition (k fixed in advance) and the
    advanced-composition filter the ledger uses (valid when the releases are chosen adaptively)."""
    import plotly.graph_objects as go

    from cgdcore.privacy.ledger import advanced_composition_homogeneous, advanced_filter

    ks = np.unique(np.round(np.logspace(0, math.log10(k_max), 80)).astype(int))
    basic = ks * eps0
    adv = np.array([advanced_composition_homogeneous(int(k), eps0, delta)[0] for k in ks])
    filt = np.minimum(basic, [advanced_filter(k * eps0 * eps0, delta) for k in ks])
    fig = go.Figure()
    xl, yl = "releases k", "total ε"
    fig.add_trace(_curve(ks, basic, "basic kε₀", 0, xl, yl, fmt=".4~g"))
    fig.add_trace(_curve(ks, adv, "advanced (Dwork–Roth 3.20, k fixed in advance)", 1, xl, yl))
    fig.add_trace(_curve(ks, filt, "the ledger's filter: min(basic, √(2k ln(1/δ))ε₀ + kε₀²/2)", 2, xl, yl))
    fig.data[-1].line.width = 4
    fig.update_xaxes(type="log", dtick=1)
    fig.update_yaxes(type="log", dtick=1)
    return _layout(fig, height=340, xaxis_title="number of releases k", yaxis_title="total ε",
                   title=f"Composition of releases with ε₀ = {eps0:g} (δ = {delta:g})")
