"""Figures of the Encrypted page: agreement per level, where the time goes, what each party holds."""
from __future__ import annotations

from cgdcore.viz.palette import BLUE, GREEN, LIGHT_GREY, ORANGE, PURPLE, SKY, VERMILION, theme

PALETTE = {"agree": BLUE, "flip": VERMILION, "paper": LIGHT_GREY}
#: (key, label, colour, hatch): the hatch tells the stacked phases apart in greyscale
PHASES = [("keygen", "key generation", SKY, "."), ("count", "owners count", GREEN, ""),
          ("encrypt", "owners encrypt", ORANGE, "x"), ("compute", "server computes", BLUE, ""),
          ("decrypt", "key holder decrypts", PURPLE, "/")]


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
        fig.add_bar(x=xs, y=[paper["level 0"], paper["level 1"]], name="paper (Table III, hatched)",
                    marker_color=PALETTE["paper"], marker_pattern_shape="/",
                    marker_line=dict(color="#404040", width=1.5),
                    hovertemplate="paper, %{x}: %{y:.1%}<extra></extra>")
    fig.update_layout(barmode="group", height=360, margin=dict(l=10, r=10, t=40, b=10),
                      yaxis=dict(title="decisions agreeing with plaintext", range=[0, 1.15], tickformat=".0%"),
                      legend=dict(orientation="h", y=1.14, x=0), uniformtext_minsize=12)
    return theme(fig, legend_below=False)


def time_figure(seconds: dict):
    """One stacked bar: key generation, counting, encryption, server computation, decryption."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for key, label, colour, hatch in PHASES:
        v = float(seconds.get(key, 0.0))
        fig.add_bar(y=["run"], x=[v], name=label, orientation="h", marker_color=colour,
                    marker_pattern=dict(shape=hatch, fgcolor="#FFFFFF", bgcolor=colour, size=8, solidity=0.35),
                    marker_line=dict(color="#FFFFFF", width=1.5),
                    hovertemplate=f"<b>{label}</b>: %{{x:.2f}} s<extra></extra>")
    fig.update_layout(barmode="stack", height=210, margin=dict(l=10, r=10, t=10, b=10),
                      xaxis_title="seconds", yaxis_visible=False,
                      legend_traceorder="normal")  # the phases' order, left to right (plotly reverses stacks)
    return theme(fig)
