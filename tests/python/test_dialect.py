"""Tests of kernel_templates/_common/dialect.j2, the macros that spell what
differs between OpenCL C and CUDA C++ and between the storage types: each
macro's spelling per backend and STORAGE, the preludes each declares once,
and the unknown backend or storage refused by name."""

import pytest

DIALECT_PROBE = (
    '{% import "_common/dialect.j2" as d with context %}'
    "{{ d.kernel() }}|{{ d.kernel(8, 4, 2) }}|{{ d.global_ptr() }}|{{ d.restrict() }}|"
    "{{ d.local_array('float', 'xs', 64) }}|{{ d.local_ptr() }}|{{ d.barrier() }}|"
    "{{ d.device_fn() }}|{{ d.unroll() }}|{{ d.unroll(2) }}|{{ d.local_id(0) }}|"
    "{{ d.group_id(1) }}|{{ d.local_size(2) }}|{{ d.num_groups(0) }}|{{ d.global_id(1) }}|"
    "{{ d.vtype('float', 1) }}|{{ d.vtype('float', 4) }}|{{ d.vzero('float', 1) }}|"
    "{{ d.vzero('float', 4) }}|{{ d.vload(1, 'p', 'i') }}|{{ d.vload(4, 'p', 'i') }}|"
    "{{ d.vstore(1, 'v', 'p', 'i') }}|{{ d.vstore(4, 'v', 'p', 'i') }}|{{ d.vget('v', 1, 3) }}|"
    "{{ d.vget('v', 16, 11) }}|{{ d.vmake('float', 1, ['a']) }}|"
    "{{ d.vmake('float', 2, ['a', 'b']) }}"
)


def test_dialect_opencl_spellings(env):
    assert env.from_string(DIALECT_PROBE).render(BACKEND="opencl").split("|") == [
        "__kernel void",
        "__kernel __attribute__((reqd_work_group_size(8, 4, 2))) void",
        "__global",
        "restrict",
        "__local float xs[64];",
        "__local",
        "barrier(CLK_LOCAL_MEM_FENCE);",
        "inline",
        "#pragma unroll",
        "#pragma unroll 2",
        "((int)get_local_id(0))",
        "((int)get_group_id(1))",
        "((int)get_local_size(2))",
        "((int)get_num_groups(0))",
        "((int)get_global_id(1))",
        "float",
        "float4",
        "(float)0",
        "(float4)((float)0)",
        "p[i]",
        "vload4(0, p + i)",
        "p[i] = v;",
        "vstore4(v, 0, p + i);",
        "v",
        "v.sb",
        "(a)",
        "((float2)(a, b))",
    ]


def test_dialect_cuda_spellings(env):
    assert env.from_string(DIALECT_PROBE).render(BACKEND="cuda").split("|") == [
        'extern "C" __global__ void',
        'extern "C" __global__ void __launch_bounds__(64)',
        "",
        "__restrict__",
        "__shared__ float xs[64];",
        "",
        "__syncthreads();",
        "__device__ __forceinline__",
        "#pragma unroll",
        "#pragma unroll 2",
        "((int)threadIdx.x)",
        "((int)blockIdx.y)",
        "((int)blockDim.z)",
        "((int)gridDim.x)",
        "((int)(blockIdx.y * blockDim.y + threadIdx.y))",
        "float",
        "beast_float4",
        "(float)0",
        "beast_float4()",
        "p[i]",
        "beast_vload4(p + i)",
        "p[i] = v;",
        "beast_vstore4(v, p + i);",
        "v",
        "v.s[11]",
        "(a)",
        "beast_float2{ { a, b } }",
    ]


STORAGE_PROBE = (
    '{% import "_common/dialect.j2" as d with context %}'
    "{{ d.gtype('float') }}|{{ d.gload('p', 'i') }}|{{ d.gvload('float', 4, 'p', 'i') }}|"
    "{{ d.gvload('float', 1, 'p', 'i') }}|{{ d.gstore('p', 'i', 'v') }}|"
    "{{ d.gvstore(4, 'v', 'p', 'i') }}"
)


