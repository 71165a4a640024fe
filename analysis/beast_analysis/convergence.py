"""The report's convergence plot: for each (template, problem, device), the
best ok time found so far against the number of configs measured, one line
per search strategy, in the order the measurements were recorded. The
template's default config (measured first by every strategy) starts each
line. A strategy that reaches a low time in few measurements is what the
plot is for; it also shows when a search stopped improving.
"""

import math

from beast_analysis.plot_style import figure, group_label, message_figure, save

_GROUP = ["template", "problem", "device"]
_MAX_PANELS = 12  # pairs shown, those with the most measurements
_COLORS = {"model": "tab:blue", "random": "tab:orange", "exhaustive": "tab:green"}


def _is_ok(row):
    median = row["median_ms"]
    return row["status"] == "ok" and median is not None and not math.isnan(median) and median > 0


def trajectories(part):
    """{strategy: [best ok ms so far after each measurement]} of one pair's
    measurements (a DataFrame in id order). The default config belongs to
    every strategy's line; measurements from before strategies were recorded
    form the line "unrecorded". None stands for "nothing ok yet"."""
    defaults = [row for _, row in part.iterrows() if row["strategy"] == "default"]
    chosen = {}
    for _, row in part.iterrows():
        name = row["strategy"] or "unrecorded"
        if name != "default":
            chosen.setdefault(name, []).append(row)
    if not chosen and defaults:
        chosen["default"] = []
    lines = {}
    for name, rows in sorted(chosen.items()):
        best, line = None, []
        for row in defaults + rows:
            if _is_ok(row) and (best is None or row["median_ms"] < best):
                best = float(row["median_ms"])
            line.append(best)
        lines[name] = line
    return lines


def plot(frame, path):
    title = "Best time found against configs measured, per search strategy"
    if frame.empty:
        message_figure(path, title, "No measurement: nothing to plot.")
        return ""
    groups = sorted(frame.groupby(_GROUP, sort=True), key=lambda item: -len(item[1]))
    shown = groups[:_MAX_PANELS]
    columns = min(3, len(shown))
    rows = math.ceil(len(shown) / columns)
    fig, axes = figure(4.2 * columns, 3.2 * rows, layout="constrained", squeeze=False)
    for ax in axes.flat[len(shown) :]:
        ax.set_axis_off()
    for ax, (key, part) in zip(axes.flat, shown):
        for name, line in trajectories(part.sort_values("measurement_id")).items():
            xs = [i + 1 for i, v in enumerate(line) if v is not None]
            ys = [v for v in line if v is not None]
            if ys:
                ax.step(
                    xs, ys, where="post", label=f"{name} ({len(line)})", color=_COLORS.get(name)
                )
        ax.set_yscale("log")
        ax.set_xlabel("configs measured")
        ax.set_ylabel("best ms so far")
        ax.set_title(group_label(*key), fontsize=7)
        ax.grid(which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(title)
    save(fig, path)
    if len(groups) > len(shown):
        return f"The {len(shown)} pairs with the most measurements of {len(groups)}."
    return ""
