"""Files a user downloads, made safe for the program that opens them.

Column names and state labels come from uploaded CSVs, so a name such as ``=HYPERLINK(...)`` or ``@SUM(...)``
would run as a formula when an exported table is opened in a spreadsheet. As OWASP's CSV-injection guidance
recommends, every text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is prefixed
with a single quote, so it is shown as text; numbers stay numbers. (The CLI's ``sample`` and ``privatize`` write
data files meant to be read back, and keep values exactly.)
"""
from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["FORMULA_START", "neutralise", "csv_text", "figure_html", "markdown_literal"]

#: Leading characters that make a spreadsheet cell a formula (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """``value`` with a leading single quote when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_text(table) -> str:
    """CSV text of a DataFrame (or anything ``pandas.DataFrame`` accepts) with every text cell and column name
    neutralised; quoting as pandas does (RFC 4180)."""
    import pandas as pd

    df = table.copy() if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    for c in df.columns:
        if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c])):
            df[c] = df[c].astype(object).map(neutralise)
    df.columns = [neutralise(str(c)) for c in df.columns]
    return df.to_csv(index=False)


def figure_html(fig, title: str) -> str:
    """A self-contained HTML file of ``fig`` (plotly.js inlined: opens offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False},
                       default_width="100%", default_height=f"{fig.layout.height or 500}px").replace(
        "<head>", f"<head><title>{html.escape(title)}</title>", 1)


def code_span(text: Any) -> str:
    """``text`` as a Markdown code span, shown exactly as typed whatever it holds: the fence is one backtick longer
    than the longest run of backticks inside (CommonMark 0.31, §6.1), with a space inside each end when the text
    starts or ends with a backtick or a space (one such space each side is stripped); line breaks become spaces.
    Nothing in a code span is read as emphasis, a link, HTML or LaTeX."""
    t = str(text).replace("\r", " ").replace("\n", " ")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", t)), default=0) + 1)
    pad = " " if t[:1] in ("`", " ") or t[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{t}{pad}{fence}"


#: characters Markdown (CommonMark, GitHub tables) or its LaTeX extension ($…$) can read as syntax
_MARKDOWN_SYNTAX = set("\\`*_{}[]()<>#+-.!|$~:=&")


def markdown_literal(text: Any) -> str:
    """``text`` shown as typed in Markdown (Streamlit's captions, messages and labels): every ASCII punctuation
    character that could start emphasis, a link, a heading, a table, HTML or LaTeX ($…$) is backslash-escaped, which
    CommonMark defines for exactly these characters; line breaks become spaces. A bare web or e-mail address, which
    GitHub's Markdown (Streamlit's) links after reading the escapes, gets an invisible word joiner (U+2060) after
    its ``http``, ``https``, ``ftp`` or ``www`` and after its ``@``: it shows as typed, and is not a link."""
    out = []
    for ch in str(text):
        if ch in "\r\n":
            out.append(" ")
        elif ch in _MARKDOWN_SYNTAX:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return _AUTOLINK_START.sub("\\g<0>" + WORD_JOINER, "".join(out))


#: an invisible character that joins what it stands between (no break, no space): GitHub's Markdown autolinks
#: (``http://``, ``https://``, ``ftp://``, ``www.``, ``name@host.tld``) do not match across it
WORD_JOINER = "\u2060"
#: where an autolink of GitHub's Markdown would start or continue (the ':' and '.' after it already escaped)
_AUTOLINK_START = re.compile(r"(?i)(?:https?|ftp|www)(?=\\[:.])|@")
