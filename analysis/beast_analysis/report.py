"""`beast report`: an HTML page with plots of a result database.

DIR/index.html links PNGs under DIR/plots/: time distributions, the effect of
each parameter and its importance (per template), tuned best against the
default config and against each vendor library's baseline, a roofline of the
winners (under the measured peak where there is one), failures by status, and
how each search strategy converged (best time so far against configs
measured). The folder is written beside DIR and renamed into place when
complete (output_dir.py).
"""

import datetime
import os
import re

from beast_analysis import (
    algorithms,
    convergence,
    device_labels,
    importance,
    measurements,
    plots,
    roofline,
    vendor,
)
from beast_analysis.errors import InputError
from beast_analysis.output_dir import replacing
from beast_analysis.paths import shown_path
from beast_analysis.plot_style import message_figure
from beast_analysis.queries import MEASUREMENT_STATUSES, winners
from beast_analysis.report_html import GENERATOR, esc, figure, number, page, plural, table


def _slug(text, taken):
    base = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_") or "template"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}_{n}", n + 1
    taken.add(slug)
    return slug


def _check_params(frame, db_path, params):
    known = []
    for template in sorted(frame["template"].unique()):
        known += [n for n in measurements.param_names(frame, template) if n not in known]
    for name in params or ():
        if name not in known:
            raise InputError(
                f'--param "{name}": no such parameter in {db_path} (parameters: {", ".join(known) or "none"})'
            )


def _summary(frame, db_path, filters):
    counts = {s: int((frame["status"] == s).sum()) for s in MEASUREMENT_STATUSES}
    chosen = ", ".join(f"--{k} {v}" for k, v in filters.items() if v) or "none"
    counted = ", ".join(
        plural(frame[column].nunique(), noun)
        for column, noun in (
            ("config_id", "config"),
            ("template", "template"),
            ("problem", "problem"),
            ("device", "device"),
        )
    )
    intro = (
        f"<p>Database <code>{esc(shown_path(db_path))}</code>, filters: {esc(chosen)}. "
        f"{plural(len(frame), 'measurement')}: {counted} (the newest version of each "
        f"template).</p>\n"
    )
    devices = frame.drop_duplicates("device")[["device", "backend", "limits_json"]]
    device_rows = []
    for _, d in devices.iterrows():
        peaks = roofline.device_peaks(d["limits_json"])
        device_rows.append(
            (
                d["device"],
                d["backend"],
                number(peaks.gflops) if peaks.gflops else "unknown",
                peaks.source or "\u2014",
                number(peaks.bandwidth) if peaks.bandwidth else "unknown",
            )
        )
    return (
        intro
        + table(["status", "measurements"], list(counts.items()), numeric={1})
        + table(
            ["device", "backend", "peak GFLOP/s", "peak source", "bandwidth GB/s"],
            device_rows,
            numeric={2, 4},
        )
    )


def _winners_table(rows, flops):
    body = []
    for r in rows:
        gflops = (
            flops.get(r["problem"], 0) / (r["median_ms"] * 1e6)
            if flops.get(r["problem"])
            else r["gflops"]
        )
        body.append(
            (
                r["device"],
                r["problem"],
                r["template"],
                r["config"],
                number(r["median_ms"]),
                number(gflops),
                number(r["default_ms"]),
                number(r["speedup_vs_default"], 3),
            )
        )
    return table(
        [
            "device",
            "problem",
            "template",
            "config",
            "median ms",
            "GFLOP/s",
            "default ms",
            "speed-up",
        ],
        body,
        numeric={4, 5, 6, 7},
    )


def _vendor_section(rows, plot):
    body = [
        (
            r["device"],
            r["problem"],
            r["library"],
            r["version"] or "\u2014",
            r["status"] + (f": {r['reason']}" if r["reason"] else ""),
            number(r["baseline_ms"]),
            r["template"] or "\u2014",
            r["config"] or "\u2014",
            number(r["tuned_ms"]),
            number(r["speedup"], 3),
        )
        for r in rows
    ]
    if not rows:
        return (
            plot("vendor.png", vendor.plot, rows)
            + "<p>No vendor library baseline for these devices "
            "and problems (<code>beast tune --baselines clblast</code> measures CLBlast).</p>\n"
        )
    return (
        plot("vendor.png", vendor.plot, rows)
        + "<p>Speed-up = the library's median time / the tuned winner's (the fastest template "
        "on that device and problem).</p>\n"
        + table(
            [
                "device",
                "problem",
                "library",
                "version",
                "status",
                "baseline ms",
                "tuned template",
                "tuned config",
                "tuned ms",
                "speed-up",
            ],
            body,
            numeric={5, 8, 9},
        )
    )


