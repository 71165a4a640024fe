"""The roofline chart: each winner's GFLOP/s against its arithmetic intensity
(FLOPs / least bytes moved, problem_bytes.py), under the device's roof
min(peak GFLOP/s, bandwidth GB/s x intensity) when its limits are known.

The roof's peak is the one `beast tune` measured on the device
(peak_gflops_measured in devices.limits_json, with peak_method saying how; see
beast/tuner/tune_baselines.cpp) when there is one, since it is what the kernels
can reach through the same compiler; else the specification's peak_gflops (a
spec table or an import). The bandwidth is the one beast measured
(bandwidth_gbs_measured, a STREAM microbenchmark) when there is one, else
the specification's bandwidth_gbs. Both are 0 when
unknown (beast/problem/device_json.cpp); the chart then says so and plots the
points alone. The caption names each device's peak source. A winner whose
problem has no known size (op other than conv2d and gemm) or no FLOP count
cannot be placed, and the caption lists it.

An f64 winner's arithmetic is fp64's: where beast measured the device's
fp64 peak (peak_gflops_f64_measured, beside the fp32 one), its roof is a
dash-dot line the caption names, as beast tune's %peak of an f64 problem
is against it; where it did not, the caption says that the flat part of the
roof drawn, the fp32 peak, is not such a point's own. f64 winners are drawn as squares.

A winner of a tensor-core template (`tensor_cores: true` in its space file,
as gemm/mma and conv2d/implicit_gemm_mma say) is drawn as a cross and named
in the caption: the roof's peak is the FMA peak beast measures, which tensor
cores exceed many times over, so such a point is not judged against it.
Where beast measured the tensor cores' peak of the point's mma input type
(peak_gflops_tensor_{f16,bf16,tf32}_measured in limits_json: the mma.sync
microbenchmark, the roof beast tune gives its %peak against), that peak is a
dashed line the caption names. The space file is the shipped
one (kernel_templates/ beside this package), found by the template's name:
a template from another --templates folder is taken for FMA arithmetic,
unless it bears the name of a shipped tensor-core one.
"""

import json
from collections import namedtuple

import yaml

from beast_analysis.paths import TEMPLATES_DIR
from beast_analysis.plot_style import figure, message_figure, save, wrap
from beast_analysis.problem_bytes import min_bytes
from beast_analysis.report_html import number

# gflops and bandwidth are None when unknown; source says where gflops came
# from ("measured: HOW" or "specification"), None with it.
Peaks = namedtuple("Peaks", "gflops source bandwidth")


def device_peaks(limits_json):
    """The device's Peaks: the measured peak when there is one, else the specification's."""
    try:
        limits = json.loads(limits_json or "{}")
    except json.JSONDecodeError:
        limits = {}
    if not isinstance(limits, dict):
        limits = {}

    def known(name):
        value = limits.get(name)
        valid = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
        return float(value) if valid else None

    measured, specified = known("peak_gflops_measured"), known("peak_gflops")
    # The bandwidth beast measured (a STREAM microbenchmark) before the spec's.
    bandwidth = known("bandwidth_gbs_measured") or known("bandwidth_gbs")
    if measured:
        method = limits.get("peak_method")
        how = method if isinstance(method, str) and method else "method not recorded"
        return Peaks(measured, f"measured: {how}", bandwidth)
    if specified:
        return Peaks(specified, "specification", bandwidth)
    return Peaks(None, None, bandwidth)


def peak_sources_note(devices, limits_by_device):
    """One sentence naming the peak each device's roof uses."""
    parts = []
    for device in devices:
        peaks = device_peaks(limits_by_device.get(device, "{}"))
        if peaks.gflops:
            parts.append(f"{device}: {number(peaks.gflops)} GFLOP/s, {peaks.source}")
        else:
            parts.append(f"{device}: unknown")
    return "Peak FLOP/s of the roof: " + "; ".join(parts) + "."


def tensor_core_templates(names, templates_dir=TEMPLATES_DIR):
    """The names among `names` whose space file under templates_dir says
    `tensor_cores: true`; one without a readable space file there is not."""
    found = set()
    for name in names:
        try:
            with open(templates_dir / (name + ".space.yaml")) as f:
                spec = yaml.safe_load(f)
        except (OSError, ValueError, yaml.YAMLError):
            continue
        if isinstance(spec, dict) and spec.get("tensor_cores") is True:
            found.add(name)
    return found


