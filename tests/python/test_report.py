"""Tests of `beast report`: the page and every plot from the imported A100
convolution cache (offline: no URL), a small beast database with devices whose
peaks are known and unknown, the roofline's arithmetic, the importance model
on data with a known answer, replacing a previous report, and bad input (the
roofline's own: test_roofline.py)."""

import gzip
import json
import re
import sys
from pathlib import Path

import pandas
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import importance, report
from beast_analysis.kernel_tuner_import import import_cache
from conftest import GEMM, add, create_database, run_cli

A100 = REPO_ROOT / "tests" / "data" / "kernel_tuner" / "convolution_A100.json.gz"
# The default config of convolution_milo.json (the T1 description of the same space).
A100_DEFAULT = (
    "block_size_x=16,block_size_y=16,tile_size_x=1,tile_size_y=1,read_only=0,"
    "use_padding=1,use_shmem=1,use_cmem=1,filter_height=15,filter_width=15"
)
PLOTS = [
    "times.png",
    "baseline.png",
    "algorithms.png",
    "vendor.png",
    "roofline.png",
    "failures.png",
    "convergence.png",
]


def check_page(out, expected_files):
    """Every file written, every plot linked from index.html, and no URL in it."""
    html = (out / "index.html").read_text()
    sources = re.findall(r'<img src="([^"]+)"', html)
    assert sorted(sources) == sorted(f for f in expected_files if f != "index.html")
    for name in expected_files:
        assert (out / name).is_file()
        if name.endswith(".png"):
            assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        expected_files
    )
    assert not re.search(r"https?:", html, re.IGNORECASE)
    assert "<script" not in html and "<link" not in html
    return html


@pytest.fixture(scope="module")
def a100_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("a100")
    db = folder / "beast.db"
    import_cache(A100, db, default=A100_DEFAULT)
    out = folder / "report"
    return db, out, report.build(db, out)


def test_a100_report_has_every_plot(a100_report):
    _, out, summary = a100_report
    slug = "kernel_tuner_convolution_kernel"
    expected = (
        ["index.html"]
        + [f"plots/{p}" for p in PLOTS]
        + [f"plots/params_{slug}.png", f"plots/importance_{slug}.png"]
    )
    assert summary["files"] == expected
    check_page(out, expected)


def test_a100_report_tables(a100_report):
    _, out, _ = a100_report
    html = (out / "index.html").read_text()
    with gzip.open(A100, "rt") as stream:
        entries = json.load(stream)["cache"]
    best = min(
        (e for e in entries.values() if not isinstance(e["time"], str)), key=lambda e: e["time"]
    )
    default = entries["16,16,1,1,0,1,1,1,15,15"]
    assert f"<td>{best['block_size_x']}" not in html  # configs are shown as keys, not cells
    assert (
        f"<td>block_size_x={best['block_size_x']},block_size_y={best['block_size_y']},"
        f"tile_size_x={best['tile_size_x']},tile_size_y={best['tile_size_y']},"
    ) in html
    assert f'<td class="num">{default["time"] / best["time"]:.3g}</td>' in html
    assert '<tr><td>ok</td><td class="num">4201</td></tr>' in html
    assert '<tr><td>runtime_error</td><td class="num">155</td></tr>' in html
    assert (
        "Not placed: kt:convolution_kernel:4096x4096 (op kernel_tuner: bytes moved unknown) "
        "on NVIDIA A100-PCIE-40GB."
    ) in html
    assert (
        "Left out, one value among the ok configs: use_cmem, filter_height, filter_width." in html
    )
    assert "Constant among the ok configs: use_cmem, filter_height, filter_width." in html


