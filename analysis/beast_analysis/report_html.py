"""The report's index.html: tables and the plots (linked local PNGs), with
inline CSS and no external reference, so it opens in a browser offline.

GENERATOR is the marker that tells output_dir a folder holds a previous
report, which `beast report` may replace.
"""

import html
import math

GENERATOR = '<meta name="generator" content="beast report">'

_CSS = """
body { font-family: sans-serif; margin: 2em; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }
code { font-size: 0.9em; word-break: break-all; }
p.note { color: #555; font-size: 0.9em; }
"""


def esc(value):
    return html.escape(str(value), quote=True)


def number(value, digits=4):
    """A float to `digits` significant digits, without an exponent from 0.001 to
    10^15 (13640, not 1.364e+04); an em dash when absent."""
    if value is None or math.isnan(value):
        return "\u2014"
    text = f"{value:.{digits}g}"
    if "e" in text and 1 <= abs(value) < 1e15:
        text = f"{float(text):.0f}"
    return text


def plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def table(headers, rows, numeric=()):
    """An HTML table; columns whose index is in numeric align right. Cells are escaped."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{esc(c)}</td>' if i in numeric else f"<td>{esc(c)}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>\n"
        for row in rows
    )
    return f"<table>\n<tr>{head}</tr>\n{body}</table>\n"


def figure(src, alt, note=""):
    note_html = f'<p class="note">{esc(note)}</p>\n' if note else ""
    return f'<img src="{esc(src)}" alt="{esc(alt)}">\n{note_html}'


def page(title, sections):
    """sections: [(heading, html)]; the headings also make the contents list."""
    contents = "".join(
        f'<li><a href="#s{i}">{esc(h)}</a></li>' for i, (h, _) in enumerate(sections)
    )
    body = "".join(
        f'<h2 id="s{i}">{esc(h)}</h2>\n{content}\n' for i, (h, content) in enumerate(sections)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"{GENERATOR}\n<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<ul>{contents}</ul>\n{body}</body>\n</html>\n"
    )