def tensor_peaks(limits_json):
    """{mma input type: the tensor cores' measured peak in GFLOP/s} of a
    device's limits_json, the types with a positive number only."""
    try:
        limits = json.loads(limits_json or "{}")
    except json.JSONDecodeError:
        return {}
    if not isinstance(limits, dict):
        return {}
    found = {}
    for name in ("f16", "bf16", "tf32"):
        value = limits.get(f"peak_gflops_tensor_{name}_measured")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            found[name] = float(value)
    return found


def _fields(problem):
    """{name: value} of a problem key's fields ("gemm:M=64,dtype=f16")."""
    return dict(f.split("=", 1) for f in problem.split(":", 1)[-1].split(",") if "=" in f)


def is_f64(problem):
    """Whether a problem key computes in double precision."""
    return _fields(problem).get("dtype") == "f64"


def f64_peak(limits_json):
    """The fp64 peak beast measured on a device (GFLOP/s), or None."""
    try:
        limits = json.loads(limits_json or "{}")
    except json.JSONDecodeError:
        return None
    value = limits.get("peak_gflops_f64_measured") if isinstance(limits, dict) else None
    valid = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    return float(value) if valid else None


def mma_input(problem):
    """The mma input type a tensor-core template computes a problem key
    with: f16, bf16, tf32 (an f32 problem with math=tf32), or None."""
    fields = _fields(problem)
    if fields.get("dtype") in ("f16", "bf16"):
        return fields["dtype"]
    if fields.get("math") == "tf32":
        return "tf32"
    return None


def place(winner, flops):
    """(intensity, gflops) of a winner, or a reason it cannot be placed."""
    nbytes = min_bytes(winner["problem"])
    if nbytes is None:
        return None, f"{winner['problem']} (op {winner['op']}: bytes moved unknown)"
    if not flops:
        return None, f"{winner['problem']} (FLOP count unknown)"
    return (flops / nbytes, flops / (winner["median_ms"] * 1e6)), ""


def plot(winner_rows, flops_by_problem, limits_by_device, path):
    """One panel per device. limits_by_device: device name -> limits_json."""
    title = "Roofline: winners' GFLOP/s against arithmetic intensity"
    if not winner_rows:
        message_figure(path, title, "No ok measurement: no winner to place.")
        return ""
    devices = sorted({row["device"] for row in winner_rows})
    tensor_cores = tensor_core_templates(sorted({row["template"] for row in winner_rows}))
    fig, axes = figure(8, 5 * len(devices), nrows=len(devices), squeeze=False, layout="constrained")
    unplaced, crosses, dashed, fp64_roofs, fp64_unknown = [], set(), [], [], []
    for ax, device in zip(axes[:, 0], devices):
        points = []
        for row in (r for r in winner_rows if r["device"] == device):
            point, reason = place(row, flops_by_problem.get(row["problem"], 0.0))
            if point is None:
                unplaced.append(f"{reason} on {device}")
            else:
                points.append((point, row))
                crosses |= {row["template"]} & tensor_cores
        # The tensor cores' peaks of the crosses' mma input types, where measured.
        measured = tensor_peaks(limits_by_device.get(device, "{}"))
        inputs = {mma_input(r["problem"]) for _, r in points if r["template"] in tensor_cores}
        lines = {i: measured[i] for i in sorted(inputs - {None}) if i in measured}
        dashed += [f"{i} {number(g)} GFLOP/s on {device}" for i, g in lines.items()]
        peaks = device_peaks(limits_by_device.get(device, "{}"))
        fp64 = None
        if any(is_f64(r["problem"]) for _, r in points):
            fp64 = f64_peak(limits_by_device.get(device, "{}"))
            if fp64:
                fp64_roofs.append(f"{number(fp64)} GFLOP/s on {device}")
            else:
                fp64_unknown.append(device)
        _panel(ax, device, points, peaks, tensor_cores, lines, fp64)
    fig.suptitle(title)
    save(fig, path)
    note = peak_sources_note(devices, limits_by_device)
    if crosses:
        note += (
            " Crosses: winners of tensor-core templates (%s), whose arithmetic is not bounded by "
            "the FMA peak of the roof, so they are not judged against it."
            % ", ".join(sorted(crosses))
        )
    if dashed:
        note += " Dashed: the tensor cores' measured peak (mma.sync) of " + "; ".join(dashed) + "."
    if fp64_roofs:
        note += (
            " Squares: f64 winners; dash-dot: their roof, the fp64 peak beast measured ("
            + "; ".join(fp64_roofs)
            + ")."
        )
    if fp64_unknown:
        note += (
            " f64 winners (squares) on %s: the fp64 peak was not measured; a flat roof drawn "
            "is the fp32 peak, not theirs." % ", ".join(fp64_unknown)
        )
    if unplaced:
        note += " Not placed: " + "; ".join(unplaced) + "."
    return note


