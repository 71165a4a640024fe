"""The fixed, stratified set of tensor-core emulation cases
(tests/python/test_tensor_core_emulation.py runs it by default): gemm/mma in
f16, bf16 and f32+TF32 over all 8 (trans_a, trans_b, col_major) combinations
with tails in M, N and K; conv2d/implicit_gemm_mma in NHWC and NCHW in the
three dtypes with groups, strides, padding, dilation, bias and tails; edge
cases (512 and 1024 threads, K below one mma, exact tile multiples, deep K,
a copy row wider than the block, odd-length rows, windows far from the
origin, filters of more than 32 taps); split-K in both templates; and the
spaces' default configs. Chosen by hand so that every path of the templates
runs; cases.py draws random ones for the full sweep.
"""

from cases import conv2d, gemm


def cfg(BM, BN, BK, WM, WN, STAGES, VEC, PAD, SWZ):
    return dict(BM=BM, BN=BN, BK=BK, WM=WM, WN=WN, STAGES=STAGES, VEC=VEC, PAD=PAD, SWZ=SWZ)


# ---- the stratified set ----

# Block and warp tiles (1 to 8 warps, every BK, STAGES, PAD and SWZ), VEC
# set per case.
GEMM_TILES = [
    dict(BM=32, BN=32, BK=16, WM=16, WN=16, STAGES=2, PAD=8, SWZ=1),
    dict(BM=64, BN=32, BK=32, WM=32, WN=16, STAGES=3, PAD=0, SWZ=2),
    dict(BM=32, BN=64, BK=64, WM=32, WN=32, STAGES=4, PAD=8, SWZ=1),
    dict(BM=64, BN=64, BK=16, WM=32, WN=32, STAGES=5, PAD=0, SWZ=4),
    dict(BM=32, BN=64, BK=32, WM=16, WN=32, STAGES=3, PAD=8, SWZ=8),
    dict(BM=64, BN=32, BK=16, WM=64, WN=16, STAGES=4, PAD=8, SWZ=1),
    dict(BM=32, BN=32, BK=32, WM=32, WN=32, STAGES=2, PAD=0, SWZ=2),
    dict(BM=128, BN=32, BK=16, WM=32, WN=16, STAGES=3, PAD=8, SWZ=2),
]
VECS = {"f32": [4, 2], "f16": [8, 4, 2], "bf16": [2, 8, 4]}
# m, n, k: multiples of VEC (rows are whole copies), no multiple of a tile.
DIMS = {
    8: [(72, 56, 88), (40, 104, 24)],
    4: [(68, 44, 76), (36, 92, 52)],
    2: [(38, 50, 66), (70, 26, 98)],
}


GEMM_ODD_N = gemm("bf16", 40, 37, 24, 0, 1, 0, cfg(32, 32, 16, 16, 16, 2, 8, 8, 1))


def gemm_cases():
    cases = []
    for d, storage in enumerate(("f16", "bf16", "f32")):
        for combo in range(8):
            ta, tb, col = combo & 1, (combo >> 1) & 1, combo >> 2
            for variant in range(2):  # two tiles, VECs and shapes per combination
                vec = VECS[storage][(combo + variant) % len(VECS[storage])]
                m, n, k = DIMS[vec][(combo + d + variant) % 2]
                config = dict(GEMM_TILES[(combo + 3 * d + 4 * variant) % 8], VEC=vec)
                cases.append(gemm(storage, m, n, k, ta, tb, col, config))
    # K below one mma's K; a 2 x 2 product; exact multiples with a deep K
    # (many turns of the ring); 1024 threads.
    cases += [
        gemm("f32", 34, 36, 4, 1, 0, 0, cfg(32, 32, 16, 16, 16, 3, 2, 8, 8)),
        gemm("f16", 34, 36, 6, 0, 1, 0, cfg(32, 32, 16, 16, 16, 3, 2, 8, 8)),
        gemm("f32", 2, 2, 2, 0, 0, 1, cfg(32, 32, 32, 32, 32, 4, 2, 0, 2)),
        gemm("f32", 128, 128, 512, 0, 1, 1, cfg(64, 64, 64, 32, 32, 5, 4, 0, 4)),
        gemm("bf16", 128, 64, 256, 1, 0, 0, cfg(64, 64, 32, 32, 32, 3, 8, 8, 1)),
        gemm("f16", 136, 200, 48, 1, 1, 0, cfg(128, 128, 16, 32, 16, 2, 8, 8, 1)),
        # A row of A's tile (BM = 256, transposed) takes more copies (128)
        # than the block has threads (64): a thread's copies step along the
        # row, not down the rows.
        gemm("f16", 264, 40, 20, 1, 0, 0, cfg(256, 32, 16, 128, 32, 2, 2, 8, 1)),
        # Rows of C of odd length: the outputs stored one at a time.
        GEMM_ODD_N,
    ]
    return cases


