"""Plotly figures of the Local privacy page: channels, marginal distortion, utility curves, oracles."""
from __future__ import annotations

import numpy as np

from cgdcore.viz.palette import BLACK, BLUE, GREEN, LINE_WIDTH, MARKER_SIZE, PURPLE, VERMILION
from cgdcore.viz.privacy import _layout

#: one colour and one marker per mechanism (Okabe–Ito, colour-blind safe; the marker carries the
#: mechanism in greyscale) and one dash per pipeline (naive solid, de-biased dashed, filled vs open markers)
MECH_COLOURS = {"krr-cwise": BLUE, "krr-comb": VERMILION, "geo-cwise": GREEN, "geo-comb": PURPLE,
                "no noise": BLACK, "grr": BLUE, "oue": VERMILION, "olh": GREEN}
MECH_SYMBOLS = {"krr-cwise": "circle", "krr-comb": "square", "geo-cwise": "diamond", "geo-comb": "triangle-up",
                "grr": "circle", "oue": "square", "olh": "diamond"}
PIPELINE_DASH = {"naive": "solid", "de-biased": "dash", "no noise": "dot"}


def channel_figure(C: np.ndarray, labels=None, title: str = "Channel P[report | true value]"):
    import plotly.graph_objects as go

    k = C.shape[0]
    labels = [str(s) for s in (labels if labels is not None else range(k))]
    # a bin's whole label ("b10 [3981, 1e+04)") fits an axis; a longer category name is cut, and hovers whole
    short = [s if len(s) <= 20 else s[:19] + "…" for s in labels]
    whole = np.array([[(t, r) for r in labels] for t in labels], dtype=object)
    fig = go.Figure(go.Heatmap(z=C, x=short, y=short, colorscale="Viridis", zmin=0, zmax=float(C.max()),
                               colorbar={"title": "prob."}, customdata=whole,
                               hovertemplate="true %{customdata[0]}<br>report %{customdata[1]}<br>P = %{z:.4f}"
                                             "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title="true value")
    fig.update_xaxes(title="reported value")
    return _layout(fig, height=380, title=title)


def distortion_figure(rows: list[dict]):
    import plotly.graph_objects as go

    names = [r["variable"] for r in rows]
    fig = go.Figure(go.Bar(x=names, y=[r["privatised"] for r in rows], name="privatised reports",
                           marker_color=VERMILION,
                           hovertemplate="<b>privatised reports</b><br>%{x}: total variation %{y:.4f}<extra></extra>"))
    if any(r["de-biased"] is not None for r in rows):
        fig.add_bar(x=names, y=[r["de-biased"] for r in rows], name="channel-inverted estimate (hatched)",
                    marker_color=BLUE, marker_pattern_shape="/",
                    hovertemplate="<b>channel-inverted estimate</b><br>%{x}: total variation %{y:.4f}<extra></extra>")
    fig.update_yaxes(title="total variation from the clean marginal", rangemode="tozero")
    return _layout(fig, height=320, barmode="group", title="Marginal distortion per column")


def _summary(rows: list[dict], metric: str):
    groups: dict = {}
    for r in rows:
        if r.get(metric) is None:
            continue
        groups.setdefault((r["mechanism"], r["pipeline"]), {}).setdefault(r["level"], []).append(float(r[metric]))
    return groups


def utility_figure(rows: list[dict], metric: str = "skeleton_f1"):
    """Mean ± sd of ``metric`` vs privacy level, one colour per mechanism, dash per pipeline.

    Every legend entry can be seen: series with the same means at every level are drawn once, under one legend
    entry naming all of them (a mechanism that never changes the graph sits exactly on the no-noise line), and
    where a point coincides with a series drawn later its marker is drawn larger, so the later marker sits
    inside it instead of hiding it.
    """
    import plotly.graph_objects as go

    from cgdcore.local.compare import epsilon_by_level

    fig = go.Figure()
    label = {"skeleton_f1": "skeleton F1", "shd": "SHD (CPDAG)"}[metric]
    ticks = sorted({r["level"] for r in rows if r["mechanism"] != "no noise"})
    epsilon = epsilon_by_level(rows)
    reference = None
    series = []  # [names, levels, mean, sd, (mech, pipe)] in drawing order
    for (mech, pipe), by_level in sorted(_summary(rows, metric).items()):
        if mech == "no noise":
            reference = float(np.mean([v for vs in by_level.values() for v in vs]))
            continue
        levels = sorted(by_level)
        mean = np.array([np.mean(by_level[x]) for x in levels])
        sd = np.array([np.std(by_level[x]) for x in levels])
        same = next((s for s in series if s[1] == levels and np.allclose(s[2], mean, rtol=0, atol=1e-9)), None)
        if same is not None:  # drawn exactly under an earlier series: one entry for both
            same[0].append(f"{mech} · {pipe}")
            continue
        series.append([[f"{mech} · {pipe}"], levels, mean, sd, (mech, pipe)])
    on_reference = [s for s in series if reference is not None and np.allclose(s[2], reference, rtol=0, atol=1e-9)]
    series = [s for s in series if not any(s is t for t in on_reference)]
    if reference is not None:
        y0 = reference
        name = " = ".join(["no noise (discretised)"] + [n for s in on_reference for n in s[0]]) + f": {y0:.3g}"
        # named in the legend only: a label on the line covered the markers of the series just above it
        fig.add_hline(y=y0, line_dash="dot", line_color=BLACK, line_width=LINE_WIDTH)
        if ticks:  # the same line as a trace, so it hovers and is in the legend
            fig.add_scatter(x=[ticks[0], ticks[-1]], y=[y0, y0], mode="lines", name=name,
                            line={"color": BLACK, "dash": "dot", "width": LINE_WIDTH},
                            hovertemplate=f"<b>{name}</b><br>{label} {y0:.3f}<extra></extra>")
    ys = [v for s in series for v in s[2]] + ([reference] if reference is not None else [])
    close = 0.01 * (max(ys) - min(ys) or 1.0) if ys else 0.0  # markers closer than this overlap on screen
    for k, (names, levels, mean, sd, (mech, pipe)) in enumerate(series):
        later = [sum(1 for t in series[k + 1:] for x2, y2 in zip(t[1], t[2]) if x2 == x and abs(y2 - y) <= close)
                 for x, y in zip(levels, mean)]
        colour = MECH_COLOURS.get(mech, "#555555")
        symbol = MECH_SYMBOLS.get(mech, "circle") + ("" if pipe == "naive" else "-open")
        name = " = ".join(names)
        eps = [epsilon.get((mech, float(x)), float("nan")) for x in levels]
        fig.add_scatter(x=levels, y=mean, mode="lines+markers", name=name, customdata=eps,
                        line={"color": colour, "dash": PIPELINE_DASH[pipe], "width": LINE_WIDTH},
                        marker={"symbol": symbol, "size": [MARKER_SIZE + 1 + 6 * c for c in later],
                                "line": {"color": colour, "width": 2}},
                        error_y={"type": "data", "array": sd, "visible": True, "thickness": 1.5},
                        hovertemplate=f"{name}<br>P = %{{x}}, ε-LDP per record %{{customdata:.4g}}<br>{label} "
                                      "%{y:.3f} ± %{error_y.array:.3f}<extra></extra>")
    # P orders the levels of one mechanism; across mechanisms the same P comes with very different ε
    fig.update_xaxes(title="privacy level P = chance of guessing a whole record (equal P is not equal ε: see the hover)",
                     type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    fig.update_yaxes(title=label)
    return _layout(fig, height=420, title=f"{label} vs privacy level (mean ± sd over seeds)")


def frequency_figure(rows: list[dict]):
    import plotly.graph_objects as go

    fig = go.Figure()
    for name in dict.fromkeys(r["oracle"] for r in rows):
        rs = [r for r in rows if r["oracle"] == name]
        c = MECH_COLOURS.get(name, "#555555")
        sym = MECH_SYMBOLS.get(name, "circle")
        fig.add_scatter(x=[r["epsilon"] for r in rs], y=[r["mse"] for r in rs], mode="markers", name=f"{name} measured",
                        marker={"color": c, "size": MARKER_SIZE + 2, "symbol": sym},
                        hovertemplate=f"<b>{name} measured</b><br>ε = %{{x:.3g}}<br>MSE of f̂ = %{{y:.3g}}"
                                      "<extra></extra>")
        fig.add_scatter(x=[r["epsilon"] for r in rs], y=[r["theory"] for r in rs], mode="lines+markers",
                        name=f"{name} theory (dashed)", line={"color": c, "dash": "dash", "width": LINE_WIDTH},
                        marker={"color": c, "size": MARKER_SIZE + 6, "symbol": f"{sym}-open", "line": {"width": 2}},
                        hovertemplate=f"<b>{name} theory</b><br>ε = %{{x:.3g}}<br>predicted MSE = %{{y:.3g}}"
                                      "<extra></extra>")
    # ticks at the ε asked and at decades of the error only: a log axis spanning under two decades otherwise labels
    # 0.3, 0.4, … as "3", "4", …
    grid = sorted({float(r["epsilon"]) for r in rows})
    fig.update_xaxes(title="ε", type="log", tickvals=grid, ticktext=[f"{e:g}" for e in grid])
    fig.update_yaxes(title="mean squared error of f̂", type="log", dtick=1)
    return _layout(fig, height=360, title="Frequency oracles: measured MSE vs Wang et al. (2017) Eq. 3")