@pytest.fixture
def beast_db(tmp_path):
    """gemm/tiled on GEMM, on a GPU with known peaks (default MWG=16 8 ms, MWG=32 2 ms,
    MWG=64 4 ms, MWG=128 compile_error) and a CPU with peaks 0 (default 5 ms, MWG=32 crashed)."""
    path = tmp_path / "beast.db"
    connection = create_database(path)
    run = add(connection, "runs", command="beast tune")
    gpu = add(
        connection,
        "devices",
        backend="opencl",
        name="GPU",
        limits_json='{"peak_gflops": 100.0, "bandwidth_gbs": 10.0}',
    )
    cpu = add(
        connection,
        "devices",
        backend="opencl",
        name="CPU",
        limits_json='{"peak_gflops": 0, "bandwidth_gbs": 0}',
    )
    gemm = add(connection, "problems", key=GEMM, op="gemm", flops=524288.0)
    tiled = add(connection, "templates", name="gemm/tiled", hash="aaaa")
    configs = {
        mwg: add(
            connection,
            "configs",
            template_id=tiled,
            config_key=f"MWG={mwg},VW=1",
            config_hash=str(mwg),
            params_json=json.dumps({"MWG": mwg, "VW": 1}),
        )
        for mwg in (16, 32, 64, 128)
    }
    for device, mwg, median, status in (
        (gpu, 16, 8.0, "ok"),
        (gpu, 32, 2.0, "ok"),
        (gpu, 64, 4.0, "ok"),
        (gpu, 128, None, "compile_error"),
        (cpu, 16, 5.0, "ok"),
        (cpu, 32, None, "crashed"),
    ):
        add(
            connection,
            "measurements",
            run_id=run,
            device_id=device,
            problem_id=gemm,
            config_id=configs[mwg],
            is_default=int(mwg == 16),
            status=status,
            median_ms=median,
        )
    connection.close()
    return path


def test_report_of_a_beast_database(beast_db, tmp_path, capsys):
    out = tmp_path / "report"
    code, printed, err = run_cli(capsys, "report", "--db", beast_db, "--out", out, "--param", "MWG")
    assert (code, err) == (0, "")
    assert printed == f"wrote {out}/index.html and 9 plots under {out}/plots\n"
    html = check_page(
        out,
        ["index.html"]
        + [f"plots/{p}" for p in PLOTS]
        + ["plots/params_gemm_tiled.png", "plots/importance_gemm_tiled.png"],
    )
    assert "Not placed" not in html
    assert (
        '<tr><td>GPU</td><td>opencl</td><td class="num">100</td><td>specification</td>'
        '<td class="num">10</td></tr>'
    ) in html
    assert (
        '<tr><td>CPU</td><td>opencl</td><td class="num">unknown</td><td>\u2014</td>'
        '<td class="num">unknown</td></tr>'
    ) in html
    assert "Peak FLOP/s of the roof: CPU: unknown; GPU: 100 GFLOP/s, specification." in html
    assert "Constant among the ok configs" not in html  # --param MWG: VW is not plotted
    assert "Left out, one value among the ok configs" not in html  # too few configs to fit
    # A second report replaces the first, leaving nothing else behind.
    empty = tmp_path / "empty.db"
    create_database(empty).close()
    code, _, err = run_cli(capsys, "report", "--db", empty, "--out", out)
    assert (code, err) == (0, "")
    assert "<p>No ok measurement.</p>" in (out / "index.html").read_text()
    assert not (out / "plots" / "params_gemm_tiled.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beast.db", "empty.db", "report"]


def test_report_of_an_empty_database(tmp_path):
    db = tmp_path / "empty.db"
    create_database(db).close()
    out = tmp_path / "report"
    summary = report.build(db, out)
    html = check_page(out, summary["files"])
    assert summary["files"] == ["index.html"] + [f"plots/{p}" for p in PLOTS]
    assert "<p>No ok measurement.</p>" in html


def test_importance_of_a_parameter_that_decides_the_time():
    # time = 3^A whatever B is: the first split, on A, leaves nothing to explain.
    rows = [
        {
            "template": "t",
            "status": "ok",
            "median_ms": 3.0**a,
            "device_id": 1,
            "problem_id": 1,
            "params": {"A": a, "B": b, "C": 7},
        }
        for a in range(2)
        for b in range(10)
    ]
    result = importance.fit(pandas.DataFrame(rows), "t", ["A", "B", "C"])
    assert [name for name, _ in result.ranking] == ["A", "B"]
    assert [value for _, value in result.ranking] == pytest.approx([1.0, 0.0], abs=1e-12)
    assert (result.configs, result.constant) == (20, ["C"])
    assert importance.fit(pandas.DataFrame(rows[:9]), "t", ["A", "B", "C"]) is None  # < 10 configs


