"""What every report plot shares: the Agg backend (no display, no network),
label shortening, saving, and the figure that says why a plot has no data.

Every plot of the report is always written, with a sentence in place of the
data when there is none, so the page has the same sections for every
database.
"""

import textwrap

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, works without a display

import matplotlib.pyplot as plt

DPI = 100


def figure(width, height, **subplots):
    return plt.subplots(figsize=(width, height), **subplots)


def save(fig, path):
    """Writes fig as a PNG at path and closes it. No Software tag: the file
    carries no URL."""
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)


def message_figure(path, title, message):
    """A figure holding only a title and a sentence: the plot's data is missing."""
    fig, ax = figure(8, 2.5)
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, wrap(message, 90), ha="center", va="center", transform=ax.transAxes)
    save(fig, path)


def wrap(text, width=40):
    return "\n".join(
        textwrap.wrap(str(text), width, break_long_words=True, break_on_hyphens=False)
    ) or str(text)


def short_problem(key, width=40):
    """A problem key wrapped at its commas, for an axis label."""
    return "\n".join(textwrap.wrap(key.replace(",", ", "), width)).replace(", ", ",")


def group_label(template, problem, device, count=None):
    """template / problem / device on separate lines (problem wrapped)."""
    tail = f" (n={count})" if count is not None else ""
    return f"{template}{tail}\n{short_problem(problem)}\n{device}"
