"""Plotly figures of the Trade-off page: privacy-utility curves, CI tests and run time vs ε, and
paper-vs-ours bars, from the tidy sweep table (``cgdcore.experiments``).

Every algorithm has an Okabe–Ito colour and its own dash and marker (:data:`cgdcore.viz.palette.SERIES`),
so curves stay apart in grey-scale and for colour-blind readers; bands are mean ± sd over
repetitions; every point and reference line has hover text.
"""
from __future__ import annotations

import math

import numpy as np

from cgdcore.discover import algo_label
from cgdcore.viz.palette import AXIS_TITLE_SIZE, BLACK, FONT_SIZE, LINE_WIDTH, SERIES, rgba
from cgdcore.viz.privacy import _layout

__all__ = ["METRICS", "style", "drawn_points", "paper_positions", "curves_figure", "bars_figure"]

METRICS = {"skeleton_f1": "skeleton F1", "arc_f1": "arc F1 (CPDAG, the papers' metric)", "shd": "SHD (CPDAG)",
           "n_ci_tests": "CI tests per run", "seconds": "seconds per run"}
_REFERENCE = BLACK  # non-private reference lines: black, dotted
EVERY_PAIR = "#777777"  # the F1 of linking every pair (no information): grey, dashed
EVERY_PAIR_TEXT = "every pair linked (no information)"
_FIXED = {"priv-pc": 0, "svt-pc": 1, "em-pc": 2, "curate": 3, "laplace-pc": 4, "noleaks": 5, "curate-score": 6}


def style(algorithms: list[str]) -> dict[str, dict]:
    """Colour, dash and marker per algorithm label (stable for the papers' algorithms)."""
    used = {_FIXED[a] for a in algorithms if a in _FIXED}
    free = [k for k in range(len(SERIES)) if k not in used]  # styles no algorithm of this figure has
    out = {}
    for a in algorithms:
        i = _FIXED.get(a)
        if i is None:
            i = free.pop(0) if free else len(out)
            used.add(i)
        s = SERIES[i % len(SERIES)]
        out[a] = {"color": s.colour, "dash": s.dash, "symbol": s.symbol}
    return out


_rgba = rgba


def drawn_points(summary, x_range: tuple[float, float] | None = None):
    """The private rows of ``summary`` that :func:`curves_figure` draws as points: those with a positive, finite x
    (inside ``x_range``). A row without an x on the chosen axis (no guarantee on the guaranteed-ε axis, no formula of
    the paper's own) has no place on it and is not drawn, so no caption may count it."""
    x = summary["x"]
    keep = (summary["epsilon_kind"] != "none") & np.isfinite(x) & (x > 0)
    if x_range is not None:
        keep &= (x >= x_range[0]) & (x <= x_range[1])
    return summary[keep]


def paper_positions(summary, paper: list[dict] | None, metric: str) -> list[tuple[dict, float]]:
    """(paper point, x) for each of ``paper``'s points of ``metric`` that :func:`curves_figure` draws: at the x where
    this sweep's runs at the same requested ε landed; a point whose runs have no x there is not drawn."""
    out = []
    for p in paper or []:
        if p.get("metric") != metric:
            continue
        ours = summary[(summary["dataset"] == p["dataset"]) & (summary["algorithm"] == p["algorithm"])
                       & np.isclose(summary["epsilon"], p["epsilon"])]
        if not ours.empty and np.isfinite(ours["x"].iloc[0]):
            out.append((p, float(ours["x"].iloc[0])))
    return out


