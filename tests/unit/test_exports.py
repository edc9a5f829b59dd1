"""Exports and labels with hostile column names: no formula runs in a spreadsheet, no markup in a page."""
import csv
import io
import re

import numpy as np
import pytest

from cgdcore.exports import WORD_JOINER, code_span, csv_text, markdown_literal, neutralise
from conftest import Lazy

pd = Lazy("pandas")

HOSTILE = ['<script>alert(1)</script>', '=cmd|" /C calc"!A0', '@SUM(1+1)*cmd', '+1-2', '-3+HYPERLINK("x")',
           'x"y,z']


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from cgdcore.data.tabular import load_csv
    from cgdcore.discover import discover

    rng = np.random.default_rng(0)
    n = 3000
    a = rng.integers(0, 2, n)
    cols = {HOSTILE[0]: a, HOSTILE[1]: (a ^ (rng.random(n) < 0.1)).astype(int)}
    for name in HOSTILE[2:]:
        cols[name] = rng.integers(0, 2, n)
    path = tmp_path_factory.mktemp("hostile") / "hostile.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    ds = load_csv(str(path))
    assert [v.strip() for v in ds.variables] == [h.strip() for h in HOSTILE]
    return discover(ds, algo="pc")


def test_neutralise_follows_owasp():
    for s in ("=1+1", "+1", "-1", "@A1", "\t=1", "\r=1"):
        assert neutralise(s) == "'" + s
    for s in ("a=1", "1", " x", ""):
        assert neutralise(s) == s
    assert neutralise(-1.5) == -1.5  # numbers stay numbers


def _cells(text):
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def test_csv_exports_never_start_a_cell_with_a_formula(hostile):
    from cgdcore import viz

    names = hostile.variables
    edges = viz.edge_list_csv(viz.edge_table(hostile.cpdag, None, names), names)
    trace = csv_text(pd.DataFrame(hostile.trace_json()).assign(S=[" ".join(r["S"]) for r in hostile.trace_json()]))
    table = csv_text(pd.DataFrame({HOSTILE[1]: ["=2+2", "ok"], "value": [-1.0, 2.0]}))
    for text in (edges, trace, table):
        cells = _cells(text)
        assert cells and not any(c.startswith(("=", "+", "@", "\t", "\r")) for c in cells), text
        assert not any(c.startswith("-") and not _number(c) for c in cells), text
    assert "'" + HOSTILE[1] in _cells(edges)
    assert "-1.0" in _cells(table)  # a negative number is not text


def _number(c):
    try:
        float(c)
        return True
    except ValueError:
        return False


def test_dot_html_and_figure_escape_names(hostile):
    from cgdcore import viz

    names = hostile.variables
    dot = viz.to_dot(hostile.cpdag, None, names)
    # every quoted DOT string is closed where it should be: the quotes inside names are escaped
    assert '"=cmd|\\" /C calc\\"!A0"' in dot and 'x\\"y,z' in dot
    html = viz.pyvis_html(hostile.cpdag, None, names)
    assert "<script>alert(1)</script>" not in html
    fig = viz.graph_figure(hostile.cpdag, None, names)
    assert "<script>" not in fig.to_json()


SYNTAX = set("\\`*_{}[]()<>#+-.!|$~:=&")  # what Markdown, its tables, Streamlit's :directives: and $…$ read
MARKUP = ['<a href="javascript:alert(1)">link</a>', "<b>bold</b> & co", r"$\frac{1}{2}$", 'say "hi"; then', "x<br>y"]


def test_plotly_labels_draw_names_as_typed():
    """plotly reads <b>, <a href>, <br> and &lt;-style entities in text and hover labels: a name is escaped so the
    label reads as typed (quotes are left alone: plotly shows &quot; literally)."""
    import html

    from cgdcore import viz
    from cgdcore.viz.graph import plotly_text
    from cgdcore.viz.privacy import noise_threshold_figure

    d = len(MARKUP)
    chain = np.zeros((d, d), bool)
    for k in range(d - 1):
        chain[k, k + 1] = True
    fig = viz.graph_figure(chain, chain, MARKUP)
    nodes = [t for t in fig.data if t.meta == "nodes"]
    assert nodes and all(list(t.text) == [plotly_text(v) for v in MARKUP] for t in nodes)
    for t in nodes:
        assert [html.unescape(s) for s in t.text] == MARKUP and not any("<" in s for s in t.text)
    hovers = [h for t in fig.data if t.hovertext is not None for h in ([t.hovertext] if isinstance(t.hovertext, str)
                                                                       else t.hovertext)]
    assert hovers and not any(bad in h for h in hovers for bad in ("<a ", "<b>bold", "x<br>y", "&quot;"))
    assert any("&lt;b&gt;bold&lt;/b&gt; &amp; co" in h for h in hovers)
    row = {"test": 0, "x": MARKUP[0], "y": MARKUP[1], "S": MARKUP[4], "order": 1, "true p": 0.5, "noisy": 0.4,
           "noise": -0.1, "threshold": 0.05, "stage": "examine", "ε": 1.0, "private decision": "independent",
           "non-private decision": "independent", "flipped": False}
    noise = noise_threshold_figure([row], 0.05)
    text = " ".join(h for t in noise.data if t.hovertext is not None for h in t.hovertext)
    assert "&lt;a href=" in text and "<a href" not in text and "x&lt;br&gt;y" in text


