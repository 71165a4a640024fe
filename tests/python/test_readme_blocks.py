"""The README is executable: every fenced block in it is marked, right above
it, either `<!-- runs -->` (this test runs it, as written, on PoCL, in a
folder holding what the README's text says is there: a beast.db of a small
tuning run and its export in tuned/, beside the project's analysis/ and
.venv, as the project root is after ./run tune) or `<!-- illustrative: why -->` (output,
a file format, or a command another test runs).
One substitution: the install prefix the README names, /opt/beast, becomes
a temporary folder."""

import os
import re
import subprocess

import pytest
from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
BEAST_DIR = REPO_ROOT / "build" / "beast"
BLOCK = re.compile(r"(?P<before>[^\n]*)\n```[a-z]*\n(?P<body>.*?)```", re.DOTALL)


def blocks():
    """(line number, marker, body) of every fenced block."""
    out = []
    for m in BLOCK.finditer(README):
        line = README.count("\n", 0, m.start("body"))
        out.append((line, m.group("before").strip(), m.group("body")))
    return out


def test_every_block_is_marked_runs_or_illustrative():
    unmarked = [
        (line, body.splitlines()[0])
        for line, marker, body in blocks()
        if marker != "<!-- runs -->" and not re.fullmatch(r"<!-- illustrative: .+ -->", marker)
    ]
    assert not unmarked, "README blocks without <!-- runs --> or <!-- illustrative: why -->"


@pytest.fixture(scope="module")
def user_folder(tmp_path_factory):
    """A folder as the README's user has it after ./run tune: the project's
    analysis/ and .venv (linked), a beast.db and its export in tuned/."""
    folder = tmp_path_factory.mktemp("readme_user")
    for name in ("analysis", ".venv"):
        (folder / name).symlink_to(REPO_ROOT / name)
    beast = str(BEAST_DIR / "beast")
    subprocess.run(
        [
            beast,
            "tune",
            "--template",
            "gemm/tiled",
            "--problem",
            "gemm:M=64,N=48,K=40",
            "--db",
            "beast.db",
            "--max-configs",
            "2",
            "--baselines",
            "none",
            "--quiet",
        ],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [beast, "export", "--db", "beast.db", "--out", "tuned"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    return folder


RUNS = [(line, body) for line, marker, body in blocks() if marker == "<!-- runs -->"]


@pytest.mark.parametrize("line,body", RUNS, ids=["line %d" % line for line, _ in RUNS])
def test_a_runs_block_runs_as_written(user_folder, line, body):
    prefix = user_folder / "prefix"
    script = body.replace("/opt/beast", str(prefix))
    if re.match(r"\s*(#[^\n]*\n)*\s*(conv2d|gemm):", body):  # a job file: beast reads it
        (user_folder / "readme.job").write_text(body)
        script = "beast query --db beast.db --problems readme.job"
    env = dict(os.environ, PATH="%s:%s" % (BEAST_DIR, os.environ["PATH"]))
    env["PYTHONPATH"] = ""
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        check=False,
        cwd=user_folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, "README line %d:\n%s\n%s%s" % (
        line,
        script,
        result.stdout[-2000:],
        result.stderr[-2000:],
    )