def curves_figure(summary, metric: str, x_label: str, *, x_range: tuple[float, float] | None = None,
                  paper: list[dict] | None = None, log_y: bool = False, title: str | None = None,
                  axis_title: str | None = None, every_pair: dict[str, float] | None = None):
    """``metric`` (mean ± sd band) vs the summary's x, one panel per dataset, log x-axis.

    ``every_pair``: dataset → the skeleton F1 of linking every pair (:func:`cgdcore.metrics.every_pair_f1`), drawn
    as a grey dashed line in that dataset's panel when ``metric`` is the skeleton F1: a point on or below it learned
    nothing.

    ``x_label`` names the x in the title and the hover; ``axis_title`` (default ``x_label``) is written under each
    panel, where a long label would run into the next panel's.

    ``summary``: :func:`cgdcore.experiments.summarise` output. Non-private rows (no ε) are drawn as
    dotted horizontal reference lines. ``x_range`` keeps only points whose mean x lies inside
    (Priv-PC Figure 1 keeps total ε in [1, 100]). ``paper``: points (dataset, algorithm, epsilon,
    value) drawn as labelled crosses at the x where this sweep's runs at the same requested ε landed.
    With ``log_y`` a band's lower edge stops at a tenth of the mean where mean − sd ≤ 0.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    datasets = list(dict.fromkeys(summary["dataset"]))
    cols = min(3, max(1, len(datasets)))
    rows = math.ceil(len(datasets) / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=datasets, horizontal_spacing=0.07,
                        vertical_spacing=0.16 if rows > 1 else 0.1)
    styles = style(list(dict.fromkeys(summary["algorithm"])))
    mean, sd = f"{metric}_mean", f"{metric}_std"
    seen: set[str] = set()
    for k, ds in enumerate(datasets):
        r, c = k // cols + 1, k % cols + 1
        sub = summary[summary["dataset"] == ds]
        xs_priv = sub["x"][np.isfinite(sub["x"]) & (sub["x"] > 0)] if "x" in sub else []
        if x_range is not None and len(xs_priv):
            xs_priv = xs_priv[(xs_priv >= x_range[0]) & (xs_priv <= x_range[1])]
        for algo, g in sub.groupby("algorithm", sort=False):
            st = styles[algo]
            show = algo not in seen
            seen.add(algo)
            if (g["epsilon_kind"] == "none").all():
                y = float(g[mean].iloc[0])
                # the reference as a real trace across the panel's ε range, so it hovers; without private
                # points in the panel there is no range, and the legend entry has no points
                xr = [float(np.min(xs_priv)), float(np.max(xs_priv))] if len(xs_priv) else [None]
                yr = [y, y] if len(xs_priv) else [None]
                fig.add_scatter(x=xr, y=yr, mode="lines", name=f"{algo_label(algo)} (non-private)", legendgroup=algo,
                                showlegend=show, line={"color": _REFERENCE, "dash": "dot", "width": LINE_WIDTH},
                                hovertemplate=f"<b>{algo_label(algo)}</b> (non-private) on {ds}<br>{METRICS.get(metric, metric)} "
                                              f"{y:.3f}<extra></extra>", row=r, col=c)
                fig.add_hline(y=y, line_dash="dot", line_color=_REFERENCE, line_width=LINE_WIDTH, row=r, col=c,
                              annotation_text=f"{algo_label(algo)} {y:.3g}", annotation_position="bottom right",
                              annotation_font_size=FONT_SIZE)
                continue
            g = drawn_points(g, x_range).sort_values("x")
            if g.empty:
                continue
            x, m = g["x"].to_numpy(), g[mean].to_numpy()
            s = np.nan_to_num(g[sd].to_numpy())
            low = np.maximum(m - s, m / 10.0) if log_y else m - s  # on a log axis a band reaching 0 is −∞
            high = m + s
            if metric in ("skeleton_f1", "arc_f1"):  # an F1 lies in [0, 1]: so does its band
                low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
            fig.add_scatter(x=np.r_[x, x[::-1]], y=np.r_[high, low[::-1]], fill="toself", mode="lines",
                            line={"width": 0}, fillcolor=_rgba(st["color"], 0.15), hoverinfo="skip",
                            legendgroup=algo, showlegend=False, row=r, col=c)
            fig.add_scatter(
                x=x, y=m, mode="lines+markers", name=algo_label(algo), legendgroup=algo, showlegend=show,
                line={"color": st["color"], "dash": st["dash"], "width": 2.5},
                marker={"symbol": st["symbol"], "size": 9, "color": st["color"]},
                customdata=np.c_[g["epsilon"].to_numpy(), s, g["reps"].to_numpy()],
                hovertemplate=(f"<b>{algo_label(algo)}</b> on {ds}<br>requested ε %{{customdata[0]:.3g}}<br>{x_label} "
                               f"%{{x:.3g}}<br>{METRICS.get(metric, metric)} %{{y:.3f}} ± %{{customdata[1]:.3f}}"
                               "<br>%{customdata[2]} runs<extra></extra>"),
                row=r, col=c)
        if metric == "skeleton_f1" and every_pair and ds in every_pair:
            # named in the legend (a label on the line was crossed by the curves near it), hovering as a trace
            y = every_pair[ds]
            fig.add_hline(y=y, line={"color": EVERY_PAIR, "dash": "dash", "width": 2}, row=r, col=c)
            if len(xs_priv):
                fig.add_scatter(x=[float(np.min(xs_priv)), float(np.max(xs_priv))], y=[y, y], mode="lines",
                                name=EVERY_PAIR_TEXT, legendgroup="every pair", showlegend=k == 0,
                                line={"color": EVERY_PAIR, "dash": "dash", "width": 2},
                                hovertemplate=f"<b>{EVERY_PAIR_TEXT}</b> on {ds}<br>skeleton F1 {y:.3f}<extra></extra>",
                                row=r, col=c)
        for p, px in paper_positions(sub, paper, metric):  # where our runs at the same requested ε landed
            st = styles.get(p["algorithm"], {"color": "#555555"})
            fig.add_scatter(x=[px], y=[p["value"]], mode="markers+text", text=["paper"],
                            textposition="top center", name=f"paper: {p['algorithm']}", legendgroup="paper",
                            showlegend=False, marker={"symbol": "x-thin-open", "size": 14, "color": st["color"],
                                                      "line": {"width": 3, "color": st["color"]}},
                            hovertemplate=f"paper's reported value for {p['algorithm']} on {ds}: "
                                          "%{y:.4g}<extra></extra>", row=r, col=c)
    fig.update_xaxes(type="log", title_text=axis_title or x_label, **_log_ticks(drawn_points(summary, x_range)))
    if log_y:
        fig.update_yaxes(type="log", dtick=1)  # labels only at powers of ten: plotly draws the 2s and 5s small
    fig.update_yaxes(title_text=METRICS.get(metric, metric), col=1)
    if metric in ("skeleton_f1", "arc_f1"):
        fig.update_yaxes(range=[-0.03, 1.05])
    _layout(fig, height=340 * rows, title=title or f"{METRICS.get(metric, metric)} vs {x_label}")
    fig.update_xaxes(title_font_size=AXIS_TITLE_SIZE)
    return fig


#: at most this many distinct x values are each labelled on a curve's log axis (a few requested ε: 0.5, 2, 10);
#: more (a logspace of 21) are labelled at the powers of ten
FEW_TICKS = 8


def _log_ticks(points) -> dict:
    """A log x-axis's ticks: the points' own x values when they are few and far enough apart to be read (ε = 0.5
    and 2 between the powers of ten were not labelled), else the powers of ten."""
    from cgdcore.privacy.ledger import readable

    xs = sorted({float(x) for x in points["x"] if np.isfinite(x) and x > 0}) if "x" in points else []
    if 2 <= len(xs) <= FEW_TICKS and all(b / a >= 1.5 for a, b in zip(xs, xs[1:])):
        return {"tickvals": xs, "ticktext": [readable(x) for x in xs]}
    return {"dtick": 1}


def bars_figure(summary, metric: str, *, paper: list[dict] | None = None, log_y: bool = False,
                title: str | None = None, every_pair: dict[str, float] | None = None):
    """Grouped bars of ``metric`` (mean ± sd) per dataset and algorithm, paper values beside ours; ``every_pair`` as
    in :func:`curves_figure`, a grey dash across each dataset's group."""
    import plotly.graph_objects as go

    fig = go.Figure()
    styles = style(list(dict.fromkeys(summary["algorithm"])))
    for algo, g in summary.groupby("algorithm", sort=False):
        st = styles[algo]
        fig.add_bar(x=g["dataset"], y=g[f"{metric}_mean"], name=f"{algo_label(algo)} (this build)", marker_color=st["color"],
                    error_y={"type": "data", "array": np.nan_to_num(g[f"{metric}_std"].to_numpy())},
                    hovertemplate=f"{algo_label(algo)} on %{{x}}: %{{y:.4g}}<extra></extra>")
        pts = [p for p in paper or [] if p["algorithm"] == algo and p.get("metric") == metric]
        if pts:
            fig.add_bar(x=[p["dataset"] for p in pts], y=[p["value"] for p in pts], name=f"{algo_label(algo)} (paper)",
                        marker_color=_rgba(st["color"], 0.35), marker_pattern_shape="/",
                        marker_line={"color": st["color"], "width": 1.5},
                        hovertemplate=f"paper: {algo_label(algo)} on %{{x}}: %{{y:.4g}}<extra></extra>")
    shown = [ds for ds in dict.fromkeys(summary["dataset"]) if every_pair and ds in every_pair]
    if metric == "skeleton_f1" and shown:  # over the bars, across each dataset's group
        fig.add_scatter(x=shown, y=[every_pair[ds] for ds in shown], mode="markers", name=EVERY_PAIR_TEXT,
                        marker={"symbol": "line-ew-open", "size": 160, "color": EVERY_PAIR,
                                "line": {"width": 3, "color": EVERY_PAIR}},
                        hovertemplate=f"{EVERY_PAIR_TEXT} on %{{x}}: %{{y:.3f}}<extra></extra>")
    fig.update_yaxes(title=METRICS.get(metric, metric), type="log" if log_y else "linear")
    return _layout(fig, height=380, barmode="group", title=title or f"{METRICS.get(metric, metric)} per dataset")
