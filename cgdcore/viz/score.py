"""Plotly figures for score-based discovery: weights, convergence, CURATE's schedules (plotly lazy)."""
from __future__ import annotations

import numpy as np

from cgdcore.viz.palette import BLUE, GREEN, PURPLE, VERMILION
from cgdcore.viz.privacy import _curve, _layout

__all__ = ["weights_figure", "convergence_figure", "schedules_figure", "iterations_figure"]

SCHEME_COLOURS = {"additive": BLUE, "exponential": GREEN, "multiplicative": VERMILION, "geometric": PURPLE}
#: series index in :data:`cgdcore.viz.palette.SERIES` per schedule: colour, dash and marker together
SCHEME_SERIES = {"additive": 0, "multiplicative": 1, "exponential": 2, "geometric": 3}


def weights_figure(W: np.ndarray, truth: np.ndarray | None, names, w_threshold: float):
    """Learned weighted adjacency W (diverging colours) next to the true adjacency."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = list(names)
    cols = 2 if truth is not None else 1
    titles = ("learned W (row → column)", "true DAG") if truth is not None else ("learned W (row → column)",)
    fig = make_subplots(rows=1, cols=cols, subplot_titles=titles, horizontal_spacing=0.12)
    lim = max(float(np.abs(W).max()), w_threshold, 1e-9)
    kept = np.abs(W) >= w_threshold
    text = [[f"{names[i]} → {names[j]}: {W[i, j]:.3f}" + (" (kept)" if kept[i, j] else "")
             for j in range(len(names))] for i in range(len(names))]
    fig.add_trace(go.Heatmap(z=W, x=names, y=names, zmin=-lim, zmax=lim, colorscale="RdBu", reversescale=True,
                             text=text, hoverinfo="text", colorbar=dict(title="w", x=0.44 if cols == 2 else 1.0)),
                  1, 1)
    if truth is not None:
        T = np.asarray(truth, dtype=float)
        fig.add_trace(go.Heatmap(z=T, x=names, y=names, zmin=0, zmax=1, colorscale=[[0, "#ffffff"], [1, "#333333"]],
                                 showscale=False, hovertemplate="%{y} → %{x}: %{z}<extra></extra>"), 1, 2)
    for c in range(1, cols + 1):
        fig.update_yaxes(autorange="reversed", row=1, col=c)
    if truth is not None:  # the same rows as W's, level with them: their names would sit under W's colour bar
        fig.update_yaxes(showticklabels=False, row=1, col=2)
    return _layout(fig, height=420 if len(names) <= 15 else 560)


def convergence_figure(trace: list[dict], private: bool):
    """Loss, acyclicity h(W) and, for gradient releases, cumulative ε per release (their loss, under
    :data:`~cgdcore.score.dp_notears.EXACT_LOSS`, is the exact data's, not covered by ε); per outer iteration otherwise
    (NOTEARS, or NOTEARS on a privately released covariance when ``private``)."""
    from plotly.subplots import make_subplots

    from cgdcore.score.dp_notears import EXACT_LOSS

    per_release = bool(trace) and "epsilon_spent" in trace[0]
    x = [t.get("release", t.get("iteration")) for t in trace]
    rows = 3 if per_release else 2
    loss = ("loss ℓ(W) — evaluated on the data for teaching, never released" if per_release else
            "loss on the released covariance (post-processing)" if private else "loss ℓ(W)")
    titles = [loss, "acyclicity h(W) (log scale)"] + (["ε used (zCDP, cumulative)"] if per_release else [])
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, subplot_titles=titles, vertical_spacing=0.08)
    xl = "noisy gradient release" if per_release else "outer iteration"
    key = next((k for k in (EXACT_LOSS, "loss") if trace and k in trace[0]), None)  # a private run's: exact data
    if key:
        fig.add_trace(_curve(x, [t[key] for t in trace], "loss ℓ(W)", 0, xl, "loss"), 1, 1)
    fig.add_trace(_curve(x, [max(t["h"], 1e-16) for t in trace], "acyclicity h(W)", 1, xl, "h(W)", fmt=".3~g"), 2, 1)
    fig.update_yaxes(type="log", exponentformat="power", row=2, col=1)  # 10⁻¹⁶, not SI's "1f"
    fig.update_xaxes(rangemode="nonnegative", tickformat="d")  # iterations count from 0, one point or many
    if per_release:
        fig.add_trace(_curve(x, [t["epsilon_spent"] for t in trace], "ε used (zCDP, cumulative)", 2, xl, "ε"), 3, 1)
    fig.update_xaxes(title_text=xl, row=rows, col=1)
    return _layout(fig, height=200 * rows + 60)


def schedules_figure(eps_total: float, eps0: float, ratio: float = 1.05):
    """ε_k vs k for every CURATE schedule fitted to (ε_total, ε0)."""
    import plotly.graph_objects as go

    from cgdcore.score.schedules import SCHEDULES, fitted_schedule

    fig = go.Figure()
    for kind in SCHEDULES:
        try:
            I, eps = fitted_schedule(kind, eps_total, eps0, ratio)
        except Exception:  # noqa: BLE001 - a schedule that fits no iteration is simply not drawn
            continue
        fig.add_trace(_curve(np.arange(I), eps, f"{kind} (I = {I}, Σ = {eps.sum():.3g})", SCHEME_SERIES[kind],
                             "iteration k", "ε_k", fmt=".3~g"))
    fig.update_yaxes(type="log", dtick=1)
    return _layout(fig, height=360, xaxis_title="iteration k", yaxis_title="ε_k",
                   title=f"Per-iteration budgets at ε_total = {eps_total:g}, ε0 = {eps0:.3g}")


def iterations_figure(eps0: float, ratio: float = 1.05):
    """Lemma 2: iterations I each schedule affords as ε_total grows (ε0 fixed)."""
    import plotly.graph_objects as go

    from cgdcore.score.schedules import SCHEDULES, lemma2_iterations

    totals = np.logspace(np.log10(max(eps0, 1e-4)), 2, 80)
    fig = go.Figure()
    for kind in SCHEDULES:
        ys = [max(lemma2_iterations(kind, t, eps0, ratio), 0.0) for t in totals]
        fig.add_trace(_curve(totals, ys, kind, SCHEME_SERIES[kind], "ε_total", "iterations I", fmt=".4~g"))
    fig.update_xaxes(type="log", dtick=1)
    fig.update_yaxes(type="log", dtick=1)
    return _layout(fig, height=340, xaxis_title="ε_total", yaxis_title="I (Lemma 2; a run uses ⌊I⌋)",
                   title=f"Iterations available vs ε_total (ε0 = {eps0:.3g})")
