"""Tests of the report's comparison with the vendor libraries and of the peak
its roofline uses, on a small real database (results_db/schema.sql) holding
baselines rows: exact speed-ups on the page, the PNG drawn with one bar per
speed-up, the filters, and the measured peak preferred over the specification's."""

import json
import sqlite3
import struct
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "analysis"))

from beast_analysis import report
from beast_analysis.roofline import device_peaks
from conftest import CONV, GEMM, add

METHOD = "an OpenCL FMA microbenchmark, best chains=8 local=64"
HEADER = (
    "<tr><th>device</th><th>problem</th><th>library</th><th>version</th><th>status</th>"
    "<th>baseline ms</th><th>tuned template</th><th>tuned config</th><th>tuned ms</th>"
    "<th>speed-up</th></tr>"
)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """GPU (measured peak 80, specification 100 GFLOP/s) and CPU (specification 50 only).
    GPU gemm: gemm/tiled MWG=16 (default) 8 ms, MWG=32 2 ms; gemm/xgemm 2.5 ms;
              baselines CLBlast Sgemm 3 ms, cuBLAS Sgemm 1 ms.
    GPU conv: conv2d/direct 0.5 ms; CLBlast Convgemm unsupported.
    CPU gemm: gemm/tiled MWG=16 (default) 5 ms; CLBlast Sgemm 10 ms.
    CPU conv: conv2d/direct compile_error; CLBlast Convgemm 4 ms."""
    path = tmp_path_factory.mktemp("vendor") / "beast.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.executescript(
        "BEGIN;\n" + (REPO_ROOT / "results_db" / "schema.sql").read_text() + "\nCOMMIT;"
    )
    run = add(connection, "runs", command="beast tune")
    gpu = add(
        connection,
        "devices",
        backend="opencl",
        name="GPU",
        limits_json=json.dumps(
            {
                "peak_gflops": 100.0,
                "bandwidth_gbs": 10.0,
                "peak_gflops_measured": 80.0,
                "peak_method": METHOD,
            }
        ),
    )
    cpu = add(
        connection,
        "devices",
        backend="opencl",
        name="CPU",
        limits_json='{"peak_gflops": 50.0, "bandwidth_gbs": 5.0}',
    )
    gemm = add(connection, "problems", key=GEMM, op="gemm", flops=524288.0)
    conv = add(connection, "problems", key=CONV, op="conv2d", flops=73728.0)

    def config(template, key):
        params = dict(item.split("=") for item in key.split(","))
        return add(
            connection,
            "configs",
            template_id=template,
            config_key=key,
            config_hash=key,
            params_json=json.dumps({k: int(v) for k, v in params.items()}),
        )

    tiled = add(connection, "templates", name="gemm/tiled", hash="aaaa")
    xgemm = add(connection, "templates", name="gemm/xgemm", hash="bbbb")
    direct = add(connection, "templates", name="conv2d/direct", hash="cccc")
    t16, t32 = config(tiled, "MWG=16,VW=1"), config(tiled, "MWG=32,VW=1")
    x1, d1 = config(xgemm, "WGD=8"), config(direct, "TK=4")
    for device, problem, cfg, default, median, status in (
        (gpu, gemm, t16, 1, 8.0, "ok"),
        (gpu, gemm, t32, 0, 2.0, "ok"),
        (gpu, gemm, x1, 1, 2.5, "ok"),
        (gpu, conv, d1, 1, 0.5, "ok"),
        (cpu, gemm, t16, 1, 5.0, "ok"),
        (cpu, conv, d1, 1, None, "compile_error"),
    ):
        add(
            connection,
            "measurements",
            run_id=run,
            device_id=device,
            problem_id=problem,
            config_id=cfg,
            is_default=default,
            status=status,
            median_ms=median,
        )
    for device, problem, library, routine, status, median, error in (
        (gpu, gemm, "clblast", "Sgemm", "ok", 3.0, ""),
        (gpu, gemm, "cublas", "Sgemm", "ok", 1.0, ""),
        (gpu, conv, "clblast", "Convgemm", "unsupported", None, "Convgemm has no bias"),
        (cpu, gemm, "clblast", "Sgemm", "ok", 10.0, ""),
        (cpu, conv, "clblast", "Convgemm", "ok", 4.0, ""),
    ):
        add(
            connection,
            "baselines",
            run_id=run,
            device_id=device,
            problem_id=problem,
            library=library,
            routine=routine,
            status=status,
            median_ms=median,
            error_text=error,
            library_version="1.6.3" if library == "clblast" else "",
        )
    connection.close()
    return path


