"""Figures of the Encrypted page: agreement per level, where the time goes, what each party holds."""
from __future__ import annotations

PALETTE = {"agree": "#0072B2", "flip": "#D55E00", "paper": "#999999"}
PHASES = [("keygen", "key generation", "#56B4E9"), ("count", "owners count", "#009E73"),
          ("encrypt", "owners encrypt", "#E69F00"), ("compute", "server computes", "#0072B2"),
          ("decrypt", "key holder decrypts", "#CC79A7")]


def agreement_figure(levels, paper: dict | None = None):
    """Share of CI decisions per PC level that match plaintext; the paper's Table III beside ours."""
    import plotly.graph_objects as go

    orders = [f"order {lv['order']}" for lv in levels]
    fig = go.Figure()
    fig.add_bar(x=orders, y=[lv["agreement"] for lv in levels], name="this run", marker_color=PALETTE["agree"],
                text=[f"{lv['agreement']:.1%}<br>{lv['tests']} tests" for lv in levels], textposition="outside",
                hovertemplate="%{x}: %{y:.2%} of the level's tests agree with plaintext<extra></extra>")
    if paper:
        xs = [o for o in ("order 0", "order 1")]
        fig.add_bar(x=xs, y=[paper["level 0"], paper["level 1"]], name="paper (Table III)",
                    marker_color=PALETTE["paper"], marker_pattern_shape="/",
                    hovertemplate="paper, %{x}: %{y:.1%}<extra></extra>")
    fig.update_layout(barmode="group", height=340, margin=dict(l=10, r=10, t=30, b=10),
                      yaxis=dict(title="decisions agreeing with plaintext", range=[0, 1.12], tickformat=".0%"),
                      legend=dict(orientation="h", y=1.12, x=0), font=dict(size=13))
    return fig


def time_figure(seconds: dict):
    """One stacked bar: key generation, counting, encryption, server computation, decryption."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for key, label, colour in PHASES:
        v = float(seconds.get(key, 0.0))
        fig.add_bar(y=["run"], x=[v], name=label, orientation="h", marker_color=colour,
                    hovertemplate=f"{label}: %{{x:.2f}} s<extra></extra>")
    fig.update_layout(barmode="stack", height=170, margin=dict(l=10, r=10, t=10, b=10),
                      xaxis_title="seconds", yaxis_visible=False, legend=dict(orientation="h", y=-0.6, x=0),
                      font=dict(size=13))
    return fig