def _algorithm_section(rows, plot):
    prepare = algorithms.prepare_times(rows)
    body = [
        (
            device,
            problem,
            template,
            number(ms),
            "fastest" if i == 0 else f"{ms / times[0][1]:.2f}x",
            number(prepare[(device, problem, template)])
            if (device, problem, template) in prepare
            else "-",
        )
        for (device, problem), times in algorithms.by_problem(rows)
        for i, (template, ms) in enumerate(times)
    ]
    return (
        plot("algorithms.png", algorithms.plot, rows)
        + "<p>Each template's best time per problem: the algorithm is a tuning choice. "
        "A time is the whole convolution, except the prepare stages of a config that has "
        "them (conv2d/winograd_split's filter transform): the exported library runs those "
        "once per weight buffer (<code>beast_conv2d_prepare</code>), and their time is the "
        "column <i>prepare ms</i>, not in <i>best ms</i>. The fused conv2d/winograd "
        "transforms its filters inside the timed kernel.</p>\n"
        + table(
            ["device", "problem", "template", "best ms", "vs fastest", "prepare ms"],
            body,
            numeric={3, 5},
        )
    )


def _template_section(frame, template, names, param_filter, plot_dir, slug, files):
    shown = [n for n in names if n in param_filter] if param_filter else names
    effect = f"params_{slug}.png"
    if shown:
        note = plots.parameter_effects(frame, template, shown, plot_dir / effect)
    else:
        note = ""
        message_figure(
            plot_dir / effect,
            f"{template}: effect of each parameter",
            f"No --param names a parameter of {template}.",
        )
    result = importance.fit(frame, template, names)
    bars = f"importance_{slug}.png"
    importance_note = importance.plot(result, template, plot_dir / bars)
    files += [effect, bars]
    ranking = (
        table(
            ["parameter", "importance"], [(n, f"{v:.3f}") for n, v in result.ranking], numeric={1}
        )
        if result
        else ""
    )
    return (
        f"<h3>Effect of each parameter on time</h3>\n{figure('plots/' + effect, template, note)}"
        f"<h3>Parameter importance</h3>\n{figure('plots/' + bars, template, importance_note)}{ranking}"
    )


def build(db_path, out_dir, *, device=None, problem=None, template=None, params=None):
    """Writes the report; returns {"out": out_dir, "files": [...]} (paths relative to out_dir)."""
    filters = {"device": device, "problem": problem, "template": template}
    frame = measurements.load(db_path, **filters)
    _check_params(frame, db_path, params)
    rows = winners(db_path, **filters)
    # The baselines shown are those of the (device, problem) pairs the filters select.
    covered = {(int(d), p) for d, p in zip(frame["device_id"], frame["problem"])}
    baselines = vendor.compare(db_path, rows, covered)
    # Every table and plot groups by device row, not by name (device_labels.py).
    device_labels.relabel(db_path, frame, rows, baselines)
    flops = dict(zip(frame["problem"], frame["flops"]))
    limits = dict(zip(frame["device"], frame["limits_json"]))
    files = []
    with replacing(out_dir, "index.html", GENERATOR, "beast report") as work:
        plot_dir = work / "plots"
        plot_dir.mkdir()

        def plot(name, draw, *args):
            files.append(name)
            return figure("plots/" + name, name, draw(*args, plot_dir / name))

        sections = [
            ("Summary", _summary(frame, db_path, filters)),
            ("Winners", _winners_table(rows, flops) if rows else "<p>No ok measurement.</p>"),
            ("Distribution of times", plot("times.png", plots.times_distribution, frame)),
            ("Tuned best against the default config", plot("baseline.png", plots.baseline, rows)),
            ("Best time per algorithm", _algorithm_section(rows, plot)),
            (
                "Tuned against vendor libraries",
                _vendor_section(baselines, plot),
            ),
            ("Roofline", plot("roofline.png", roofline.plot, rows, flops, limits)),
            ("Failures by status", plot("failures.png", plots.failures, frame)),
            ("Search convergence", plot("convergence.png", convergence.plot, frame)),
        ]
        taken = set()
        for name in sorted(frame["template"].unique()):
            names = measurements.param_names(frame, name)
            sections.append(
                (
                    f"Template {name}",
                    _template_section(
                        frame, name, names, params, plot_dir, _slug(name, taken), files
                    ),
                )
            )
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        (work / "index.html").write_text(
            page(f"beast report ({stamp})", sections), encoding="utf-8"
        )
    return {"out": os.fspath(out_dir), "files": ["index.html"] + [f"plots/{f}" for f in files]}
