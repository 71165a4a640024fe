#!/usr/bin/env python3
"""What the tensor-core templates' K loop issues besides mma (issue 17): the
instruction mix of the main loop of gemm/mma and conv2d/implicit_gemm_mma as
ptxas compiles it for sm_90, without a GPU.

Each case is compiled by `beast tune --device cuda:sm_90` (compile-only,
NVRTC) with its config pinned by hard constraints into a fresh program cache;
the cubin is taken from the cache entry and disassembled by cuobjdump -sass.
The main loop is the backward branch whose body holds the most HMMA. Printed
per case: the loop's instructions, its HMMA, LDSM and LDGSTS, the other
instructions per HMMA (address arithmetic, bounds checks, moves: the issue
slots a warp spends beside the tensor cores), the same over the whole kernel
("whole": the loop run once per K tile, the rest of the code, set-up and
stores, once; an estimate, as the rest has branches), the registers and
spills, and
the global stores in the kernel (STG: the epilogue's, a thread's share of
its warp's outputs).

The cases are the winners of the H200 lease's tunings (README, The second
lease) and each template's default. Not a CTest test: about 10 s per case.
cuobjdump is not in the CUDA toolkit Debian ships here: the script takes it
from $CUOBJDUMP, the PATH, the toolkit, or installs PyPI's
nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (which -sass runs) into .venv.
Usage: tests/bench/mma_loop_mix.py [--case NAME ...] [--json] [--templates DIR]
(DIR: e.g. an earlier commit's kernel_templates, from `git worktree add`)
Environment: BEAST (the beast binary, default build/beast/beast).
"""

import argparse
import collections
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BEAST = os.environ.get("BEAST", os.path.join(ROOT, "build", "beast", "beast"))


def conv(c, hw, layout="NHWC", dtype="f16"):
    return "conv2d:N=32,C=%d,H=%d,W=%d,K=%d,R=3,S=3,pad=1,layout=%s,dtype=%s" % (
        c,
        hw,
        hw,
        c,
        layout,
        dtype,
    )


GEMM = "gemm:M=4096,N=4096,K=4096,dtype=f16"
# The H200 lease's winners (/tmp/gpu_final.db of 2026-11-28), then defaults.
CASES = [
    (
        "gemm 4096 winner",
        "gemm/mma",
        GEMM,
        dict(BM=128, BN=128, BK=64, WM=64, WN=64, STAGES=3, VEC=8, PAD=8, SWZ=4, SPLITK=1),
    ),
    (
        "conv 64@56 winner",
        "conv2d/implicit_gemm_mma",
        conv(64, 56),
        dict(BM=128, BN=64, BK=64, WM=64, WN=32, STAGES=3, VEC=8, PAD=8, SWZ=1, SPLITK=1),
    ),
    (
        "conv 128@28 winner",
        "conv2d/implicit_gemm_mma",
        conv(128, 28),
        dict(BM=64, BN=128, BK=64, WM=32, WN=32, STAGES=4, VEC=8, PAD=8, SWZ=1, SPLITK=1),
    ),
    (
        "conv 256@14 winner",
        "conv2d/implicit_gemm_mma",
        conv(256, 14),
        dict(BM=64, BN=128, BK=64, WM=32, WN=32, STAGES=2, VEC=8, PAD=8, SWZ=1, SPLITK=1),
    ),
    (
        "conv 512@7 winner",
        "conv2d/implicit_gemm_mma",
        conv(512, 7),
        dict(BM=64, BN=128, BK=64, WM=32, WN=32, STAGES=4, VEC=8, PAD=8, SWZ=8, SPLITK=1),
    ),
    (
        "conv 64@56 NCHW winner",
        "conv2d/implicit_gemm_mma",
        conv(64, 56, "NCHW"),
        dict(BM=64, BN=128, BK=16, WM=64, WN=32, STAGES=3, VEC=8, PAD=8, SWZ=1, SPLITK=1),
    ),
    ("gemm 4096 default", "gemm/mma", GEMM, None),
    ("conv 64@56 default", "conv2d/implicit_gemm_mma", conv(64, 56), None),
    ("conv 256@14 default", "conv2d/implicit_gemm_mma", conv(256, 14), None),
    ("conv 64@56 NCHW default", "conv2d/implicit_gemm_mma", conv(64, 56, "NCHW"), None),
    ("conv 512@7 NCHW default", "conv2d/implicit_gemm_mma", conv(512, 7, "NCHW"), None),
    (
        "conv 128@28 NCHW tf32 default",
        "conv2d/implicit_gemm_mma",
        conv(128, 28, "NCHW", "f32") + ",math=tf32",
        None,
    ),
    ("gemm 4096 tf32 default", "gemm/mma", "gemm:M=4096,N=4096,K=4096,dtype=f32,math=tf32", None),
]


