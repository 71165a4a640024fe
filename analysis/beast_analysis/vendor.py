"""Tuned kernels against the vendor libraries: the report's table and plot of
each baseline (table baselines: CLBlast's Sgemm or Convgemm, ..., timed by
`beast tune` on the same device, problem and buffers) beside the tuned winner.

The tuned side is the fastest of the templates' winners (queries.winners) on
that device and problem, because a user of the tuned library gets the best of
them; the speed-up is the baseline's median / the winner's, as `beast tune`'s
"vs CLBlast" column. A baseline that did not run ok (unsupported, wrong_result,
...) is listed with its status and reason but has no speed-up.
"""

import contextlib

from beast_analysis.db import connect
from beast_analysis.plot_style import figure, message_figure, save, short_problem

_SQL = """
SELECT b.device_id, d.name AS device, p.key AS problem, b.library, b.routine, b.status,
       b.median_ms, b.error_text, b.library_version
FROM baselines b
JOIN devices d ON d.id = b.device_id
JOIN problems p ON p.id = b.problem_id
ORDER BY d.name, b.device_id, p.key, b.library, b.routine
"""

# How the libraries spell their names (the table stores them in lower case).
_DISPLAY = {"clblast": "CLBlast", "cublas": "cuBLAS", "cudnn": "cuDNN", "miopen": "MIOpen"}


def library_name(library, routine):
    return f"{_DISPLAY.get(library, library)} {routine}"


def compare(db_path, winner_rows, covered):
    """One dict per baseline of a (device_id, problem key) in covered: device,
    device_id, problem, library (display name and routine), version, status, reason,
    baseline_ms, template, config, tuned_ms (None without an ok tuned config),
    speedup (None unless both ran ok)."""
    fastest = {}
    for row in winner_rows:
        key = (row["device_id"], row["problem"])
        if key not in fastest or row["median_ms"] < fastest[key]["median_ms"]:
            fastest[key] = row
    with contextlib.closing(connect(db_path)) as connection:
        baselines = [
            b for b in connection.execute(_SQL) if (b["device_id"], b["problem"]) in covered
        ]
    result = []
    for b in baselines:
        tuned = fastest.get((b["device_id"], b["problem"]))
        ok = b["status"] == "ok" and b["median_ms"] is not None and b["median_ms"] > 0
        result.append(
            {
                "device": b["device"],
                "device_id": b["device_id"],
                "problem": b["problem"],
                "library": library_name(b["library"], b["routine"]),
                "version": b["library_version"],
                "status": b["status"],
                "reason": b["error_text"],
                "baseline_ms": b["median_ms"] if ok else None,
                "template": tuned["template"] if tuned else None,
                "config": tuned["config"] if tuned else None,
                "tuned_ms": tuned["median_ms"] if tuned else None,
                "speedup": b["median_ms"] / tuned["median_ms"] if ok and tuned else None,
            }
        )
    return result


def note(rows):
    """The caption: which baselines have no speed-up, and why."""
    failed = [r for r in rows if r["status"] != "ok"]
    untuned = [r for r in rows if r["status"] == "ok" and r["tuned_ms"] is None]
    parts = []
    if failed:
        parts.append(
            "Not plotted, the library did not run ok: "
            + "; ".join(
                f"{r['library']} on {r['problem']} ({r['device']}): {r['status']}"
                + (f", {r['reason']}" if r["reason"] else "")
                for r in failed
            )
            + "."
        )
    if untuned:
        parts.append(
            "Not plotted, no ok tuned config: "
            + "; ".join(f"{r['library']} on {r['problem']} ({r['device']})" for r in untuned)
            + "."
        )
    return " ".join(parts)


def plot(rows, path):
    """Bars of the speed-up over each baseline, on a log scale around 1."""
    title = "Tuned winner against each vendor library (baseline time / tuned time)"
    shown = [r for r in rows if r["speedup"] is not None]
    if not shown:
        why = (
            "No vendor baseline in the database (beast tune --baselines clblast measures CLBlast)."
            if not rows
            else "No baseline with both it and a tuned config measured ok."
        )
        message_figure(path, title, why)
        return note(rows)
    fig, ax = figure(10, 1.2 + 0.9 * len(shown), layout="constrained")
    speedups = [r["speedup"] for r in shown]
    # Bars from 1 (as fast as the library) to the speed-up: a log axis has no 0.
    ax.barh(
        range(len(shown)),
        [s - 1 for s in speedups],
        height=0.6,
        left=1,
        color=["tab:green" if s >= 1 else "tab:red" for s in speedups],
    )
    for i, s in enumerate(speedups):
        ax.annotate(
            f"{s:.3g}x", (s, i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=7
        )
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels(
        [
            f"{r['library']} ({r['template']})\n{short_problem(r['problem'])}\n{r['device']}"
            for r in shown
        ],
        fontsize=7,
    )
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xscale("log")
    ax.set_xlim(min(speedups + [1.0]) / 2, max(speedups + [1.0]) * 2)
    ax.set_xlabel(
        "speed-up of the tuned winner (log scale; right of 1: the tuned kernel is faster)"
    )
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.set_title(title)
    save(fig, path)
    return note(rows)