def row(*cells, numeric=(5, 8, 9)):
    return (
        "<tr>"
        + "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(cells)
        )
        + "</tr>"
    )


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # IHDR width, height


def vendor_table(html):
    """The rows of the vendor section's table, one string each."""
    section = html[html.index(HEADER) + len(HEADER) :]
    return [line for line in section[: section.index("</table>")].split("\n") if line]


def test_speedups_over_each_vendor_baseline(db, tmp_path):
    out = tmp_path / "report"
    summary = report.build(db, out)
    assert "plots/vendor.png" in summary["files"]
    html = (out / "index.html").read_text()
    dash = "\u2014"
    assert vendor_table(html) == [
        row("CPU", CONV, "CLBlast Convgemm", "1.6.3", "ok", "4", dash, dash, dash, dash),
        row(
            "CPU", GEMM, "CLBlast Sgemm", "1.6.3", "ok", "10", "gemm/tiled", "MWG=16,VW=1", "5", "2"
        ),
        row(
            "GPU",
            CONV,
            "CLBlast Convgemm",
            "1.6.3",
            "unsupported: Convgemm has no bias",
            dash,
            "conv2d/direct",
            "TK=4",
            "0.5",
            dash,
        ),
        # The fastest template's winner (gemm/tiled 2 ms, not gemm/xgemm 2.5 ms).
        row(
            "GPU",
            GEMM,
            "CLBlast Sgemm",
            "1.6.3",
            "ok",
            "3",
            "gemm/tiled",
            "MWG=32,VW=1",
            "2",
            "1.5",
        ),
        row("GPU", GEMM, "cuBLAS Sgemm", dash, "ok", "1", "gemm/tiled", "MWG=32,VW=1", "2", "0.5"),
    ]
    assert (
        f"Not plotted, the library did not run ok: CLBlast Convgemm on {CONV} (GPU): unsupported, "
        f"Convgemm has no bias. Not plotted, no ok tuned config: CLBlast Convgemm on {CONV} (CPU)."
    ) in html
    # Drawn with the three speed-ups as bars (10 x (1.2 + 0.9 x 3) inches at 100 dpi), not as a message.
    assert png_size(out / "plots" / "vendor.png") == (1000, 390)


def test_filters_select_the_baselines_and_winners(db, tmp_path):
    out = tmp_path / "report"
    report.build(db, out, template="gemm/xgemm")
    assert vendor_table((out / "index.html").read_text()) == [
        row("GPU", GEMM, "CLBlast Sgemm", "1.6.3", "ok", "3", "gemm/xgemm", "WGD=8", "2.5", "1.2"),
        row("GPU", GEMM, "cuBLAS Sgemm", "\u2014", "ok", "1", "gemm/xgemm", "WGD=8", "2.5", "0.4"),
    ]
    assert png_size(out / "plots" / "vendor.png") == (1000, 300)
    # A baseline whose problem has no ok tuned config: a message figure, no bar.
    report.build(db, out, device="CPU", problem=CONV)
    html = (out / "index.html").read_text()
    assert vendor_table(html) == [
        row(
            "CPU",
            CONV,
            "CLBlast Convgemm",
            "1.6.3",
            "ok",
            "4",
            "\u2014",
            "\u2014",
            "\u2014",
            "\u2014",
        )
    ]
    assert png_size(out / "plots" / "vendor.png") == (800, 250)


def test_report_without_baselines_says_so(db, tmp_path):
    bare = tmp_path / "bare.db"
    bare.write_bytes(Path(db).read_bytes())
    connection = sqlite3.connect(bare)
    connection.execute("DELETE FROM baselines")
    connection.commit()
    connection.close()
    out = tmp_path / "report"
    report.build(bare, out)
    html = (out / "index.html").read_text()
    assert HEADER not in html
    assert (
        "<p>No vendor library baseline for these devices and problems (<code>beast tune --baselines "
        "clblast</code> measures CLBlast).</p>"
    ) in html
    assert png_size(out / "plots" / "vendor.png") == (800, 250)