@pytest.mark.parametrize(
    "backend, storage, expected",
    [
        # f32 and f64 render as plain indexing and vload/vstore.
        (
            "opencl",
            "f32",
            ["float", "p[i]", "vload4(0, p + i)", "p[i]", "p[i] = v;", "vstore4(v, 0, p + i);"],
        ),
        (
            "cuda",
            "f64",
            [
                "float",
                "p[i]",
                "beast_vload4(p + i)",
                "p[i]",
                "p[i] = v;",
                "beast_vstore4(v, p + i);",
            ],
        ),
        # f16 on OpenCL: scalars through vload_half / vstore_half_rte, core
        # OpenCL (no cl_khr_fp16); vectors as ushort bits converted lane-wise
        # by the prelude (PoCL's vload_half4 assumes 8-byte alignment, and its
        # scalar conversions are branchy integer code per element).
        (
            "opencl",
            "f16",
            [
                "half",
                "vload_half(0, p + (i))",
                "beast_half_to_float4(vload4(0, (__global const ushort*)(p + i)))",
                "vload_half(0, p + (i))",
                "vstore_half_rte(v, 0, p + (i));",
                "vstore4(beast_float4_to_half(v), 0, (__global ushort*)(p + i));",
            ],
        ),
        # bf16 on OpenCL: 16-bit loads shifted into a float's high half.
        (
            "opencl",
            "bf16",
            [
                "ushort",
                "beast_bf16_to_float(p[i])",
                "as_float4(convert_uint4(vload4(0, p + i)) << 16)",
                "beast_bf16_to_float(p[i])",
                "p[i] = beast_float_to_bf16(v);",
                "vstore4(beast_float4_to_bf16(v), 0, p + i);",
            ],
        ),
        (
            "cuda",
            "f16",
            [
                "unsigned short",
                "beast_f16_to_float(p[i])",
                "beast_f16_vload4(p + i)",
                "beast_f16_to_float(p[i])",
                "p[i] = beast_float_to_f16(v);",
                "beast_f16_vstore4(v, p + i);",
            ],
        ),
    ],
)
def test_dialect_storage_spellings(env, backend, storage, expected):
    text = env.from_string(STORAGE_PROBE).render(BACKEND=backend, STORAGE=storage)
    assert text.split("|") == expected


LANES_PROBE = (
    '{% import "_common/dialect.j2" as d with context %}'
    "{{ d.gload_lanes('float', 2, 'x', ['a', 'b']) }}|"
    "{{ d.gload_lanes('float', 2, 'x', ['a', 'b'], ['ca', 'cb']) }}|"
    "{{ d.gload_lanes('float', 1, 'x', ['a'], ['ca']) }}|"
    "{{ d.gstore_vector('float', 2, 'h', 'v') }}|{{ d.gstore_lane('y', 'j', 'h', 2, 1) }}"
)


@pytest.mark.parametrize(
    "backend, storage, expected",
    [
        (
            "opencl",
            "f32",
            [
                "((float2)(x[a], x[b]))",
                "((float2)((ca) ? x[a] : (float)0, (cb) ? x[b] : (float)0))",
                "((ca) ? x[a] : (float)0)",
                "const float2 h = v;",
                "y[j] = h.s1;",
            ],
        ),
        # 16-bit storage on OpenCL: the lanes' bits gathered, then one
        # vector conversion (and one before the lane stores).
        (
            "opencl",
            "f16",
            [
                (
                    "beast_half_to_float2(((ushort2)(((__global const ushort*)(x))[a], "
                    "((__global const ushort*)(x))[b])))"
                ),
                (
                    "beast_half_to_float2(((ushort2)((ushort)((ca) ? ((__global const ushort*)(x))[a]"
                    " : 0), (ushort)((cb) ? ((__global const ushort*)(x))[b] : 0))))"
                ),
                (
                    "beast_half_to_float((ushort)((ushort)((ca) ? ((__global const ushort*)(x))[a]"
                    " : 0)))"
                ),
                "const ushort2 h = beast_float2_to_half(v);",
                "((__global ushort*)(y))[j] = h.s1;",
            ],
        ),
        (
            "opencl",
            "bf16",
            [
                (
                    "as_float2(convert_uint2(((ushort2)(((__global const ushort*)(x))[a], "
                    "((__global const ushort*)(x))[b]))) << 16)"
                ),
                (
                    "as_float2(convert_uint2(((ushort2)((ushort)((ca) ? ((__global const ushort*)"
                    "(x))[a] : 0), (ushort)((cb) ? ((__global const ushort*)(x))[b] : 0)))) << 16)"
                ),
                (
                    "as_float(convert_uint((ushort)((ushort)((ca) ? ((__global const ushort*)(x))[a]"
                    " : 0))) << 16)"
                ),
                "const ushort2 h = beast_float2_to_bf16(v);",
                "((__global ushort*)(y))[j] = h.s1;",
            ],
        ),
        # CUDA converts element by element (one instruction each).
        (
            "cuda",
            "f16",
            [
                "beast_float2{ { beast_f16_to_float(x[a]), beast_f16_to_float(x[b]) } }",
                (
                    "beast_float2{ { (ca) ? beast_f16_to_float(x[a]) : (float)0, "
                    "(cb) ? beast_f16_to_float(x[b]) : (float)0 } }"
                ),
                "((ca) ? beast_f16_to_float(x[a]) : (float)0)",
                "const beast_float2 h = v;",
                "y[j] = beast_float_to_f16(h.s[1]);",
            ],
        ),
    ],
)
def test_dialect_lane_spellings(env, backend, storage, expected):
    text = env.from_string(LANES_PROBE).render(BACKEND=backend, STORAGE=storage)
    assert text.split("|") == expected


