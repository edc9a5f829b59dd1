"""Figures: pure functions that draw the numbers they are given (plotly and pyvis imported inside them).

``cgdcore.viz`` itself is the graph module (:mod:`cgdcore.viz.graph`: the learned graph against the truth, DOT,
offline pyvis HTML, the edge table); the others draw one subject each — :mod:`~cgdcore.viz.privacy` (noise, ledgers,
budget plans), :mod:`~cgdcore.viz.score` (weights, convergence, schedules), :mod:`~cgdcore.viz.local` (channels and
utility curves), :mod:`~cgdcore.viz.fhe` (the encrypted run), :mod:`~cgdcore.viz.sweep` (privacy-utility curves),
:mod:`~cgdcore.viz.teach` (the Learn page's lessons) — all in the colours of :mod:`~cgdcore.viz.palette`.
"""
from cgdcore.viz.graph import *  # noqa: F401,F403
from cgdcore.viz.graph import EdgeRow, edge_table  # noqa: F401  (named for readers)