# groups, stride, padding, dilation, bias, tails in every GEMM dimension.
CONV_PROBLEMS = [
    dict(N=2, C=8, H=7, W=6, K=12, R=3, S=2, stride_h=1, stride_w=2, pad_h=1, pad_w=1)
    | dict(dilation_h=2, dilation_w=1, groups=2, bias=1),
    dict(N=1, C=48, H=9, W=10, K=18, R=1, S=3, stride_h=2, stride_w=1, pad_h=0, pad_w=2)
    | dict(dilation_h=1, dilation_w=2, groups=3, bias=0),
    dict(N=3, C=24, H=5, W=5, K=20, R=3, S=3, pad_h=1, pad_w=1, bias=1),
    dict(N=2, C=16, H=11, W=9, K=36, R=1, S=1, stride_h=2, stride_w=2, groups=4, bias=1),
    dict(N=2, C=32, H=6, W=3, K=10, R=4, S=1, stride_h=3, pad_h=2, dilation_h=2, bias=1),
]
CONV_TILES = [
    dict(BM=64, BN=32, BK=16, WM=32, WN=16, STAGES=3, PAD=8, SWZ=1),
    dict(BM=32, BN=64, BK=32, WM=16, WN=32, STAGES=2, PAD=0, SWZ=2),
    dict(BM=64, BN=64, BK=16, WM=32, WN=32, STAGES=4, PAD=8, SWZ=1),
    dict(BM=32, BN=32, BK=64, WM=32, WN=16, STAGES=5, PAD=0, SWZ=4),
]


