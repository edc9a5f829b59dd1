"""Plotly figures about privacy: noise against thresholds, ledger totals, budget plans, bounds.

Pure functions of results and parameters (plotly imported lazily); the pages only place them.
Colours: Okabe–Ito, as in :mod:`cgdcore.viz`.
"""
from __future__ import annotations

import math

import numpy as np

BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY, GREY = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                                      "#56B4E9", "#999999")

__all__ = ["noise_rows", "noise_threshold_figure", "ledger_totals_figure", "releases_per_order_figure", "objective_figure",
           "curate_plan_figure", "lemma1_figure", "privpc_scales_figure", "composition_figure"]


def _layout(fig, height=340, **kw):
    """Shared look: legend under the plot (so it never collides with the title)."""
    fig.update_layout(height=height + 60, margin=dict(l=10, r=10, t=50 if "title" in kw else 20, b=10),
                      legend=dict(orientation="h", yanchor="top", y=-0.22, x=0), **kw)
    return fig


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


def noise_threshold_figure(rows: list[dict], alpha: float, max_points: int = 4000):
    """Each test's true p-value, the noisy value that was compared and its threshold; flips ringed."""
    import plotly.graph_objects as go

    rows = rows[:max_points]
    fig = go.Figure()
    if not rows:
        return _layout(fig, title="no noisy tests to show")
    idx = [r["test"] for r in rows]
    hover = [f"{r['x']} ⟂ {r['y']} | {r['S']}<br>order {r['order']}, stage {r['stage']}<br>true p {r['true p']:.4g}"
             f"<br>noisy {r['noisy']:.4g} vs threshold {r['threshold']:.4g}<br>private: {r['private decision']}"
             f"<br>non-private: {r['non-private decision']}" for r in rows]
    fig.add_trace(go.Scatter(x=idx, y=[r["true p"] for r in rows], mode="markers", name="true p-value",
                             marker=dict(color=BLUE, size=5), hovertext=hover, hoverinfo="text"))
    fig.add_trace(go.Scatter(x=idx, y=[r["noisy"] for r in rows], mode="markers", name="noisy value compared",
                             marker=dict(color=ORANGE, size=5, symbol="diamond"), hovertext=hover, hoverinfo="text"))
    fig.add_trace(go.Scatter(x=idx, y=[r["threshold"] for r in rows], mode="lines", name="threshold used",
                             line=dict(color=GREY, width=1, shape="hv"), hoverinfo="skip"))
    flips = [r for r in rows if r["flipped"]]
    if flips:
        fig.add_trace(go.Scatter(x=[r["test"] for r in flips], y=[r["noisy"] for r in flips], mode="markers",
                                 name=f"decision flipped by noise ({len(flips)})",
                                 marker=dict(color="rgba(0,0,0,0)", size=13, line=dict(color=VERMILION, width=2)),
                                 hoverinfo="skip"))
    fig.add_hline(y=alpha, line=dict(color=GREEN, dash="dash", width=1),
                  annotation_text=f"α = {alpha:g}", annotation_position="top left")
    lo = min(min(r["noisy"] for r in rows), 0.0)
    hi = max(max(r["noisy"] for r in rows), 1.0)
    span = hi - lo
    fig.update_yaxes(range=[max(lo, -1.5) - 0.02 * span, min(hi, 2.5) + 0.02 * span])
    fig.update_xaxes(tickformat="d")
    return _layout(fig, height=420, xaxis_title="test number (in the order PC asked)",
                   yaxis_title="p-value scale")


def ledger_totals_figure(accounting: dict, headline: str, with_title: bool = True):
    """Horizontal bars: total ε under each composition rule (valid rules solid, others hatched)."""
    import plotly.graph_objects as go

    names = list(accounting)
    eps = [accounting[k]["epsilon"] for k in names]
    colours = [VERMILION if k == headline else (BLUE if accounting[k]["valid"] else GREY) for k in names]
    pattern = ["" if accounting[k]["valid"] else "/" for k in names]
    hover = [f"{k}: ε = {accounting[k]['epsilon']:.4g}, δ = {accounting[k]['delta']:.3g}<br>{accounting[k]['note']}"
             for k in names]
    fig = go.Figure(go.Bar(y=names, x=eps, orientation="h", marker=dict(color=colours, pattern_shape=pattern),
                           hovertext=hover, hoverinfo="text", text=[f"{e:.3g}" for e in eps], textposition="auto"))
    fig.update_yaxes(autorange="reversed")
    pos = [e for e in eps if e > 0]
    if pos and max(pos) / min(pos) > 30:
        fig.update_xaxes(type="log", dtick=1)
    return _layout(fig, height=70 + 38 * len(names), xaxis_title="total ε of the run" + (" (log scale)" if pos and
                   max(pos) / min(pos) > 30 else ""),
                   **({"title": "Total ε by rule — dark orange: headline; hatched: comparison only"}
                      if with_title else {}))


def releases_per_order_figure(per_order: list[dict]):
    import plotly.graph_objects as go

    orders = ["—" if r["order"] is None else str(r["order"]) for r in per_order]
    fig = go.Figure(go.Bar(x=orders, y=[r["epsilon"] for r in per_order], marker_color=BLUE,
                           customdata=[r["releases"] for r in per_order],
                           hovertemplate="order %{x}: %{customdata} releases, Σε = %{y:.4g}<extra></extra>"))
    fig.update_xaxes(type="category")
    return _layout(fig, xaxis_title="PC order", yaxis_title="Σ ε of its releases (basic)",
                   title="Privacy spent per PC order")


