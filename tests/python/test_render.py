"""Tests of harness/render.py and the kernel templates it renders.

Each template renders for its default config on the default problems and for
configs that exercise its tails and options; a variable the request lacks is
an error naming it and the template line; the CUDA branch of the dialect
renders CUDA spellings. Configs come from the space files, evaluated here
with Python's own semantics (the space language is a Python subset).
"""

import json
import subprocess
import sys

import pytest
from render_support import (
    CONV_DEFAULT,
    GEMM_DEFAULT,
    RENDER_PY,
    TEMPLATES,
    complete,
    conv_problem,
    count_valid,
    default_config,
    gemm_problem,
    load_space,
    render,
    render_ok,
    template_vars,
)


@pytest.mark.parametrize(
    "space_name,problem",
    [
        ("conv2d/direct_nchw", CONV_DEFAULT),
        ("conv2d/direct_nchw", conv_problem(C=3, H=7, W=7, K=5, stride=(2, 2))),
        ("gemm/tiled", GEMM_DEFAULT),
        ("gemm/tiled", gemm_problem(M=37, N=45, K=29, trans_a=1, trans_b=1)),
    ],
)
def test_default_config_renders(env, space_name, problem):
    space = load_space(space_name)
    config = default_config(space, problem)
    source = render_ok(env, space_name, problem, config)
    kernel = space["kernel"]
    assert "__kernel __attribute__((reqd_work_group_size(" in source
    assert " void %s(" % kernel in source
    assert source.count("__kernel") == 1


def test_default_configs_pass_every_constraint_on_default_problems():
    for space_name, problem in [("conv2d/direct_nchw", CONV_DEFAULT), ("gemm/tiled", GEMM_DEFAULT)]:
        space = load_space(space_name)
        config = default_config(space, problem)
        assert complete(space, problem, config, hard_only=False) is not None, space_name


def test_space_sizes_on_default_problems():
    # beast's own engine must agree: `beast space gemm/tiled --problem
    # gemm:M=512,N=512,K=512 --device opencl:0` on PoCL.
    assert count_valid(load_space("gemm/tiled"), GEMM_DEFAULT) == (646912, 106272)
    assert count_valid(load_space("conv2d/direct_nchw"), CONV_DEFAULT) == (76800, 22888)


CONV_CONFIGS = [
    # tails everywhere, vectors, staging with a partial channel chunk, rolled filter loops
    (
        conv_problem(C=3, H=7, W=7, K=5, stride=(2, 2)),
        dict(KWI=4, PWI=2, VW=4, QWI=8, LQ=2, LP=2, LK=2, USE_LOCAL=1, CB=2, UNROLL_RS=0),
    ),
    (
        conv_problem(N=2, C=6, H=9, W=11, K=4, R=3, S=2, pad=(0, 0), groups=2, bias=1),
        dict(KWI=2, PWI=1, VW=2, QWI=4, LQ=4, LP=2, LK=1, USE_LOCAL=0, CB=1, UNROLL_RS=1),
    ),
    (
        conv_problem(C=4, H=10, W=9, K=6, stride=(2, 1), pad=(2, 1), dilation=(2, 2), groups=2),
        dict(KWI=1, PWI=4, VW=8, QWI=8, LQ=1, LP=1, LK=4, USE_LOCAL=0, CB=1, UNROLL_RS=0),
    ),
    (
        CONV_DEFAULT,
        dict(KWI=8, PWI=2, VW=8, QWI=8, LQ=1, LP=4, LK=1, USE_LOCAL=1, CB=4, UNROLL_RS=1),
    ),
]


@pytest.mark.parametrize("problem,config", CONV_CONFIGS)
def test_conv_configs_render(env, problem, config):
    source = render_ok(env, "conv2d/direct_nchw", problem, config)
    assert ("__local float xs[" in source) == bool(config["USE_LOCAL"])
    assert ("barrier(CLK_LOCAL_MEM_FENCE);" in source) == bool(config["USE_LOCAL"])
    if config["VW"] > 1:
        assert "float%d acc0_0_0 = " % config["VW"] in source
    else:
        assert "float acc0_0_0 = (float)0;" in source


GEMM_CONFIGS = [
    (
        gemm_problem(M=37, N=44, K=29),
        dict(
            MWG=32,
            NWG=32,
            MDIMC=8,
            NDIMC=4,
            SA=1,
            SB=1,
            VWM=1,
            VWN=4,
            STRM=0,
            STRN=0,
            KWI=2,
            KWG=16,
        ),
    ),
    (
        gemm_problem(M=37, N=45, K=29, trans_a=1),
        dict(
            MWG=16,
            NWG=16,
            MDIMC=4,
            NDIMC=4,
            SA=0,
            SB=1,
            VWM=1,
            VWN=1,
            STRM=1,
            STRN=0,
            KWI=1,
            KWG=16,
        ),
    ),
    (
        gemm_problem(M=64, N=32, K=40, trans_a=1, trans_b=1),
        dict(
            MWG=32,
            NWG=16,
            MDIMC=8,
            NDIMC=2,
            SA=1,
            SB=0,
            VWM=4,
            VWN=8,
            STRM=1,
            STRN=0,
            KWI=4,
            KWG=16,
        ),
    ),
    (
        GEMM_DEFAULT,
        dict(
            MWG=32, NWG=64, MDIMC=8, NDIMC=4, SA=0, SB=0, VWM=1, VWN=8, STRM=0, STRN=1, KWI=8, KWG=8
        ),
    ),
    (
        gemm_problem(M=64, N=32, K=40, trans_a=1),
        dict(
            MWG=32, NWG=32, MDIMC=4, NDIMC=8, SA=0, SB=0, VWM=2, VWN=4, STRM=0, STRN=1, KWI=2, KWG=2
        ),
    ),
]


