"""Fixtures of the beast_torch tests: one export of a real tuning run, with
the PyTorch extension built from it, shared by the whole session.

These tests run under the system Python (Debian's python3-torch), not the
project's virtual environment: ./run test installs python3-torch,
libtorch-dev and python3-pytest and runs `python3 -m pytest tests/pytorch`.
They need beast built (build/beast/beast) and an OpenCL device (PoCL here).

The run tunes six small problems (the default config of each); the export is asked to serve every shape
the tests call (--shapes), so most calls run a tuned template's config
rendered for their shape (the nearest tier), and shapes no config fits run
the generic kernel: both paths of the library meet PyTorch.
"""

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEAST = os.environ.get("BEAST_BINARY", os.path.join(REPO_ROOT, "build", "beast", "beast"))

TUNED = [
    ("conv2d/direct_nchw", shapes.conv_key(shapes.TUNED_CONV, "NCHW")),
    ("conv2d/direct_nhwc", shapes.conv_key(shapes.TUNED_CONV, "NHWC")),
    ("conv2d/direct_nhwc", shapes.conv_key(shapes.TUNED_CONV_ONE_CHANNEL, "NHWC")),
    ("conv2d/winograd_split", shapes.conv_key(shapes.TUNED_WINOGRAD, "NCHW")),
    ("gemm/tiled", shapes.gemm_key(shapes.TUNED_GEMM)),
    ("conv2d/implicit_gemm", shapes.conv_key(shapes.TUNED_HALF, "NCHW", "f16")),
]


def _run(args, cwd, env=None):
    result = subprocess.run(args, check=False, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(
            "%s failed (%d):\n%s%s"
            % (" ".join(args), result.returncode, result.stdout[-3000:], result.stderr[-3000:])
        )
    return result.stdout


@pytest.fixture(scope="session")
def beast_torch(tmp_path_factory):
    """The beast_torch package of a fresh export, imported."""
    torch = pytest.importorskip("torch")
    if not os.path.exists(BEAST):
        pytest.fail("beast is not built: %s (run ./run build)" % BEAST)
    work = tmp_path_factory.mktemp("beast_torch")
    # beast's caches start empty; PoCL's kernel cache (content-addressed,
    # only a speed-up) stays the user's.
    env = dict(
        os.environ,
        BEAST_CACHE_DIR=str(work / "cache" / "programs"),
        BEAST_TUNED_CACHE_DIR=str(work / "cache" / "beast_tuned"),
    )
    tune = [
        BEAST,
        "tune",
        "--db",
        "tuned.db",
        "--max-configs",
        "1",
        "--baselines",
        "none",
        "--quiet",
        # The shapes are small: on a GPU of a hundred multiprocessors the soft
        # constraints (enough work groups to fill it) would empty every space.
        "--ignore-soft",
    ]
    for template, problem in TUNED:
        _run(tune + ["--template", template, "--problem", problem], work, env)
    (work / "served.txt").write_text("\n".join(shapes.served_keys()) + "\n")
    _run(
        [
            BEAST,
            "export",
            "--db",
            "tuned.db",
            "--out",
            "tuned",
            "--shapes",
            "served.txt",
            "--pytorch",
        ],
        work,
        env,
    )
    build = work / "tuned" / "pytorch" / "build"
    _run(
        [
            "cmake",
            "-S",
            str(work / "tuned" / "pytorch"),
            "-B",
            str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            # PyPI's torch keeps its CMake files inside the package.
            "-DCMAKE_PREFIX_PATH=" + torch.utils.cmake_prefix_path,
        ],
        work,
        env,
    )
    _run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)], work, env)
    # The library's program cache, in this process too.
    os.environ["BEAST_TUNED_CACHE_DIR"] = env["BEAST_TUNED_CACHE_DIR"]
    sys.path.insert(0, str(build))
    import beast_torch as module

    torch.manual_seed(0)
    return module


@pytest.fixture(scope="session")
def torch():
    return pytest.importorskip("torch")
