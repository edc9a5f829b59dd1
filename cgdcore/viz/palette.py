"""The app's one colour-blind-safe palette, its line styles and type sizes, and the checks behind them.

Every figure module (``cgdcore.viz*``) takes its colours, dashes, markers and font sizes from here.

Colours are Okabe & Ito's (2008) colour-universal-design set, plus one colour from Paul Tol's
"muted" scheme (wine, #882255) for false-positive edges. The edge categories were chosen by
measurement, not by name: under normal vision and under simulated protanopia, deuteranopia and
tritanopia (Machado, Oliveira & Fernandes 2009, severity 1, applied to linear sRGB) every pair of
categories drawn together is at least ``MIN_CVD_DELTA_E`` apart in CIEDE2000, and every edge colour
has at least 3:1 contrast against the white background (WCAG 2.1, 1.4.11 non-text contrast). The
former palette (bluish green for *correct* beside grey for *missing*) came to ΔE₀₀ ≈ 8 under
deuteranopia; this one is above 20 for every pair (:func:`min_cvd_distance`).

Colour is never the only cue: each edge category also has its own dash pattern and width, and each
chart series its own dash and marker, so figures read in greyscale, on a washed-out projector and
when printed.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

# ----------------------------------------------------------------------------- colours
#: Okabe–Ito (2008)
BLACK = "#000000"
ORANGE = "#E69F00"
SKY = "#56B4E9"
GREEN = "#009E73"       # bluish green
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILION = "#D55E00"
PURPLE = "#CC79A7"      # reddish purple
#: Paul Tol "muted"
WINE = "#882255"
#: greys
GREY = "#8C8C8C"        # 3.4:1 on white
DARK_GREY = "#404040"
LIGHT_GREY = "#BBBBBB"  # decoration only (grid, comparison bars), never the only cue
TEXT = "#111111"

OKABE_ITO = {"black": BLACK, "orange": ORANGE, "sky blue": SKY, "bluish green": GREEN, "yellow": YELLOW,
             "blue": BLUE, "vermilion": VERMILION, "reddish purple": PURPLE}

# ------------------------------------------------------------------------- type and lines
FONT_SIZE = 14          # every label, tick, legend entry and hover label: readable on a projector
TITLE_SIZE = 17
AXIS_TITLE_SIZE = 15
LINE_WIDTH = 2.5        # data lines; nothing that carries data is thinner than 2 px
MARKER_SIZE = 9
FONT_FAMILY = "Source Sans Pro, Helvetica, Arial, sans-serif"


# ------------------------------------------------------------------------ edge categories
@dataclass(frozen=True)
class EdgeStyle:
    """How one edge category is drawn, in every renderer."""

    colour: str
    dash: str          # plotly line dash
    width: float       # plotly / pyvis line width, px
    dot_style: str     # Graphviz style
    dot_penwidth: float
    vis_dashes: tuple[int, ...] | bool  # vis-network dash pattern (False = solid)
    label: str         # legend text
    meaning: str       # one short phrase for hover text


#: Edge categories of :func:`cgdcore.viz.edge_table`, in legend order. "true" (the truth panel) and
#: "learned" (a graph without truth) are never drawn in the same panel as the four comparison categories.
EDGE_STYLES: dict[str, EdgeStyle] = {
    "true": EdgeStyle(BLACK, "solid", 2.5, "solid", 2.0, False, "true DAG arc", "arc of the true DAG"),
    "correct": EdgeStyle(BLUE, "solid", 3.5, "solid", 2.5, False, "correct (edge and mark match the true CPDAG)",
                         "in the truth and learned with the right mark"),
    "wrongly oriented": EdgeStyle(VERMILION, "dashdot", 3.0, "bold", 3.5, (14, 5, 3, 5),
                                  "wrongly oriented (right pair, wrong mark)",
                                  "the pair is adjacent in the truth but the learned mark differs"),
    "false positive": EdgeStyle(WINE, "dot", 3.0, "dotted", 2.5, (3, 5), "false positive (pair not adjacent in truth)",
                                "learned, but not adjacent in the truth"),
    "missing": EdgeStyle(GREY, "dash", 2.5, "dashed", 1.8, (10, 6), "missing (true edge not found)",
                         "in the truth, not learned"),
    "learned": EdgeStyle(BLUE, "solid", 3.0, "solid", 2.0, False, "learned edge (no ground truth)",
                         "learned edge (no ground truth to compare with)"),
}
#: the categories that can share one panel (the learned graph against the truth) plus the truth panel's arcs
COMPARED = ("true", "correct", "wrongly oriented", "false positive", "missing")


# ------------------------------------------------------------------------------- series
@dataclass(frozen=True)
class SeriesStyle:
    colour: str
    dash: str
    symbol: str


#: chart series, in order: colour, dash and marker all change together, so any two series differ in
#: dash *and* marker as well as in colour (the low-contrast orange and sky blue come last).
SERIES: tuple[SeriesStyle, ...] = (
    SeriesStyle(BLUE, "solid", "circle"),
    SeriesStyle(VERMILION, "dash", "square"),
    SeriesStyle(GREEN, "dot", "diamond"),
    SeriesStyle(PURPLE, "dashdot", "triangle-up"),
    SeriesStyle(ORANGE, "longdash", "x"),
    SeriesStyle(SKY, "longdashdot", "star"),
    SeriesStyle(BLACK, "6px,3px,1px,3px,1px,3px", "cross"),
    SeriesStyle(DARK_GREY, "2px,2px", "pentagon"),
)


def series(i: int) -> SeriesStyle:
    return SERIES[i % len(SERIES)]


def line(i: int, width: float = LINE_WIDTH, **kw) -> dict:
    """plotly ``line=`` of series ``i``."""
    s = series(i)
    return {"color": s.colour, "dash": s.dash, "width": width, **kw}


def marker(i: int, size: float = MARKER_SIZE, **kw) -> dict:
    """plotly ``marker=`` of series ``i``."""
    s = series(i)
    return {"color": s.colour, "symbol": s.symbol, "size": size, **kw}


def rgba(hex_colour: str, a: float) -> str:
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{a})"


# -------------------------------------------------------------------------------- theme
#: a horizontal legend at the foot of the figure, under the x-axis title: placed in the figure's frame ("container"),
#: so plotly's automargin keeps the plot and its axis title above it. Placed in the plot's frame (a negative y) it
#: was left where the figure's first width put it: Streamlit draws a chart at one width and then at its column's,
#: and a legend that had wrapped at the first ended up over the x-axis title at the second.
LEGEND_BELOW = dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0)


def theme(fig, *, legend_below: bool = True, legend_y: float | None = None):
    """The shared look: projector-size fonts everywhere (ticks, axis titles, legend, hover, annotations); the legend
    at the figure's foot (:data:`LEGEND_BELOW`), or ``legend_y`` (plot fractions) under a plot of fixed size."""
    fig.update_layout(font=dict(size=FONT_SIZE, family=FONT_FAMILY, color=TEXT),
                      hoverlabel=dict(font=dict(size=FONT_SIZE, color=TEXT), bgcolor="white", namelength=-1,
                                      align="left"),
                      legend=dict(font=dict(size=FONT_SIZE)),
                      title_font_size=TITLE_SIZE)
    if legend_below and legend_y is None:
        fig.update_layout(legend=LEGEND_BELOW)
    elif legend_below:
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=legend_y, x=0))
    # explicit colours: Streamlit's chart theme otherwise greys axis titles and ticks (too faint on a projector)
    axis = dict(tickfont=dict(size=FONT_SIZE, color="#333333"), title_font=dict(size=AXIS_TITLE_SIZE, color=TEXT))
    fig.update_xaxes(**axis)
    fig.update_yaxes(**axis)
    fig.update_annotations(font_size=FONT_SIZE)  # subplot titles, hline labels
    return fig


