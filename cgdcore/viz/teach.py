"""The Learn page's lesson figures; each draws the numbers it is given (the page and :mod:`ui.teach` compute them)."""
from __future__ import annotations

from typing import Sequence

from cgdcore.viz.palette import BLUE, LEGEND_BELOW, ORANGE, VERMILION, line, marker, rgba, theme

__all__ = ["ci_test_figure", "flip_figure", "per_test_budget_figure", "sieve_flow_figure", "f1_against_epsilon_figure"]


def ci_test_figure(xs, density, statistic: float, dof: int, p_value: float | None = None):
    """The χ²(dof) density under independence over ``xs``, the statistic as a dashed line and the p-value as the
    shaded tail beyond it. A tail too thin to see at the density's scale (``p_value`` < 0.05) is drawn again on
    the right, magnified to its own height; one too small to draw at all (density 0 in double precision) is said."""
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    xs, density = np.asarray(xs, dtype=float), np.asarray(density, dtype=float)
    tail = xs >= statistic
    p_text = None if p_value is None else "< 1e-300" if p_value == 0 else f"= {p_value:.2g}"  # 0: underflow
    label = f"G = {statistic:.2f}" + ("" if p_text is None else f", p {p_text}")
    magnify = p_value is not None and p_value < 0.05 and tail.sum() > 1 and density[tail].max() > 0
    fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.1,
                        subplot_titles=("", "the tail beyond G, magnified")) if magnify else go.Figure()
    panels = [(1, 1), (1, 2)] if magnify else [(None, None)]
    for k, (row, col) in enumerate(panels):
        at = {} if row is None else {"row": row, "col": col}
        keep = slice(None) if k == 0 else xs >= statistic - 0.15 * (xs.max() - statistic)
        fig.add_scatter(x=xs[keep], y=density[keep], mode="lines", name=f"χ²({dof}) under independence",
                        line={"color": BLUE, "width": 3}, showlegend=k == 0, legendgroup="density",
                        hovertemplate=f"χ²({dof}) density at %{{x:.2f}}: %{{y:.3g}}<extra></extra>", **at)
        fig.add_scatter(x=xs[tail], y=density[tail], fill="tozeroy", mode="none", name="p-value (tail area)",
                        fillcolor=rgba(VERMILION, 0.35), showlegend=k == 0, legendgroup="tail",
                        hovertemplate="beyond the statistic: density %{y:.3g} at %{x:.2f}<extra></extra>", **at)
        fig.add_vline(x=statistic, line_dash="dash", line_color=VERMILION,
                      annotation_text=label if k == 0 else "", **at)
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10), legend=LEGEND_BELOW)
    fig.update_xaxes(title_text="statistic")
    if magnify:
        fig.update_yaxes(title_text="density", row=1, col=1)
        fig.update_yaxes(range=[0, 1.2 * float(density[tail].max())], row=1, col=2)
    else:
        fig.update_yaxes(title_text="density")
        if p_value is not None and p_value < 0.05:
            fig.add_annotation(text=f"tail area {p_text.lstrip('= ')}: too small to draw", x=statistic, y=0,
                               yanchor="bottom", xanchor="right", showarrow=False, font={"color": VERMILION})
    return theme(fig)