def test_dialect_storage_prelude_only_for_16_bit_types(env):
    probe = '{% import "_common/dialect.j2" as d with context %}{{ d.storage_prelude() }}'
    for backend in ("opencl", "cuda"):
        assert env.from_string(probe).render(BACKEND=backend, STORAGE="f32") == ""
        assert env.from_string(probe).render(BACKEND=backend) == ""
    assert "cvt.rn.f16.f32" in env.from_string(probe).render(BACKEND="cuda", STORAGE="f16")
    opencl_bf16 = env.from_string(probe).render(BACKEND="opencl", STORAGE="bf16")
    assert "inline ushort16 beast_float16_to_bf16(float16 f)" in opencl_bf16
    opencl_f16 = env.from_string(probe).render(BACKEND="opencl", STORAGE="f16")
    assert "inline float beast_half_to_float(ushort h)" in opencl_f16
    assert "inline ushort16 beast_float16_to_half(float16 f)" in opencl_f16
    with pytest.raises(Exception, match="STORAGE must be f32, f64, f16 or bf16, not 'f8'"):
        env.from_string(probe).render(BACKEND="opencl", STORAGE="f8")


def test_dialect_cuda_vector_prelude_declares_once(env):
    text = env.from_string(
        '{% import "_common/dialect.j2" as d with context %}'
        "{{ d.vector_prelude('float', 1) }}{{ d.vector_prelude('float', 4) }}"
    ).render(BACKEND="cuda")
    assert text.startswith(
        "#ifndef BEAST_FLOAT4_DEFINED\n#define BEAST_FLOAT4_DEFINED\n"
        "struct beast_float4 { float s[4]; };\n"
    )
    assert text.endswith("#endif\n")
    assert (
        env.from_string(
            '{% import "_common/dialect.j2" as d with context %}'
            "{{ d.vector_prelude('float', 4) }}"
        ).render(BACKEND="opencl")
        == ""
    )


def test_dialect_dynamic_local_memory(env):
    """Local memory sized at launch: a trailing __local argument on OpenCL, an
    extern __shared__ array on CUDA."""
    probe = (
        '{% import "_common/dialect.j2" as d with context %}'
        "{{ d.dynamic_local_param('float', 'stage') }}|{{ d.dynamic_local_decl('float', 'stage') }}"
    )
    assert env.from_string(probe).render(BACKEND="opencl").split("|") == [
        ", __local float* stage",
        "",
    ]
    assert env.from_string(probe).render(BACKEND="cuda").split("|") == [
        "",
        "extern __shared__ float stage[];",
    ]


def test_dialect_gload_each_gathers_only_where_16_bit_storage_converts(env):
    probe = (
        '{% import "_common/dialect.j2" as d with context %}'
        "{{ d.gload_each('float', ['a0', 'a1'], ['p', 'q'], ['i', 'j + 1']) }}"
    )
    assert env.from_string(probe).render(BACKEND="opencl", STORAGE="f32") == (
        "const float a0 = p[i];\nconst float a1 = q[j + 1];"
    )
    assert env.from_string(probe).render(BACKEND="opencl", STORAGE="f16") == (
        "const float2 a0_lanes = beast_half_to_float2(((ushort2)(((__global const ushort*)(p))[i],"
        " ((__global const ushort*)(q))[j + 1])));\n"
        "const float a0 = a0_lanes.s0;\nconst float a1 = a0_lanes.s1;"
    )
    # Three elements are no vector width: scalar loads.
    three = (
        '{% import "_common/dialect.j2" as d with context %}'
        "{{ d.gload_each('float', ['a0', 'a1', 'a2'], 'p', [0, 1, 2]) }}"
    )
    assert env.from_string(three).render(BACKEND="opencl", STORAGE="f16") == (
        "const float a0 = vload_half(0, p + (0));\n"
        "const float a1 = vload_half(0, p + (1));\n"
        "const float a2 = vload_half(0, p + (2));"
    )