def curate_plan_figure(plans: list[dict], spent: dict[int, float]):
    """CURATE: the per-test ε planned for every order at each re-plan, and what was used."""
    import plotly.graph_objects as go

    fig = go.Figure()
    palette = [SKY, BLUE, GREEN, ORANGE, PURPLE, VERMILION, GREY]
    for k, p in enumerate(plans):
        fig.add_trace(go.Scatter(x=p["orders"], y=p["planned"], mode="lines+markers",
                                 name=f"plan made before order {p['order']} (ε left {p['remaining']:.3g}, "
                                      f"{p['edges']} edges)",
                                 line=dict(color=palette[k % len(palette)], dash="dot"),
                                 hovertemplate="order %{x}: planned ε per test %{y:.4g}<extra></extra>"))
    if spent:
        xs = sorted(spent)
        fig.add_trace(go.Bar(x=xs, y=[spent[o] for o in xs], name="ε per test actually used",
                             marker_color="rgba(213,94,0,0.45)",
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
    fig.add_trace(go.Scatter(x=eps, y=q1, name="Lemma 1 bound q⁽¹⁾ (Type I)", line=dict(color=BLUE)))
    fig.add_trace(go.Scatter(x=eps, y=q2, name="Lemma 1 bound q⁽²⁾ (Type II)", line=dict(color=ORANGE)))
    fig.add_trace(go.Scatter(x=eps, y=exact1, name=f"exact P[keep] at p = {f_hi:.3g}",
                             line=dict(color=BLUE, dash="dash")))
    fig.add_trace(go.Scatter(x=eps, y=exact2, name=f"exact P[delete] at p = {f_lo:.3g}",
                             line=dict(color=ORANGE, dash="dash")))
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
    fig.add_trace(go.Scatter(x=eps, y=uniform, name=f"same ε for all {orders} orders", line=dict(color=GREEN)))
    fig.add_trace(go.Scatter(x=eps, y=first, name="ε on order 0 only", line=dict(color=PURPLE, dash="dash")))
    fig.update_xaxes(type="log", dtick=1)
    return _layout(fig, height=340, xaxis_title="ε per test", yaxis_title="objective (2)",
                   title="CURATE objective (2): Π q⁽¹⁾ + 1 − Π(1 − q⁽²⁾)")


def privpc_scales_figure(n: int, c1: float = 6.0, sided: str = "one"):
    """Priv-PC: optimal n/m and the three noise scales vs the per-round ε (seed_privpc.md §2 table)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from cgdcore.central.mechanisms import sieve_epsilon
    from cgdcore.central.policies import optimal_subsample_ratio
    from cgdcore.citests import kendall_p_sensitivity

    eps = np.logspace(-2, 1.5, 60)
    sens = kendall_p_sensitivity(n, c1, sided)
    ratio = np.array([optimal_subsample_ratio(e) for e in eps])
    m = np.floor(n / ratio)
    eps_s = np.array([sieve_epsilon(e, n, mm) for e, mm in zip(eps, m)])
    sub = sens * np.sqrt(n / m)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("sub-sampling rate m/n", "noise scale (p-value units)"))
    fig.add_trace(go.Scatter(x=eps, y=1 / ratio, name="optimal m/n", line=dict(color=BLUE)), 1, 1)
    fig.add_trace(go.Scatter(x=eps, y=2 * sub / eps_s, name="threshold Lap(2Δₘ/ε′)", line=dict(color=GREEN)), 1, 2)
    fig.add_trace(go.Scatter(x=eps, y=4 * sub / eps_s, name="sieve Lap(4Δₘ/ε′)", line=dict(color=ORANGE)), 1, 2)
    fig.add_trace(go.Scatter(x=eps, y=2 * sens / eps, name="examine Lap(2Δ/ε)", line=dict(color=VERMILION)), 1, 2)
    fig.update_xaxes(type="log", dtick=1, title_text="per-round ε")
    fig.update_yaxes(type="log", dtick=1, row=1, col=2)
    return _layout(fig, height=360)


def composition_figure(eps0: float, delta: float, k_max: int = 2000):
    """Total ε of k releases of ε0: basic, advanced (Dwork–Roth 3.20) and their minimum."""
    import plotly.graph_objects as go

    from cgdcore.accounting import advanced_composition_homogeneous

    ks = np.unique(np.round(np.logspace(0, math.log10(k_max), 80)).astype(int))
    basic = ks * eps0
    adv = np.array([advanced_composition_homogeneous(int(k), eps0, delta)[0] for k in ks])
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ks, y=basic, name="basic kε₀", line=dict(color=BLUE)))
    fig.add_trace(go.Scatter(x=ks, y=adv, name="advanced (Dwork–Roth 3.20)", line=dict(color=ORANGE)))
    fig.add_trace(go.Scatter(x=ks, y=np.minimum(basic, adv), name="min of the two (valid)",
                             line=dict(color=VERMILION, dash="dot", width=3)))
    fig.update_xaxes(type="log", dtick=1)
    fig.update_yaxes(type="log", dtick=1)
    return _layout(fig, height=340, xaxis_title="number of releases k", yaxis_title="total ε",
                   title=f"Composition of releases with ε₀ = {eps0:g} (δ = {delta:g})")