def test_unknown_parameter_filter(beast_db, tmp_path, capsys):
    out = tmp_path / "report"
    code, printed, err = run_cli(
        capsys, "report", "--db", beast_db, "--out", out, "--param", "NOPE"
    )
    assert (code, printed) == (1, "")
    assert (
        err
        == f'beast report: --param "NOPE": no such parameter in {beast_db} (parameters: MWG, VW)\n'
    )
    assert not out.exists()


def test_unknown_template_filter(beast_db, tmp_path, capsys):
    code, _, err = run_cli(
        capsys, "report", "--db", beast_db, "--out", tmp_path / "r", "--template", "gemm/x"
    )
    assert (code, err) == (
        1,
        (
            f'beast report: --template "gemm/x": no such template in {beast_db} '
            "(templates: gemm/tiled)\n"
        ),
    )


def test_report_refuses_a_folder_that_is_not_a_report(beast_db, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code, _, err = run_cli(capsys, "report", "--db", beast_db, "--out", out)
    assert (code, err) == (
        1,
        (
            f"beast report: {out} is not empty and not a previous beast report: "
            "refusing to replace it\n"
        ),
    )
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_report_of_a_file_that_is_not_a_database(tmp_path, capsys):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"x" * 4096)
    code, _, err = run_cli(capsys, "report", "--db", garbage, "--out", tmp_path / "r")
    assert (code, err) == (1, f"beast report: {garbage} is not a beast database\n")
    code, _, err = run_cli(capsys, "report", "--db", tmp_path / "none.db", "--out", tmp_path / "r")
    assert (code, err) == (1, f"beast report: {tmp_path / 'none.db'}: no such database file\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["garbage.db"]


def test_usage_errors(capsys):
    assert run_cli(capsys, "report", "--db", "x.db") == (
        2,
        "",
        "beast report: the following arguments are required: --out (see --help)\n",
    )
    assert run_cli(capsys, "frobnicate") == (
        2,
        "",
        'beast_analysis: unknown subcommand "frobnicate" (one of: report, import, export-results, problems)\n',
    )


def test_convergence_lines_follow_each_strategy_from_the_default():
    import pandas
    from beast_analysis import convergence

    rows = [
        ("default", "ok", 5.0),
        ("model", "ok", 6.0),
        ("random", "crashed", None),
        ("model", "ok", 2.0),
        ("random", "ok", 4.0),
        ("model", "timeout", None),
        ("random", "ok", 1.0),
    ]
    frame = pandas.DataFrame(
        [(i, s, st, ms) for i, (s, st, ms) in enumerate(rows)],
        columns=["measurement_id", "strategy", "status", "median_ms"],
    )
    assert convergence.trajectories(frame) == {
        "model": [5.0, 5.0, 2.0, 2.0],
        "random": [5.0, 5.0, 4.0, 1.0],
    }
    # Measurements from before strategies were recorded form one line; a
    # failed start is "nothing ok yet".
    old = pandas.DataFrame(
        [(1, "", "crashed", None), (2, "", "ok", 3.0)],
        columns=["measurement_id", "strategy", "status", "median_ms"],
    )
    assert convergence.trajectories(old) == {"unrecorded": [None, 3.0]}


def test_algorithms_are_ranked_per_problem_and_device():
    """The per-algorithm section: each (device, problem)'s templates, fastest
    first; rows without an ok time are left out."""
    from beast_analysis import algorithms

    rows = [
        {"device": "d", "problem": "p1", "template": "conv2d/direct_nchw", "median_ms": 2.4},
        {"device": "d", "problem": "p1", "template": "conv2d/winograd", "median_ms": 0.7},
        {"device": "d", "problem": "p1", "template": "conv2d/implicit_gemm", "median_ms": 1.1},
        {"device": "d", "problem": "p2", "template": "conv2d/winograd", "median_ms": None},
        {"device": "e", "problem": "p1", "template": "conv2d/direct_nchw", "median_ms": 3.0},
    ]
    assert algorithms.by_problem(rows) == [
        (
            ("d", "p1"),
            [
                ("conv2d/winograd", 0.7),
                ("conv2d/implicit_gemm", 1.1),
                ("conv2d/direct_nchw", 2.4),
            ],
        ),
        (("e", "p1"), [("conv2d/direct_nchw", 3.0)]),
    ]
