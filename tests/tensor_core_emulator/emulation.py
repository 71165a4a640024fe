"""Runs a rendered tensor-core kernel (gemm/mma, conv2d/implicit_gemm_mma;
f16, bf16, and f32 with math=tf32) on the CPU emulator and compares its
output with a numpy float64 reference.

A case (cases.py) is a problem and a config. Its template variables,
launch geometry and shared-memory size come from the space file as beast
computes them (problem variables, the sm_90 device table, derived values,
`launch:`, its `before:` stages and workspace), so the emulated launches are
the tuner's; the source comes
from harness/render/render.py; cuda_to_cpp.py rewrites it for emu.hpp, g++
builds it, and the emulated launch checks races, bounds, fragments and
writes (emu.hpp) before the output is compared: for f32 within
1e-5 * sum |a||b| of the reference on TF32-rounded inputs, for f16 and bf16
exactly (small integer data, so every partial sum is exact).
Not checked: register pressure, spills, performance, and the hardware's own
summation order inside an mma (emulated in double, see emu.hpp).
"""

import hashlib
import importlib.util
import os
import subprocess
import tempfile
import threading
import zlib
from pathlib import Path

import numpy as np
from cases import SPACES, TEMPLATES, evaluate, load_space, problem_vars, resolve
from cuda_to_cpp import RewriteError, rewrite

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

_spec = importlib.util.spec_from_file_location("beast_render", REPO / "harness/render/render.py")
_render = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_render)
_render_lock = threading.Lock()  # one Jinja2 environment, several worker threads
_environment = []  # made on first use


def render(case, names, space):
    """The rendered source, with the variables beast's TemplateVars passes."""
    variables = {k: v for k, v in names.items() if not k.startswith("device_")}
    variables.update(
        LAYOUT=case.layout,
        KERNEL_NAME=space["kernel"],
        BACKEND="cuda",
        DTYPE="float",
        STORAGE=case.storage,
    )
    template = os.path.dirname(SPACES[case.op]) + "/" + space["source"]
    with _render_lock:
        if not _environment:
            _environment.append(_render.make_environment(str(TEMPLATES)))
        request = {"template": template, "vars": variables}
        reply = _render.render_request(_environment[0], str(TEMPLATES), request)
    if "source" not in reply:
        raise RuntimeError("%s does not render for %s: %s" % (template, case.id, reply["error"]))
    return reply["source"]


# ---- data, references, comparison ----