@pytest.mark.parametrize("problem,config", GEMM_CONFIGS)
def test_gemm_configs_render(env, problem, config):
    source = render_ok(env, "gemm/tiled", problem, config)
    assert ("__local float As[%d];" % (config["KWG"] * config["MWG"]) in source) == bool(
        config["SA"]
    )
    assert ("__local float Bs[%d];" % (config["KWG"] * config["NWG"]) in source) == bool(
        config["SB"]
    )
    vector = "float%d" % config["VWN"] if config["VWN"] > 1 else "float"
    assert "%s acc0_0 = " % vector in source
    # Rows of A come as vectors of VWM where they are consecutive (staged or transposed).
    vwm = config["VWM"]
    if vwm > 1:
        assert (
            "const float%d av0 = vload%d(0, %s" % (vwm, vwm, "As" if config["SA"] else "A")
            in source
        )
    else:
        assert " av0 = " not in source
    # Where a work-item's first column vector starts: its own block, or strided.
    first_col = (
        "tx * %d" % (config["NWG"] // config["NDIMC"])
        if config["STRN"]
        else "tx * %d" % config["VWN"]
    )
    assert "const int n = n0 + %s;" % first_col in source


def test_cuda_branch_renders_cuda(env):
    conv = render_ok(env, "conv2d/direct_nchw", CONV_CONFIGS[0][0], CONV_CONFIGS[0][1], "cuda")
    assert 'extern "C" __global__ void __launch_bounds__(8) conv2d_direct_nchw(' in conv
    assert "__shared__ float xs[" in conv
    assert "__syncthreads();" in conv
    assert "((int)threadIdx.x)" in conv and "((int)blockIdx.z)" in conv
    assert "struct beast_float4 { float s[4]; };" in conv
    for opencl_only in (
        "__kernel",
        "__global ",
        "__local",
        "barrier(",
        "get_local_id",
        "vload4(0,",
    ):
        assert opencl_only not in conv
    gemm = render_ok(env, "gemm/tiled", GEMM_CONFIGS[2][0], GEMM_CONFIGS[2][1], "cuda")
    assert 'extern "C" __global__ void __launch_bounds__(16) gemm_tiled(' in gemm
    assert "const float* __restrict__ A" in gemm
    assert "beast_float8{ { B[" in gemm


def test_unknown_backend_is_an_error(env):
    space = load_space("gemm/tiled")
    variables = template_vars(space, GEMM_DEFAULT, default_config(space, GEMM_DEFAULT), "hip")
    reply = render.render_request(
        env, TEMPLATES, {"template": "gemm/tiled.cl.j2", "vars": variables}
    )
    assert reply == {
        "error": "_common/dialect.j2:29 (from gemm/tiled.cl.j2:34): "
        "BACKEND must be 'opencl' or 'cuda', not 'hip'"
    }


def test_a_missing_include_names_the_line_that_includes_it(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "w.cl.j2").write_text("kernel\n{% include 'x/missing.j2' %}\n")
    reply = render.render_request(
        render.make_environment(str(tmp_path)), str(tmp_path), {"template": "x/w.cl.j2"}
    )
    assert reply == {"error": "x/w.cl.j2:2: template not found: x/missing.j2 (under %s)" % tmp_path}


@pytest.fixture()
def server():
    proc = subprocess.Popen(
        [sys.executable, "-B", RENDER_PY, "--templates", TEMPLATES],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    yield proc
    proc.kill()
    proc.wait()


def ask(proc, request):
    proc.stdin.write((request if isinstance(request, str) else json.dumps(request)) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_protocol_serves_many_requests_and_exits_on_eof(server):
    space = load_space("gemm/tiled")
    variables = template_vars(space, GEMM_DEFAULT, default_config(space, GEMM_DEFAULT))
    assert ask(server, {"ping": True})["pong"].startswith("jinja2 ")
    first = ask(server, {"template": "gemm/tiled.cl.j2", "vars": variables})
    again = ask(server, {"template": "gemm/tiled.cl.j2", "vars": variables})
    assert "source" in first and first == again
    server.stdin.close()
    assert server.wait(timeout=10) == 0


def test_missing_variable_is_an_error_naming_it(server):
    space = load_space("gemm/tiled")
    variables = template_vars(space, GEMM_DEFAULT, default_config(space, GEMM_DEFAULT))
    del variables["MWG"]
    reply = ask(server, {"template": "gemm/tiled.cl.j2", "vars": variables})
    assert reply == {"error": "gemm/tiled.cl.j2:43: 'MWG' is undefined"}
    del variables["BACKEND"]
    reply = ask(server, {"template": "gemm/tiled.cl.j2", "vars": variables})
    assert reply == {
        "error": "_common/dialect.j2:28 (from gemm/tiled.cl.j2:34): 'BACKEND' is undefined"
    }


def test_bad_requests_are_errors(server):
    assert ask(server, "not json") == {
        "error": "bad request: not JSON: Expecting value: line 1 column 1 (char 0)"
    }
    assert ask(server, {"vars": {}}) == {
        "error": 'bad request: "template" must be a non-empty string'
    }
    assert ask(server, {"template": "gemm/tiled.cl.j2", "vars": [1]}) == {
        "error": 'bad request: "vars" must be a JSON object'
    }
    assert ask(server, {"template": "nope.cl.j2", "vars": {}}) == {
        "error": "template not found: nope.cl.j2 (under %s)" % TEMPLATES
    }


def test_missing_templates_directory_is_fatal():
    out = subprocess.run(
        [sys.executable, "-B", RENDER_PY, "--templates", "/nonexistent/beast"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 3
    assert json.loads(out.stdout) == {
        "fatal": "templates directory /nonexistent/beast does not exist"
    }