def conv_cases():
    cases = []
    for layout in ("NHWC", "NCHW"):
        for d, storage in enumerate(("f16", "bf16", "f32")):
            for i, problem in enumerate(CONV_PROBLEMS):
                cg = problem["C"] // problem.get("groups", 1)
                vec = max(
                    v for v in (2, 4, 8) if cg % v == 0 and v * (4 if storage == "f32" else 2) <= 16
                )
                tiles = CONV_TILES[(i + d + (layout == "NCHW")) % len(CONV_TILES)]
                cases.append(conv2d(storage, layout, dict(tiles, VEC=vec), **problem))
    # 1024 and 512 threads (the NCHW gather with fewer tile elements than
    # threads, and more); tiles that divide the problem exactly.
    wide = dict(CONV_PROBLEMS[0], C=16)
    exact = dict(N=2, C=32, H=8, W=8, K=64, R=1, S=1)
    for layout in ("NHWC", "NCHW"):
        cases += [
            conv2d("f16", layout, cfg(256, 32, 16, 16, 16, 3, 8, 8, 1), **wide),
            conv2d("f32", layout, cfg(128, 64, 16, 16, 32, 4, 2, 0, 2), **CONV_PROBLEMS[0]),
            conv2d("bf16", layout, cfg(64, 32, 32, 32, 16, 2, 8, 8, 1), **exact),
        ]
    # NCHW with fewer threads (64) than pixels in the tile (128): a thread
    # gathers two pixels' columns, every row, through the reduction table.
    cases.append(conv2d("bf16", "NCHW", cfg(32, 128, 16, 32, 64, 3, 8, 8, 1), **CONV_PROBLEMS[2]))
    # Windows far from the origin: a row over 16,383 pixels wide, a
    # dilation that takes a tap 17,000 rows down (with pixels past the last
    # in the last tile); and filters of 7 x 7 and 5 x 7, whose 49 and 35
    # taps are more than a 32-bit mask of the taps inside the image holds.
    wide_row = dict(N=1, C=8, H=1, W=16390, K=8, R=1, S=3, pad_w=1)
    far_tap = dict(N=1, C=8, H=20000, W=4, K=8, R=2, S=1, pad_h=1, dilation_h=17000)
    big_filter = dict(N=2, C=16, H=9, W=8, K=12, R=7, S=7, pad_h=3, pad_w=2, stride_w=2, bias=1)
    five_by_seven = dict(big_filter, R=5, dilation_h=2)
    for layout in ("NHWC", "NCHW"):
        cases.append(conv2d("f16", layout, cfg(32, 32, 16, 16, 16, 2, 8, 8, 1), **wide_row))
        cases.append(conv2d("bf16", layout, cfg(64, 32, 16, 32, 16, 2, 8, 8, 1), **far_tap))
        cases.append(conv2d("f16", layout, cfg(64, 32, 32, 32, 16, 3, 8, 8, 1), **big_filter))
        cases.append(conv2d("f32", layout, cfg(32, 32, 16, 16, 16, 2, 4, 8, 1), **five_by_seven))
    return cases


def split_k_cases():
    """Split-K (SPLITK > 1) in both templates and every dtype: uneven splits,
    splits left with no K tile at all (K of 3 tiles over 8), groups (the
    tile index runs over them), bias, both conv layouts."""

    def split(config, splitk):
        return dict(config, SPLITK=splitk)

    return [
        gemm("f16", 72, 56, 200, 0, 0, 0, split(cfg(64, 32, 32, 32, 16, 3, 8, 8, 1), 2)),
        gemm("f32", 70, 40, 100, 1, 1, 1, split(cfg(32, 64, 16, 16, 32, 2, 2, 0, 2), 4)),
        gemm("bf16", 40, 72, 40, 0, 1, 0, split(cfg(32, 32, 16, 16, 16, 4, 8, 8, 1), 8)),
        conv2d("f16", "NHWC", split(cfg(64, 32, 16, 32, 16, 3, 8, 8, 1), 4), **CONV_PROBLEMS[2]),
        conv2d("f32", "NHWC", split(cfg(32, 32, 32, 16, 16, 2, 4, 0, 1), 2), **CONV_PROBLEMS[1]),
        conv2d("bf16", "NCHW", split(cfg(32, 64, 16, 16, 32, 3, 4, 8, 1), 2), **CONV_PROBLEMS[0]),
        conv2d("f32", "NCHW", split(cfg(32, 32, 16, 16, 16, 4, 2, 8, 2), 8), **CONV_PROBLEMS[4]),
        # Three tiles per split through a ring of two: NCHW's gather of the
        # patch runs inside the loop, not only before it.
        conv2d(
            "f16",
            "NCHW",
            split(cfg(32, 32, 16, 16, 16, 2, 4, 8, 1), 2),
            **dict(CONV_PROBLEMS[0], C=32),
        ),
    ]


def default_cases():
    """The spaces' default configs (from the space files), with tails."""
    conv = dict(N=2, C=16, H=14, W=13, K=40, R=3, S=3, pad_h=1, pad_w=1, bias=1)
    return [
        gemm("f16", 136, 200, 72, 0, 0, 0),
        gemm("bf16", 136, 200, 72, 1, 1, 1),
        gemm("f32", 200, 136, 68, 1, 0, 0),
        gemm("f32", 136, 200, 68, 0, 1, 1),
    ] + [conv2d(st, layout, **conv) for layout in ("NHWC", "NCHW") for st in ("f16", "bf16", "f32")]