def flip_figure(ps, flips, alpha: float):
    """Chance that Laplace noise flips a test's decision, against its true p-value."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=ps, y=flips, mode="lines", line={"color": VERMILION, "width": 3},
                               name="P(decision flips)",
                               hovertemplate="p = %{x:.3f}<br>P(flip) = %{y:.3f}<extra></extra>"))
    fig.add_vline(x=alpha, line_dash="dot", annotation_text=f"α = {alpha:g}", annotation_position="top right")
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), xaxis_title="true p-value of the test",
                      yaxis_title="chance the noise flips the decision", yaxis_range=[0, 0.52])
    return theme(fig)


def per_test_budget_figure(orders: Sequence[int], per_test: dict[str, Sequence[float]],
                           plan: tuple[Sequence[int], Sequence[float]] | None = None):
    """ε per CI test at each PC order, one group of bars per algorithm (hatched after the first), and CURATE's plan
    made before order 0 as a dotted line."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for (name, values), colour, pattern in zip(per_test.items(), (BLUE, ORANGE), ("", "/")):
        fig.add_bar(x=[f"order {o}" for o in orders], y=list(values), name=name,
                    marker={"color": colour, "pattern": {"shape": pattern}},
                    hovertemplate=f"{name}<br>%{{x}}: ε per test %{{y:.4f}}<extra></extra>")
    if plan is not None:
        plan_orders, planned = plan
        fig.add_scatter(x=[f"order {o}" for o in plan_orders], y=list(planned), mode="lines+markers",
                        name="CURATE's plan before order 0", line={"color": BLUE, "dash": "dot", "width": 2},
                        marker={"symbol": "diamond", "size": 9},
                        hovertemplate="plan before order 0<br>%{x}: ε per test %{y:.4f}<extra></extra>")
    import math

    # a log axis draws a bar from its bottom: put that a factor 5 below the smallest value, so every bar has height
    shown = [float(v) for values in per_test.values() for v in values if v > 0]
    shown += [float(v) for v in (plan[1] if plan is not None else ()) if v > 0]
    yrange = ([math.log10(min(shown) / 5), math.log10(max(shown) * 2)] if shown else None)
    fig.update_layout(barmode="group", height=320, margin=dict(l=10, r=10, t=30, b=10),
                      yaxis=dict(title="ε per CI test (log scale)", type="log", range=yrange, **_log_ticks(yrange)),
                      legend=LEGEND_BELOW)
    return theme(fig)


def _log_ticks(yrange) -> dict:
    """Ticks of a log axis over ``yrange`` (log10 bounds): decades when it spans two or more, else 1, 2 and 5 times
    each decade, every label written out (plotly's own minor labels read "2", "5")."""
    import math

    if yrange is None or yrange[1] - yrange[0] >= 2:
        return {"dtick": 1}
    vals = [m * 10.0 ** e for e in range(math.floor(yrange[0]), math.ceil(yrange[1]) + 1) for m in (1, 2, 5)
            if yrange[0] <= math.log10(m * 10.0 ** e) <= yrange[1]]
    return {"tickvals": vals, "ticktext": [f"{v:g}" for v in vals]}


def sieve_flow_figure(labels: Sequence[str], xs: Sequence[float], ys: Sequence[float],
                      links: Sequence[tuple[int, int, int]]):
    """Where a Priv-PC run's tests went (sieve, examine, removed, kept), as a Sankey diagram of ``links``
    (source, target, tests) between the nodes ``labels`` placed at (``xs``, ``ys``)."""
    import plotly.graph_objects as go

    colours = ["#999999", "#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#000000"]
    fig = go.Figure(go.Sankey(arrangement="fixed",
                              node=dict(label=list(labels), color=colours[:len(labels)], pad=18, thickness=16,
                                        x=list(xs), y=list(ys), hovertemplate="%{label}<extra></extra>"),
                              link=dict(source=[a for a, _, _ in links], target=[b for _, b, _ in links],
                                        value=[v for _, _, v in links], color="rgba(0,0,0,0.12)",
                                        hovertemplate="%{value} tests<extra></extra>")))
    fig.update_layout(height=360, margin=dict(l=10, r=10, t=20, b=10))
    theme(fig)
    fig.update_traces(textfont=dict(color="#111111"))
    return fig


def f1_against_epsilon_figure(series, ceilings=(), y_title: str = "skeleton F1"):
    """Mean skeleton F1 against total ε, one line per (name, rows with "epsilon" and "skeleton_f1"); each ceiling
    (value, label) a dotted line in its series' colour."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for i, (name, pts) in enumerate(series):
        fig.add_scatter(x=[r["epsilon"] for r in pts], y=[r["skeleton_f1"] for r in pts], mode="lines+markers",
                        name=name, line=line(i), marker=marker(i),
                        hovertemplate=f"{name}<br>ε = %{{x:g}}<br>skeleton F1 = %{{y:.2f}}<extra></extra>")
    for i, (value, label) in enumerate(ceilings):
        fig.add_hline(y=value, line=dict(color=line(i)["color"], dash="dot", width=2), annotation_text=label,
                      annotation_position="bottom right" if i == 0 else "top right")
    fig.update_layout(height=340, margin=dict(l=10, r=10, t=30, b=10),
                      xaxis=dict(title="total ε", type="log", dtick=1), yaxis=dict(title=y_title, range=[0, 1.05]),
                      legend=LEGEND_BELOW)
    return theme(fig)
