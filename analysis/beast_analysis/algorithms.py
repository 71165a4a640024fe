"""The report's comparison of algorithms: for each (device, problem), the best
time of each template that tuned it (direct, implicit GEMM, Winograd, ...),
as grouped bars, the fastest marked, and the rows of the table beside it.

A time is what a caller of the tuned library waits for per convolution:
the whole convolution, except a config's prepare stages (conv2d/
winograd_split's filter transform), which the library runs once per weight
buffer (beast_conv2d_prepare); the table beside the plot gives their time
apart. The fused conv2d/winograd transforms its filters inside the timed
kernel.
"""

from beast_analysis.plot_style import figure, message_figure, save, short_problem

TITLE = "Best time per algorithm (template), per problem and device"


def by_problem(winner_rows):
    """[((device, problem), [(template, median_ms), ...] fastest first)], the
    problems tuned with at least one ok template, in order."""
    groups = {}
    for r in winner_rows:
        if r["median_ms"] is None or r["median_ms"] <= 0:
            continue
        groups.setdefault((r["device"], r["problem"]), []).append((r["template"], r["median_ms"]))
    return [(key, sorted(times, key=lambda t: t[1])) for key, times in sorted(groups.items())]


def prepare_times(winner_rows):
    """{(device, problem, template): prepare_ms} for the winners whose config
    has prepare stages (run once per weight buffer, not in median_ms)."""
    return {
        (r["device"], r["problem"], r["template"]): r["prepare_ms"]
        for r in winner_rows
        if r.get("prepare_ms") is not None
    }


def plot(winner_rows, path):
    groups = by_problem(winner_rows)
    if not groups:
        message_figure(path, TITLE, "No ok measurement: nothing to compare.")
        return ""
    templates = sorted({t for _, times in groups for t, _ in times})
    colors = {t: f"C{i % 10}" for i, t in enumerate(templates)}
    height = 1.2 + sum(0.35 * len(times) + 0.9 for _, times in groups)
    fig, ax = figure(10, height, layout="constrained")
    y, ticks, labels = 0.2, [], []
    for (device, problem), times in groups:
        # The problem's name above its bars (x in axes fractions: the axis is log).
        ax.text(
            0.005,
            y,
            f"{short_problem(problem, 90)}  ({device})",
            transform=ax.get_yaxis_transform(),
            fontsize=7,
            va="center",
        )
        y += 0.4
        for i, (template, ms) in enumerate(times):
            ax.barh(y, ms, color=colors[template], height=0.3)
            note = f"{ms:.4g} ms" + (
                "  fastest" if i == 0 and len(times) > 1 else f"  {ms / times[0][1]:.2f}x"
            )
            ax.text(ms, y, " " + note, va="center", fontsize=7)
            ticks.append(y)
            labels.append(template)
            y += 0.35
        y += 0.3
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_ylim(y - 0.2, -0.2)  # top to bottom, the first problem's name inside
    ax.set_xscale("log")
    ax.set_xlabel(
        "best median time (ms), log scale; the whole convolution (filter transforms included)"
    )
    ax.set_title(TITLE)
    save(fig, path)
    return ""