def test_roofline_uses_the_measured_peak(db, tmp_path):
    out = tmp_path / "report"
    report.build(db, out)
    html = (out / "index.html").read_text()
    assert (
        f'<tr><td>GPU</td><td>opencl</td><td class="num">80</td><td>measured: {METHOD}</td>'
        '<td class="num">10</td></tr>'
    ) in html
    assert (
        '<tr><td>CPU</td><td>opencl</td><td class="num">50</td><td>specification</td>'
        '<td class="num">5</td></tr>'
    ) in html
    assert (
        f"Peak FLOP/s of the roof: CPU: 50 GFLOP/s, specification; GPU: 80 GFLOP/s, measured: "
        f"{METHOD}."
    ) in html


def test_device_peaks_prefers_the_measured_peak():
    assert device_peaks(
        '{"peak_gflops": 100, "peak_gflops_measured": 80.5, "peak_method": "M", '
        '"bandwidth_gbs": 10}'
    ) == (80.5, "measured: M", 10.0)
    assert device_peaks('{"peak_gflops": 100, "peak_gflops_measured": 80}') == (
        80.0,
        "measured: method not recorded",
        None,
    )
    # A measurement that failed leaves no key; 0 and a boolean are not peaks.
    assert device_peaks('{"peak_gflops": 100, "peak_gflops_measured": 0}') == (
        100.0,
        "specification",
        None,
    )
    assert device_peaks('{"peak_gflops_measured": true}') == (None, None, None)


def test_one_name_under_two_drivers_is_two_devices(db, tmp_path):
    """The GPU under another driver is another device row: the report keeps its
    peak, winners and baselines apart and names each by backend and driver."""
    two = tmp_path / "two.db"
    two.write_bytes(Path(db).read_bytes())
    connection = sqlite3.connect(two, isolation_level=None)
    connection.execute("UPDATE devices SET driver_version = '535' WHERE name = 'GPU'")
    newer = add(
        connection,
        "devices",
        backend="opencl",
        name="GPU",
        driver_version="550",
        limits_json='{"peak_gflops": 200.0, "bandwidth_gbs": 20.0}',
    )
    ids = dict(connection.execute("SELECT config_key, id FROM configs").fetchall())
    gemm = connection.execute("SELECT id FROM problems WHERE op = 'gemm'").fetchone()[0]
    add(
        connection,
        "measurements",
        run_id=1,
        device_id=newer,
        problem_id=gemm,
        config_id=ids["MWG=16,VW=1"],
        is_default=1,
        status="ok",
        median_ms=4.0,
    )
    add(
        connection,
        "baselines",
        run_id=1,
        device_id=newer,
        problem_id=gemm,
        library="clblast",
        routine="Sgemm",
        status="ok",
        median_ms=6.0,
        library_version="1.6.3",
    )
    connection.close()
    out = tmp_path / "report"
    report.build(two, out, template="gemm/tiled")
    html = (out / "index.html").read_text()
    old, new = "GPU (opencl, driver 535)", "GPU (opencl, driver 550)"
    assert (
        f'<tr><td>{old}</td><td>opencl</td><td class="num">80</td><td>measured: {METHOD}</td>'
        '<td class="num">10</td></tr>'
    ) in html
    assert (
        f'<tr><td>{new}</td><td>opencl</td><td class="num">200</td><td>specification</td>'
        '<td class="num">20</td></tr>'
    ) in html
    assert vendor_table(html) == [
        row(
            "CPU", GEMM, "CLBlast Sgemm", "1.6.3", "ok", "10", "gemm/tiled", "MWG=16,VW=1", "5", "2"
        ),
        row(
            old, GEMM, "CLBlast Sgemm", "1.6.3", "ok", "3", "gemm/tiled", "MWG=32,VW=1", "2", "1.5"
        ),
        row(
            old, GEMM, "cuBLAS Sgemm", "\u2014", "ok", "1", "gemm/tiled", "MWG=32,VW=1", "2", "0.5"
        ),
        row(
            new, GEMM, "CLBlast Sgemm", "1.6.3", "ok", "6", "gemm/tiled", "MWG=16,VW=1", "4", "1.5"
        ),
    ]
    assert (
        f"Peak FLOP/s of the roof: CPU: 50 GFLOP/s, specification; {old}: 80 GFLOP/s, measured: "
        f"{METHOD}; {new}: 200 GFLOP/s, specification."
    ) in html