def find_cuobjdump():
    """A cuobjdump binary, installed into .venv from PyPI when none is here."""
    found = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    if nvcc and os.path.exists(os.path.join(os.path.dirname(nvcc), "cuobjdump")):
        return os.path.join(os.path.dirname(nvcc), "cuobjdump")
    pattern = os.path.join(
        ROOT, ".venv", "lib", "python3*", "site-packages", "nvidia", "*", "bin", "cuobjdump"
    )
    if not glob.glob(pattern) or not glob.glob(pattern.replace("cuobjdump", "nvdisasm")):
        pip = os.path.join(ROOT, ".venv", "bin", "pip")
        # cuobjdump -sass runs nvdisasm, which it looks for beside itself.
        print(
            "installing cuobjdump and nvdisasm (PyPI nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) into .venv",
            file=sys.stderr,
        )
        subprocess.run(
            [pip, "install", "-q", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm"], check=True
        )
    path = glob.glob(pattern)[0]
    for tool in glob.glob(os.path.join(os.path.dirname(path), "*")):
        os.chmod(tool, 0o755)
    return path


def compile_cubin(template, problem, config, work, templates=None):
    """The cubin of config (None: the default) of template on problem."""
    cache = tempfile.mkdtemp(dir=work)
    args = [BEAST, "tune", "--device", "cuda:sm_90", "--template", template, "--problem", problem]
    args += ["--db", os.path.join(cache, "r.db"), "--cache-dir", os.path.join(cache, "programs")]
    if templates:
        args += ["--templates", templates]
    if config:
        pinned = " and ".join("%s == %d" % kv for kv in config.items())
        args += ["--max-configs", "0", "--constraint", "hard: " + pinned]
    else:
        args += ["--max-configs", "1"]
    r = subprocess.run(args, check=False, capture_output=True, text=True)
    entries = glob.glob(os.path.join(cache, "programs", "*.clprog"))
    if r.returncode != 0 or len(entries) != 1:
        sys.exit(
            "%s on %s: the compile-only run failed:\n%s%s" % (template, problem, r.stdout, r.stderr)
        )
    with open(entries[0], "rb") as f:
        data = f.read()
    elf = data.find(b"\x7fELF")
    path = os.path.join(cache, "k.cubin")
    with open(path, "wb") as f:
        f.write(data[elf:])
    with sqlite3.connect(os.path.join(cache, "r.db")) as db:
        registers, spills, params = db.execute(
            "select registers, spill_bytes, params_json from measurements m"
            " join configs c on c.id = m.config_id"
        ).fetchone()
    return path, registers, spills, json.loads(params)


def k_tiles(problem, config):
    """The K loop's trip count: the GEMM's K (a conv's C R S) over BK."""
    dims = dict(kv.split("=") for kv in problem.split(":")[1].split(","))
    reduction = (
        int(dims["K"])
        if problem.startswith("gemm")
        else int(dims["C"]) * int(dims["R"]) * int(dims["S"])
    )
    return -(-reduction // config["BK"])


def loop_mix(cuobjdump, cubin):
    """The opcode counts of the loop with the most HMMA."""
    sass = subprocess.run(
        [cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True
    ).stdout
    code = []
    for line in sass.splitlines():
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            code.append((int(m.group(1), 16), m.group(2)))
    best = None
    for at, text in code:
        target = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", text)
        if target and int(target.group(1), 16) < at:
            body = [t for a, t in code if int(target.group(1), 16) <= a <= at]
            hmma = sum("HMMA" in t for t in body)
            if best is None or hmma > best[0]:
                best = (hmma, body)
    if best is None or best[0] == 0:
        sys.exit("%s: no loop with HMMA in its SASS" % cubin)
    ops = collections.Counter(
        re.sub(r"^@!?U?P\w+\s+", "", t).split()[0].split(".")[0] for t in best[1]
    )
    stores = sum(1 for _, t in code if re.search(r"\bSTG\b", t))
    return len(best[1]), ops, stores, len(code)


def report(options, cuobjdump, work):
    """Compiles and prints the cases options names (all by default)."""
    if not options.json:
        print(
            "%-24s %6s %5s %5s %6s %9s %9s %5s %6s %6s"
            % (
                "case",
                "loop",
                "HMMA",
                "LDSM",
                "LDGSTS",
                "other/mma",
                "whole",
                "regs",
                "spills",
                "stores",
            )
        )
    for name, template, problem, config in CASES:
        if options.case and name not in options.case:
            continue
        cubin, registers, spills, params = compile_cubin(
            template, problem, config, work, options.templates
        )
        size, ops, stores, total = loop_mix(cuobjdump, cubin)
        other = size - ops["HMMA"]
        # Per HMMA over the whole kernel, the loop run KT times and the rest
        # of the code (set-up, the ring's first tiles, the stores) once.
        kt = k_tiles(problem, params)
        whole = (total - size + kt * other) / (kt * ops["HMMA"])
        if options.json:
            print(
                json.dumps(
                    dict(
                        case=name,
                        loop=size,
                        registers=registers,
                        spills=spills,
                        ops=dict(ops),
                        stores=stores,
                    )
                )
            )
        else:
            print(
                "%-24s %6d %5d %5d %6d %9.2f %9.2f %5d %6d %6d"
                % (
                    name,
                    size,
                    ops["HMMA"],
                    ops["LDSM"],
                    ops["LDGSTS"],
                    other / ops["HMMA"],
                    whole,
                    registers,
                    spills,
                    stores,
                )
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", help="a case's name (repeatable; default all)")
    parser.add_argument("--json", action="store_true", help="one JSON object per case")
    parser.add_argument(
        "--templates",
        help="the templates folder (default beast's: this tree's); another's to compare",
    )
    options = parser.parse_args()
    unknown = set(options.case or []) - {name for name, _, _, _ in CASES}
    if unknown:
        parser.error(
            "no case %s; the cases: %s"
            % (", ".join(sorted(unknown)), ", ".join(name for name, _, _, _ in CASES))
        )
    if options.templates and not os.path.isdir(options.templates):
        parser.error("--templates %s: no such folder" % options.templates)
    cuobjdump = find_cuobjdump()
    with tempfile.TemporaryDirectory(prefix="beast-mma-mix.") as work:
        report(options, cuobjdump, work)


if __name__ == "__main__":
    main()