def tf32_round(a):
    """cvt.rna.tf32.f32: nearest, ties away from zero, to 10 mantissa bits."""
    u = a.astype(np.float32).view(np.uint32)
    rounded = (u + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return np.where((u & 0x7F800000) == 0x7F800000, u, rounded).astype(np.uint32).view(np.float32)


def encode(values, storage):
    if storage == "f32":
        return values.astype(np.float32)
    if storage == "f16":
        return values.astype(np.float16).view(np.uint16)
    u = values.astype(np.float32).view(np.uint32).astype(np.uint64)  # bf16: nearest even
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def decode(data, storage):
    if storage == "f32":
        return np.frombuffer(data, np.float32).astype(np.float64)
    u = np.frombuffer(data, np.uint16)
    if storage == "f16":
        return u.view(np.float16).astype(np.float64)
    return (u.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def make_data(rng, shape, storage):
    if storage == "f32":
        return rng.uniform(-1, 1, shape).astype(np.float32)
    return rng.integers(-3, 4, shape).astype(np.float32)  # sums exact in f32


def math_values(a, storage):
    """What the tensor cores multiply: f32 inputs rounded to TF32."""
    return (tf32_round(a) if storage == "f32" else a).astype(np.float64)


def compare(data, ref, absref, storage):
    """'' when data matches ref, else how it does not."""
    got = decode(data, storage)
    if got.size != ref.size:
        return "output of %d elements, %d expected" % (got.size, ref.size)
    if storage == "f32":
        bad = ~(np.abs(got - ref) <= 1e-5 * absref + 1e-30)
    else:
        bad = ~(got == decode(encode(ref.astype(np.float32), storage).tobytes(), storage))
    if not bad.any():
        return ""
    idx = np.flatnonzero(bad)[:3]
    return "%d of %d elements differ from the reference, e.g. %s" % (
        bad.sum(),
        got.size,
        ", ".join("[%d] %.6g instead of %.6g" % (i, got[i], ref[i]) for i in idx),
    )


def conv_reference(x, w, bias, p):
    """float64 cross-correlation; x [N][C][H][W], w [K][C/groups][R][S]."""
    N, C, H, W, K = (p[c] for c in "NCHWK")
    G, P, Q = p["groups"], p["P"], p["Q"]
    sh, sw, dh, dw = p["stride_h"], p["stride_w"], p["dilation_h"], p["dilation_w"]
    CG, KG = C // G, K // G
    xp = np.zeros((N, C, H + 2 * p["pad_h"], W + 2 * p["pad_w"]))
    xp[:, :, p["pad_h"] : p["pad_h"] + H, p["pad_w"] : p["pad_w"] + W] = x
    y = np.zeros((N, K, P, Q))
    for r in range(p["R"]):
        for s in range(p["S"]):
            patch = xp[
                :,
                :,
                r * dh : r * dh + sh * (P - 1) + 1 : sh,
                s * dw : s * dw + sw * (Q - 1) + 1 : sw,
            ]
            for g in range(G):
                y[:, g * KG : (g + 1) * KG] += np.einsum(
                    "ncpq,kc->nkpq",
                    patch[:, g * CG : (g + 1) * CG],
                    w[g * KG : (g + 1) * KG, :, r, s],
                )
    if bias is not None:
        y += bias[None, :, None, None]
    return y


def operands(case):
    """(input buffers in argument order, output bytes, reference, sum of
    |products| the tolerance scales with), reference in output order."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    st = case.storage
    eb = 4 if st == "f32" else 2
    if case.op == "gemm":
        m, n, k, ta, tb, col = case.shape
        a, b = make_data(rng, m * k, st), make_data(rng, k * n, st)
        # As harness/measure/reference.cpp: A(i, kk), B(kk, j); C row- or column-major.
        A, B = math_values(a, st), math_values(b, st)
        A = A.reshape(k, m).T if ta != col else A.reshape(m, k)
        B = B.reshape(n, k).T if tb != col else B.reshape(k, n)
        ref, absref = A @ B, np.abs(A) @ np.abs(B)
        if col:
            ref, absref = ref.T, absref.T
        return [encode(a, st), encode(b, st)], m * n * eb, ref.ravel(), absref.ravel()
    p = problem_vars(case)
    G, nhwc = p["groups"], case.layout == "NHWC"
    x = make_data(rng, (p["N"], p["C"], p["H"], p["W"]), st)  # logical NCHW
    w = make_data(rng, (p["K"], p["C"] // G, p["R"], p["S"]), st)
    bias = make_data(rng, (p["K"],), st) if p["bias"] else None
    order = (0, 2, 3, 1) if nhwc else (0, 1, 2, 3)
    inputs = [encode(np.ascontiguousarray(t.transpose(order)), st) for t in (x, w)]
    if bias is not None:
        inputs.append(encode(bias, st))
    xm, wm = math_values(x, st), math_values(w, st)
    bm = None if bias is None else bias.astype(np.float64)
    ref = conv_reference(xm, wm, bm, p).transpose(order)
    absref = conv_reference(np.abs(xm), np.abs(wm), None if bm is None else np.abs(bm), p)
    out_bytes = p["N"] * p["K"] * p["P"] * p["Q"] * eb
    return inputs, out_bytes, ref.ravel(), absref.transpose(order).ravel()


# ---- build and run ----

_MMA = {"f16": ("m16n8k16", "f16"), "bf16": ("m16n8k16", "bf16"), "f32": ("m16n8k8", "tf32")}


def _launches(space, names):
    """[(kernel, threads, grid (x, y, z), shared bytes)] as the tuner
    launches the config: the `before:` stages whose `when` holds, then the
    main kernel with the dynamic shared memory."""
    launch = space["launch"]
    stages = [st for st in launch.get("before", []) if evaluate(st.get("when", 1), names)]
    out = []
    for kernel, entry, shared in [(st["kernel"], st, 0) for st in stages] + [
        (space["kernel"], launch, evaluate(launch["dynamic_local_bytes"], names))
    ]:
        threads = evaluate(entry["local"][0], names)
        grid = [evaluate(g, names) for g in entry["global"]]
        if grid[0] % threads or [evaluate(x, names) for x in entry["local"][1:]] != [1, 1]:
            raise RewriteError(
                "a launch of %s (global %s, local %s): not a grid of 1-D blocks"
                % (kernel, entry["global"], entry["local"])
            )
        out.append((kernel, threads, (grid[0] // threads, grid[1], grid[2]), shared))
    return out


def translation_unit(case, source, names, space, n_inputs, workspace):
    """(C++ source of the emulated launches, '') or (None, why the kernels
    cannot run as the tuner would launch them). workspace: whether the
    config has one (a float buffer after the output)."""
    code, facts = rewrite(source)
    launches = _launches(space, names)
    element = "float" if case.storage == "f32" else "unsigned short"
    problems = []
    for kernel, threads, _, _ in launches:
        if kernel not in facts["kernels"]:
            raise RewriteError("the space launches %s, which the source does not define" % kernel)
        k = facts["kernels"][kernel]
        params = k["params"]
        expected = [True] * n_inputs + [False] + ([False] if workspace else [])
        if [c for _, _, c in params] != expected:
            raise RewriteError(
                "the kernel %s takes %s; the driver passes %d inputs, then the output%s"
                % (kernel, params, n_inputs, ", then the workspace" if workspace else "")
            )
        elements = [e for _, e, _ in params]
        if elements[: n_inputs + 1] != [element] * (n_inputs + 1) or elements[
            n_inputs + 1 :
        ] not in (
            [],
            ["float"],
        ):
            problems.append("%s's arguments %s for %s storage" % (kernel, params, case.storage))
        if k["launch_bound"] < threads:
            problems.append(
                "%s: %d threads launched, __launch_bounds__(%d)"
                % (kernel, threads, k["launch_bound"])
            )
    if (facts["mma_shape"], facts["mma_type"]) != _MMA[case.storage]:
        problems.append(
            "mma %s.%s for %s storage, where the emulator models %s.%s"
            % ((facts["mma_shape"], facts["mma_type"], case.storage) + _MMA[case.storage])
        )
    if facts["copy_cache"] == "cg" and facts["copy_bytes"] != 16:
        problems.append(
            "cp.async.cg of %s bytes (the PTX ISA allows 16 only)" % facts["copy_bytes"]
        )
    if problems:
        return None, "; ".join(problems)
    calls = []
    for i, (kernel, _, _, _) in enumerate(launches):
        args = ", ".join(
            "emu::Arg<%s%s>(%d)" % ("const " if const else "", e, a)
            for a, (_, e, const) in enumerate(facts["kernels"][kernel]["params"])
        )
        calls.append("    case %d: %s(%s); break;\n" % (i, kernel, args))
    program = (
        {"f16": "emu::kF16", "bf16": "emu::kBf16", "f32": "emu::kTf32"}[case.storage],
        facts["copy_bytes"] or 0,
        4 if case.storage == "f32" else 2,
    )
    table = ", ".join(
        "{%d, %d, %d, %d, %d}" % (shared, grid[0], grid[1], grid[2], threads)
        for _, threads, grid, shared in launches
    )
    return (
        "// Generated by tests/tensor_core_emulator/emulation.py: %s\n" % case.id
        + '#include "emu.hpp"\n'
        + code
        + "const emu::Program emu::kProgram = {%s, %d, %d};\n" % program
        + "const emu::Launch emu::kLaunches[] = {%s};\n" % table
        + "const int emu::kLaunchCount = %d;\n" % len(launches)
        + "void EmuLaunch(int launch) {\n  switch (launch) {\n%s  }\n}\n" % "".join(calls)
    ), ""


_runtime_lock = threading.Lock()


def _compile(command):
    """[] when g++ succeeds, else its first error lines."""
    r = subprocess.run(command, check=False, capture_output=True, text=True)
    if r.returncode == 0:
        return []
    return [line for line in r.stderr.splitlines() if "error" in line][:8] or [r.stderr[-2000:]]


def runtime(build_dir):
    """emu.cpp's object in build_dir, built once for its current text."""
    source = HERE / "emu.cpp"
    digest = hashlib.sha1(source.read_bytes() + (HERE / "emu.hpp").read_bytes()).hexdigest()[:16]
    obj = Path(build_dir) / ("emu_%s.o" % digest)
    with _runtime_lock:
        if not obj.exists():
            partial = obj.with_name(obj.name + ".%d" % os.getpid())
            errors = _compile(["g++", "-std=c++17", "-O2", "-c", str(source), "-o", str(partial)])
            if errors:
                raise RuntimeError("g++ cannot build %s:\n%s" % (source, "\n".join(errors)))
            os.replace(partial, obj)
    return obj


def build(code, build_dir):
    """(executable, '') or (None, g++'s complaint): the kernel's translation
    unit linked with the device model."""
    digest = hashlib.sha1(code.encode()).hexdigest()[:16]
    cpp, exe = Path(build_dir) / ("k_%s.cpp" % digest), Path(build_dir) / ("k_%s" % digest)
    if exe.exists():
        return exe, ""
    obj = runtime(build_dir)
    cpp.write_text(code)
    partial = exe.with_name(exe.name + ".%d.%d" % (os.getpid(), threading.get_ident()))
    errors = _compile(
        ["g++", "-std=c++17", "-O0", "-w", "-I", str(HERE), str(cpp), str(obj), "-o", str(partial)]
    )
    if errors:
        return None, "g++ cannot build the emulated kernel %s (a construct emu.hpp lacks?):\n%s" % (
            cpp,
            "\n".join(errors),
        )
    os.replace(partial, exe)
    return exe, ""


def run(exe, inputs, out_bytes, build_dir, timeout, workspace_bytes=0):
    """(output bytes, one line per kind of error the emulator reported) or
    (None, why it did not finish)."""
    with tempfile.TemporaryDirectory(dir=build_dir) as td:
        fin, fout = Path(td) / "in.bin", Path(td) / "out.bin"
        with open(fin, "wb") as f:
            f.writelines(
                np.int64(a.nbytes).tobytes() + np.int32(0).tobytes() + a.tobytes() for a in inputs
            )
            f.write(np.int64(out_bytes).tobytes() + np.int32(1).tobytes())
            if workspace_bytes:
                f.write(np.int64(workspace_bytes).tobytes() + np.int32(2).tobytes())
        try:
            r = subprocess.run(
                [exe, fin, fout], check=False, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return None, "the emulation ran past %d s" % timeout
        lines = r.stdout.strip().splitlines()
        if r.returncode not in (0, 1) or not lines or not lines[-1].startswith("RESULT"):
            return None, "the emulator crashed (status %d): %s" % (
                r.returncode,
                (r.stdout + r.stderr)[-1500:],
            )
        reports = [line[6:] for line in lines if line.startswith("ERROR ")]
        summary = []  # each kind of error: its first report (with its place) and count
        for count, what in (line[5:].split(" ", 1) for line in lines if line.startswith("KIND ")):
            first = next((r for r in reports if r.startswith(what + " (")), what)
            summary.append("%s x %s" % (first, count))
        return fout.read_bytes(), summary


def emulate(case, build_dir, mutate=None, timeout=600):
    """'OK', or 'FAIL: ' and what the emulator or the comparison found.
    mutate(source) -> source changes the rendered kernel first (the tests
    that show the emulator catches faults). RewriteError and InvalidConfig
    propagate: the case cannot be emulated at all."""
    space = load_space(case.op)
    names = resolve(case, space)
    source = render(case, names, space)
    if mutate:
        source = mutate(source)
    inputs, out_bytes, ref, absref = operands(case)
    launch = space["launch"]
    workspace_bytes = (
        evaluate(launch["workspace_bytes"], names) if "workspace_bytes" in launch else 0
    )
    code, why = translation_unit(case, source, names, space, len(inputs), workspace_bytes > 0)
    if code is None:
        return "FAIL: " + why
    exe, why = build(code, build_dir)
    if exe is None:
        return "FAIL: " + why
    out, errors = run(exe, inputs, out_bytes, build_dir, timeout, workspace_bytes)
    if out is None:
        return "FAIL: " + errors
    mismatch = compare(out, ref, absref, case.storage)
    if errors or mismatch:
        return "FAIL: " + "; ".join(errors + ([mismatch] if mismatch else []))
    return "OK"