def test_edge_hover_splits_its_parts_not_the_names():
    from cgdcore import viz

    a = np.zeros((2, 2), bool)
    a[0, 1] = True
    row = viz.edge_table(a, a, ["a;b", "c; true"])[0]
    lines = viz.edge_hover(row, ["a;b", "c; true"]).split("<br>")
    assert lines[2:] == ["learned: a;b → c; true", "true DAG: a;b → c; true", "true CPDAG: a;b — c; true"]


def test_pyvis_keeps_its_text_tooltips_when_a_name_holds_href():
    """pyvis swaps vis-network's text tooltip for a popup that sets a node's title as HTML whenever a title contains
    "href": the page must never get that popup, and the titles must still read as the names."""
    import json
    import re

    from cgdcore import viz

    names = MARKUP + ["<img src=x onerror=alert(1)>", "plain href"]
    page = viz.pyvis_html(np.zeros((len(names), len(names)), bool), None, names)
    assert "innerHTML = nodeData" not in page and "popup.innerHTML" not in page
    data = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1)
    nodes = json.loads(data)  # the page's own data, as JavaScript reads it
    assert [n["title"] for n in nodes] == names and [n["label"] for n in nodes] == names
    assert "<img" not in data and "</script>" not in data.lower()


def test_markdown_literal_escapes_every_markdown_and_latex_character():
    """Markdown (CommonMark) treats a backslash before ASCII punctuation as that character: escaped, a name shows
    as typed — no emphasis, link, heading, table, HTML or $…$ formula — and reading the escapes back gives the name."""
    import re

    from cgdcore.exports import markdown_literal

    for name in MARKUP + HOSTILE + ["# head", "a|b", "1. item", "- item", "`code`", ":red[x] :material/home:",
                                    "~~gone~~", "line\nbreak", "back\\slash"]:
        out, i = markdown_literal(name), 0
        while i < len(out):  # every syntax character is escaped, and a backslash only ever escapes one
            if out[i] == "\\":
                assert i + 1 < len(out) and out[i + 1] in SYNTAX, out
                i += 2
            else:
                assert out[i] not in SYNTAX and out[i] != "\n", out
                i += 1
        assert re.sub(r"\\(.)", r"\1", out).replace(WORD_JOINER, "") == name.replace("\n", " ")


#: bare addresses GitHub's Markdown (Streamlit's) links by itself, escapes or not (checked in chromium: all 12 were
#: links before markdown_literal joined them, none after)
ADDRESSES = ["see http://example.com/a?b=1 now", "https://evil.example/login", "www.example.org", "WWW.EXAMPLE.ORG",
             "(www.example.org)", "mail me@example.com", "mailto:me@example.com", "xmpp:me@example.com",
             "ftp://files.example.com", "x@y.co"]


@pytest.mark.parametrize("text", ADDRESSES)
def test_markdown_literal_shows_a_bare_address_as_text_not_a_link(text):
    out = markdown_literal(text)
    read = re.sub(r"\\(.)", r"\1", out)  # what the autolink extension sees once the escapes are read
    assert not re.search(r"(?i)(?:https?|ftp):|www\.|@[a-z0-9]", read), read
    assert read.replace(WORD_JOINER, "") == text  # shown as typed: the joiner is invisible


#: text written to break out of a code span or to be read as Markdown, LaTeX or HTML
BREAKOUT = ["x`[click here](https://evil.example/login)`", "``", "` a `", " lead", "trail ", "```js", "a\\`b",
            "$x$ **bold** <b>h</b> _i_", "[a](javascript:alert(1))", "![img](x)", "# heading", "| a | b |",
            "&amp; &lt;", "x\ny"]


def _html_text(text: str) -> str:
    """``text`` as markdown-it writes a text node (its escaping of HTML's special characters)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@pytest.mark.parametrize("text", BREAKOUT + HOSTILE)
def test_user_text_in_a_message_is_shown_as_typed(text):
    """CommonMark's own reading (markdown-it) of the two ways the app writes user text into a message: a code
    span holds the text whatever backticks it has, and the literal form shows it with no markup (a line break,
    which a one-line message cannot hold, becomes a space)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    flat = text.replace("\n", " ")
    assert md.renderInline(code_span(text)) == f"<code>{_html_text(flat)}</code>"
    assert md.renderInline(markdown_literal(text)).replace(WORD_JOINER, "") == _html_text(flat)