# ------------------------------------------------------------ colour-vision simulation
#: Machado, Oliveira & Fernandes (2009), severity 1.0, on linear sRGB (the matrices Chrome DevTools uses)
MACHADO = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
VISIONS = ("normal", *MACHADO)
#: the smallest CIEDE2000 distance required between edge categories drawn together, under every vision
MIN_CVD_DELTA_E = 15.0


def hex_to_rgb(h: str) -> tuple[float, float, float]:
    h = h.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"not a #RRGGBB colour: {h!r}")
    return tuple(int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4))


def _to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def linear_rgb(h: str) -> tuple[float, float, float]:
    return tuple(_to_linear(c) for c in hex_to_rgb(h))


def simulate(h: str, vision: str = "normal") -> tuple[float, float, float]:
    """Linear-sRGB colour of ``h`` as seen under ``vision`` (clipped to the gamut)."""
    rgb = linear_rgb(h)
    if vision == "normal":
        return rgb
    M = MACHADO[vision]
    return tuple(min(1.0, max(0.0, sum(M[i][j] * rgb[j] for j in range(3)))) for i in range(3))


def linear_to_lab(rgb) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of a linear-sRGB triple."""
    r, g, b = rgb
    X = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    Y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    Z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(X), f(Y), f(Z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005 implementation notes), kL = kC = kH = 1."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C1, C2 = math.hypot(a1, b1), math.hypot(a2, b2)
    Cb7 = ((C1 + C2) / 2) ** 7
    G = 0.5 * (1 - math.sqrt(Cb7 / (Cb7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if C1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if C2p else 0.0
    dLp, dCp = L2 - L1, C2p - C1p
    if C1p * C2p == 0:
        dhp = 0.0
    else:
        dhp = h2p - h1p
        if dhp > 180:
            dhp -= 360
        elif dhp < -180:
            dhp += 360
    dHp = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dhp / 2))
    Lbp, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hbp = (h1p + h2p + 360) / 2
    else:
        hbp = (h1p + h2p - 360) / 2
    T = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    dtheta = 30 * math.exp(-(((hbp - 275) / 25) ** 2))
    Cbp7 = Cbp ** 7
    Rc = 2 * math.sqrt(Cbp7 / (Cbp7 + 25.0 ** 7))
    SL = 1 + 0.015 * (Lbp - 50) ** 2 / math.sqrt(20 + (Lbp - 50) ** 2)
    SC = 1 + 0.045 * Cbp
    SH = 1 + 0.015 * Cbp * T
    RT = -math.sin(math.radians(2 * dtheta)) * Rc
    return math.sqrt((dLp / SL) ** 2 + (dCp / SC) ** 2 + (dHp / SH) ** 2 + RT * (dCp / SC) * (dHp / SH))


def cvd_distance(a: str, b: str, vision: str = "normal") -> float:
    """CIEDE2000 distance between two colours as seen under ``vision``."""
    return delta_e2000(linear_to_lab(simulate(a, vision)), linear_to_lab(simulate(b, vision)))


def min_cvd_distance(colours, visions=VISIONS) -> tuple[float, str, str, str]:
    """Smallest pairwise distance among ``colours`` over ``visions``: (ΔE₀₀, vision, colour, colour)."""
    best = (math.inf, "", "", "")
    for v in visions:
        for a, b in itertools.combinations(colours, 2):
            d = cvd_distance(a, b, v)
            if d < best[0]:
                best = (d, v, a, b)
    return best


def relative_luminance(h: str) -> float:
    r, g, b = linear_rgb(h)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str = "#FFFFFF") -> float:
    """WCAG 2.1 contrast ratio of two colours."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def greyscale(h: str) -> float:
    """CIE L* of a colour (what is left of it in a greyscale print)."""
    return linear_to_lab(linear_rgb(h))[0]
