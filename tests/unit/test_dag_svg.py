"""The static SVG of a DAG (the Datasets page's graph): well-formed, one node and label per variable, one line per
arc with an arrowhead on each directed one, names drawn as typed (escaped), parents and children in each tooltip."""
import xml.etree.ElementTree as ET

import numpy as np

from cgdcore.viz import dag_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def _parse(svg: str):
    return ET.fromstring(svg)


def test_every_node_arc_and_arrowhead_is_drawn():
    from cgdcore.data import load_dataset

    ds = load_dataset("alarm", n=200, seed=0)
    root = _parse(dag_svg(ds.truth, ds.variables, label="True DAG of alarm"))
    assert root.get("role") == "img" and root.get("aria-label") == "True DAG of alarm"
    assert len(root.findall(".//s:circle", NS)) == ds.d == 37
    assert [t.text for t in root.findall(".//s:text", NS)] == list(ds.variables)
    lines = root.findall(".//s:polyline", NS)
    assert len(lines) == int(ds.truth.sum()) == 46
    assert all(p.get("marker-end") == "url(#head)" for p in lines)
    w, h = float(root.get("width")), float(root.get("height"))
    for p in lines:  # every point inside the canvas
        pts = np.array([[float(v) for v in q.split(",")] for q in p.get("points").split()])
        assert (pts >= 0).all() and (pts[:, 0] <= w).all() and (pts[:, 1] <= h).all()


def test_undirected_pairs_are_one_line_without_a_head_and_tooltips_name_the_neighbours():
    A = np.zeros((3, 3), dtype=bool)
    A[0, 1] = True          # a → b
    A[1, 2] = A[2, 1] = True  # b — c
    root = _parse(dag_svg(A, ["a", "b", "c"]))
    lines = root.findall(".//s:polyline", NS)
    assert len(lines) == 2 and sum(p.get("marker-end") is not None for p in lines) == 1
    tips = [g.find("s:title", NS).text for g in root.findall("./s:g", NS) if g.find("s:title", NS) is not None]
    assert tips == ["a — children: b", "b — parents: a", "c — no edges"]


def test_hostile_names_are_text():
    names = ["<script>alert(1)</script>", "=cmd|' /C calc'!A0", 'x" onmouseover="alert(1)', "a & b"]
    A = np.zeros((4, 4), dtype=bool)
    A[0, 1] = A[2, 3] = True
    svg = dag_svg(A, names, label='<img src=x onerror="alert(1)">')
    assert "<script" not in svg and "<img" not in svg and 'onmouseover="' not in svg
    root = _parse(svg)  # still well-formed XML
    assert [t.text for t in root.findall(".//s:text", NS)] == names
    assert root.get("aria-label") == '<img src=x onerror="alert(1)">'


def test_an_empty_graph_and_a_graph_without_variables():
    root = _parse(dag_svg(np.zeros((2, 2), dtype=bool), ["x", "y"]))
    assert len(root.findall(".//s:polyline", NS)) == 0 and len(root.findall(".//s:circle", NS)) == 2
    root = _parse(dag_svg(np.zeros((0, 0), dtype=bool), []))
    assert len(root.findall(".//s:circle", NS)) == 0
