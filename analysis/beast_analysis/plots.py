"""The report's plots of measured times: their distribution per template and
problem, the effect of each parameter, tuned best against the baseline, and
failures by status. (The roofline and parameter importance have their own
modules.) Each function writes one PNG and returns a caption note (or "").

Times are compared within one (device, problem): the parameter plots show
each config's time relative to the best ok time of its template there, so
problems of different sizes can share one box.
"""

import math

import numpy

from beast_analysis.plot_style import figure, group_label, message_figure, save, wrap
from beast_analysis.queries import MEASUREMENT_STATUSES

_GROUP = ["template", "problem", "device"]
# Most distinct values a parameter's box plot shows one box each for.
_MAX_BOXES = 24
_STATUS_COLORS = {
    "compile_error": "tab:orange",
    "runtime_error": "tab:red",
    "crashed": "tab:purple",
    "timeout": "tab:brown",
    "wrong_result": "tab:pink",
    "pruned_after_compile": "tab:gray",
}


def ok_rows(frame):
    return frame[(frame["status"] == "ok") & frame["median_ms"].notna() & (frame["median_ms"] > 0)]


def times_distribution(frame, path):
    title = "Time of each ok config, per template, problem and device"
    ok = ok_rows(frame)
    if ok.empty:
        message_figure(path, title, "No ok measurement: nothing to plot.")
        return ""
    groups = [(key, part["median_ms"].to_numpy()) for key, part in ok.groupby(_GROUP, sort=True)]
    fig, ax = figure(10, 1.0 + 1.1 * len(groups), layout="constrained")
    _horizontal_boxplot(ax, [times for _, times in groups])
    jitter = numpy.random.default_rng(0)
    for i, (_, times) in enumerate(groups, start=1):
        # Every config as a dot (jittered vertically) shows the shape the box summarises.
        ax.scatter(
            times,
            i + jitter.uniform(-0.25, 0.25, len(times)),
            s=3,
            alpha=0.25,
            color="tab:blue",
            zorder=2,
            linewidths=0,
        )
    ax.set_yticks(range(1, len(groups) + 1))
    ax.set_yticklabels([group_label(*key, count=len(t)) for key, t in groups], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("median time (ms), log scale; a dot per config, whiskers from min to max")
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    save(fig, path)
    return ""


def _horizontal_boxplot(ax, arrays):
    try:
        ax.boxplot(arrays, orientation="horizontal", whis=(0, 100), widths=0.6, zorder=3)
    except TypeError:  # matplotlib < 3.10 has only vert=
        ax.boxplot(arrays, vert=False, whis=(0, 100), widths=0.6, zorder=3)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _boxes(values, relative):
    """(labels, arrays) of one parameter: a box per value, or per value range
    when there are more than _MAX_BOXES values."""
    import pandas

    series = pandas.Series(relative.to_numpy(), index=range(len(values)))
    distinct = sorted(
        set(values), key=lambda v: (not _is_number(v), v if _is_number(v) else str(v))
    )
    if len(distinct) <= _MAX_BOXES:
        return (
            [str(v) for v in distinct],
            [series[[i for i, v in enumerate(values) if v == d]].to_numpy() for d in distinct],
            "",
        )
    if all(_is_number(v) for v in distinct):
        bins = pandas.qcut(pandas.Series(values, dtype=float), q=12, duplicates="drop")
        labels = [f"{interval.left:g}..{interval.right:g}" for interval in bins.cat.categories]
        return (
            labels,
            [series[(bins == c).to_numpy()].to_numpy() for c in bins.cat.categories],
            "value ranges",
        )
    counts = pandas.Series([str(v) for v in values]).value_counts().index[:_MAX_BOXES]
    text = [str(v) for v in values]
    return (
        list(counts),
        [series[[i for i, v in enumerate(text) if v == c]].to_numpy() for c in counts],
        f"the {_MAX_BOXES} most frequent of {len(distinct)} values",
    )


def parameter_effects(frame, template, names, path):
    """Box plots of relative time per value of each parameter in names that
    takes more than one value among the ok configs of template."""
    title = f"{template}: time relative to the best config, per parameter value"
    ok = ok_rows(frame[frame["template"] == template])
    if ok.empty:
        message_figure(path, title, f"No ok measurement of {template}: nothing to plot.")
        return ""
    best = ok.groupby(["device_id", "problem_id"])["median_ms"].transform("min")
    relative = ok["median_ms"] / best
    varying = [n for n in names if len({str(p.get(n)) for p in ok["params"]}) > 1]
    constant = [n for n in names if n not in varying]
    note = f"Constant among the ok configs: {', '.join(constant)}." if constant else ""
    if not varying:
        message_figure(
            path, title, f"Every parameter of {template} has one value among its ok configs."
        )
        return note
    columns = min(3, len(varying))
    rows = math.ceil(len(varying) / columns)
    fig, axes = figure(
        4.2 * columns, 3.2 * rows, nrows=rows, ncols=columns, squeeze=False, layout="constrained"
    )
    for ax, name in zip(axes.flat, varying):
        labels, arrays, how = _boxes([p.get(name) for p in ok["params"]], relative)
        ax.boxplot(arrays, whis=(0, 100), widths=0.6)
        ax.set_xticks(range(1, len(labels) + 1))
        ax.set_xticklabels(labels, rotation=90 if len(labels) > 8 else 0, fontsize=7)
        ax.set_yscale("log")
        ax.set_title(name + (f" ({how})" if how else ""), fontsize=9)
        ax.grid(axis="y", which="both", alpha=0.3)
    for ax in list(axes.flat)[len(varying) :]:
        ax.set_axis_off()
    fig.supylabel("time / best time (log)")
    fig.suptitle(wrap(title, 100))
    save(fig, path)
    return note


def compared_times(row):
    """The winner's and the default's times its speed-up is computed from:
    their confirmed medians when both were re-measured side by side."""
    if row["confirmed_ms"] is not None and row.get("default_confirmed_ms") is not None:
        return row["confirmed_ms"], row["default_confirmed_ms"]
    return row["median_ms"], row["default_ms"]


def baseline(winner_rows, path):
    """Per (template, problem, device): the best time beside the default
    config's, joined by a line labelled with the speed-up."""
    title = "Tuned best against the template's default config"
    if not winner_rows:
        message_figure(path, title, "No ok measurement: no winner to compare.")
        return ""
    fig, ax = figure(10, 1.2 + 0.9 * len(winner_rows), layout="constrained")
    missing, labelled = 0, False
    for i, row in enumerate(winner_rows):
        best, default = compared_times(row)
        ax.scatter([best], [i], color="tab:blue", zorder=3, label="tuned best" if i == 0 else None)
        if default is None:
            missing += 1
            ax.annotate(
                "no default config measured ok",
                (best, i),
                xytext=(6, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
            )
            continue
        ax.plot([best, default], [i, i], color="tab:gray", zorder=2)
        ax.scatter(
            [default],
            [i],
            color="tab:gray",
            marker="s",
            zorder=3,
            label=None if labelled else "default config",
        )
        labelled = True
        ax.annotate(
            f"{row['speedup_vs_default']:.2f}x",
            (max(best, default), i),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    ax.set_yticks(range(len(winner_rows)))
    ax.set_yticklabels(
        [group_label(r["template"], r["problem"], r["device"]) for r in winner_rows], fontsize=7
    )
    ax.set_ylim(len(winner_rows) - 0.5, -0.5)
    ax.set_xscale("log")
    times = [t for r in winner_rows for t in compared_times(r) if t]
    ax.set_xlim(min(times) / 1.5, max(times) * 3)
    ax.set_xlabel("median time (ms), log scale")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    save(fig, path)
    if missing:
        return (
            f"{missing} of {len(winner_rows)} have no default config measured ok, so no baseline."
        )
    return ""


def failures(frame, path):
    """Stacked bars of the failed measurements per status, per template, problem, device."""
    title = "Failed configs by status"
    if frame.empty:
        message_figure(path, title, "No measurement in the database.")
        return ""
    # Not failures: ran ok, or compiled for a device that is not present.
    failed = frame[~frame["status"].isin(("ok", "compiled"))]
    if failed.empty:
        message_figure(path, title, f"No failures: all {len(frame)} measurements are ok.")
        return ""
    counts = frame.groupby(_GROUP + ["status"]).size().unstack(fill_value=0)
    fig, ax = figure(10, 1.0 + 1.1 * len(counts), layout="constrained")
    left = [0] * len(counts)
    for status in MEASUREMENT_STATUSES:
        if status in ("ok", "compiled") or status not in counts.columns or not counts[status].any():
            continue
        ax.barh(
            range(len(counts)),
            counts[status],
            left=left,
            color=_STATUS_COLORS[status],
            label=status,
            height=0.6,
        )
        left = [a + b for a, b in zip(left, counts[status])]
    ok = counts["ok"] if "ok" in counts.columns else [0] * len(counts)
    ax.set_yticks(range(len(counts)))
    ax.set_yticklabels(
        [group_label(*key) + f"\n{n} ok" for key, n in zip(counts.index, ok)], fontsize=7
    )
    ax.invert_yaxis()
    ax.set_xlabel("failed configs")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    save(fig, path)
    return ""