def _panel(ax, device, points, peaks, tensor_cores=frozenset(), tensor_lines=None, fp64=None):
    peak, bandwidth = peaks.gflops, peaks.bandwidth
    origin = "measured" if peaks.source and peaks.source.startswith("measured") else "specification"
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte, least bytes moved)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(device, fontsize=10)
    ax.grid(which="both", alpha=0.3)
    xs = [p[0] for p, _ in points] or [1.0]
    lo, hi = min(xs) / 10, max(xs) * 10
    if peak and bandwidth:
        ridge = peak / bandwidth
        lo, hi = min(lo, ridge / 10), max(hi, ridge * 10)
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        ax.plot(
            grid,
            [min(peak, bandwidth * x) for x in grid],
            color="black",
            label=f"roof: {peak:g} GFLOP/s ({origin}), {bandwidth:g} GB/s",
        )
    elif peak:
        ax.axhline(
            peak, color="black", label=f"peak {peak:g} GFLOP/s ({origin}; bandwidth unknown)"
        )
    elif bandwidth:
        ax.plot(
            [lo, hi],
            [bandwidth * lo, bandwidth * hi],
            color="black",
            label=f"bandwidth {bandwidth:g} GB/s (peak FLOP/s unknown)",
        )
    if not (peak and bandwidth):
        ax.text(
            0.02,
            0.98,
            wrap(_unknown_note(peak, bandwidth), 60),
            transform=ax.transAxes,
            va="top",
            fontsize=8,
            color="darkred",
        )
    for (x, y), row in points:
        marker = "x" if row["template"] in tensor_cores else "s" if is_f64(row["problem"]) else "o"
        ax.scatter([x], [y], zorder=3, marker=marker)
        ax.annotate(
            wrap(f"{row['template']} {row['problem']}", 45),
            (x, y),
            fontsize=6,
            xytext=(4, 4),
            textcoords="offset points",
        )
    if fp64:
        label = f"fp64 peak: {fp64:g} GFLOP/s (measured), the roof of f64 winners"
        _other_roof(ax, fp64, bandwidth, (lo, hi), "-.", label)
    for name, gflops in (tensor_lines or {}).items():
        label = f"tensor cores, {name} mma.sync: {gflops:g} GFLOP/s (measured)"
        _other_roof(ax, gflops, bandwidth, (lo, hi), "--", label)
    if not points:
        ax.text(
            0.5,
            0.5,
            "no winner with a known arithmetic intensity",
            transform=ax.transAxes,
            ha="center",
            va="center",
        )
    ax.set_xlim(lo, hi)
    if points:
        ys = (
            [p[1] for p, _ in points]
            + ([peak] if peak else [])
            + ([fp64] if fp64 else [])
            + list((tensor_lines or {}).values())
        )
        ax.set_ylim(min(ys) / 10, max(ys) * 3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right", fontsize=8)


def _other_roof(ax, peak, bandwidth, xrange, linestyle, label):
    """A gray roof of another peak than the panel's (fp64's, the tensor
    cores'): min(peak, bandwidth x intensity) too, flat where the bandwidth
    is unknown."""
    if bandwidth:
        lo, hi = xrange
        grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
        ys = [min(peak, bandwidth * x) for x in grid]
        ax.plot(grid, ys, color="gray", linestyle=linestyle, label=label)
    else:
        ax.axhline(peak, color="gray", linestyle=linestyle, label=label)


def _unknown_note(peak, bandwidth):
    if not peak and not bandwidth:
        return "peak FLOP/s and bandwidth of this device unknown (0 or absent in its limits): points only, no roof"
    if not bandwidth:
        return "bandwidth of this device unknown (0 or absent in its limits): the peak alone"
    return (
        "peak FLOP/s of this device unknown (0 or absent in its limits): the bandwidth line alone"
    )
