"""The cases the tensor-core emulation runs: a problem of gemm/mma or
conv2d/implicit_gemm_mma (f16, bf16, or f32 with math=tf32) and a config,
with the values beast derives for them from the space file (problem
variables as Problem::Variables gives them, the sm_90 device table, the
config or the space's defaults, derived values, hard constraints), and
random valid cases for the full sweep. What runs them, and what that does
not check, is emulation.py's business.
"""

import dataclasses
import random
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "kernel_templates"
SPACES = {"gemm": "gemm/mma", "conv2d": "conv2d/implicit_gemm_mma"}
DEVICE_TABLE = REPO / "constraints" / "devices" / "sm_90.yaml"
CONV_SHAPE = ("N", "C", "H", "W", "K", "R", "S", "stride_h", "stride_w", "pad_h", "pad_w")
CONV_SHAPE += ("dilation_h", "dilation_w", "groups", "bias")


@dataclasses.dataclass(frozen=True)
class Case:
    """One problem and config. shape: gemm (m, n, k, trans_a, trans_b,
    col_major) as the user states it; conv2d the CONV_SHAPE values. config:
    ((name, value), ...); parameters it leaves out take the space's default."""

    op: str
    storage: str  # f16, bf16, or f32 (math=tf32)
    shape: tuple
    layout: str = "ROW_MAJOR"  # conv2d: NHWC or NCHW
    config: tuple = ()

    @property
    def id(self):
        cfg = ".".join("%s%s" % kv for kv in self.config) or "default"
        if self.op == "gemm":
            m, n, k, ta, tb, col = self.shape
            return "gemm-%s-t%d%dc%d-%dx%dx%d-%s" % (self.storage, ta, tb, col, m, n, k, cfg)
        p = dict(zip(CONV_SHAPE, self.shape))
        return "conv-%s-%s-%s-st%d%d.pad%d%d.dil%d%d.g%d.bias%d-%s" % (
            self.layout,
            self.storage,
            "N{N}C{C}H{H}W{W}K{K}R{R}S{S}".format(**p),
            p["stride_h"],
            p["stride_w"],
            p["pad_h"],
            p["pad_w"],
            p["dilation_h"],
            p["dilation_w"],
            p["groups"],
            p["bias"],
            cfg,
        )


def gemm(storage, m, n, k, trans_a=0, trans_b=0, col_major=0, config=None):
    return Case("gemm", storage, (m, n, k, trans_a, trans_b, col_major), config=_tuple(config))


def conv2d(storage, layout, config=None, **shape):
    defaults = dict(stride_h=1, stride_w=1, pad_h=0, pad_w=0, dilation_h=1, dilation_w=1)
    shape = {**defaults, "groups": 1, "bias": 0, **shape}
    return Case("conv2d", storage, tuple(shape[c] for c in CONV_SHAPE), layout, _tuple(config))


def _tuple(config):
    return tuple(config.items()) if config else ()


# ---- the space file, evaluated as beast evaluates it ----

_FUNCTIONS = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max, "abs": abs}
_FUNCTIONS.update(int=int, float=float, __builtins__={})


def evaluate(expr, names):
    """A space expression's value (the space language is a Python subset)."""
    return expr if isinstance(expr, (int, float)) else eval(str(expr), _FUNCTIONS, names)


def load_space(op):
    with open(TEMPLATES / (SPACES[op] + ".space.yaml")) as f:
        return yaml.safe_load(f)


def device_names():
    """The sm_90 table as the spaces' device_ variables."""
    with open(DEVICE_TABLE) as f:
        spec = yaml.safe_load(f)
    sizes = spec["max_work_item_sizes"]
    return dict(
        device_max_work_group_size=spec["max_work_group_size"],
        device_max_work_item_size_0=sizes[0],
        device_max_work_item_size_1=sizes[1],
        device_max_work_item_size_2=sizes[2],
        device_local_mem_bytes=spec["local_mem_bytes"],
        device_static_local_mem_bytes=48 * 1024,  # CUDA's, without the opt-in
        device_compute_units=spec["compute_units"],
        device_warp_size=spec["warp_size"],
        device_max_registers_per_thread=spec["max_registers_per_thread"],
        device_is_cuda=1,
        device_cuda_cc=90,
        device_max_groups_1=65535,
        device_max_groups_2=65535,
    )


def conv_output(p):
    P = (p["H"] + 2 * p["pad_h"] - p["dilation_h"] * (p["R"] - 1) - 1) // p["stride_h"] + 1
    Q = (p["W"] + 2 * p["pad_w"] - p["dilation_w"] * (p["S"] - 1) - 1) // p["stride_w"] + 1
    return P, Q


def problem_vars(case):
    """The problem's variables, as beast's Problem::Variables gives them."""
    dtype = dict(dtype_bytes=4 if case.storage == "f32" else 2, compute_bytes=4)
    dtype["tf32"] = int(case.storage == "f32")
    if case.op == "gemm":
        m, n, k, ta, tb, col = case.shape
        if col:  # C^T = op(B)^T op(A)^T, read row-major (problem.cpp)
            return dict(M=n, N=m, K=k, trans_a=tb, trans_b=ta, col_major=1, **dtype)
        return dict(M=m, N=n, K=k, trans_a=ta, trans_b=tb, col_major=0, **dtype)
    p = dict(zip(CONV_SHAPE, case.shape))
    p["P"], p["Q"] = conv_output(p)
    return dict(p, nhwc=int(case.layout == "NHWC"), **dtype)


def value_set(param, names):
    if "values" in param:
        return [evaluate(v, names) for v in param["values"]]
    if "range" in param:
        return list(range(*[evaluate(v, names) for v in param["range"]]))
    lo, hi = [evaluate(v, names) for v in param["pow2"]]
    return [2**e for e in range(31) if lo <= 2**e <= hi]


class InvalidConfig(Exception):
    pass


def resolve(case, space=None):
    """Problem, device, config and derived values of the case; InvalidConfig
    when a value is outside its set or a hard constraint before compile
    fails."""
    space = space or load_space(case.op)
    names = dict(problem_vars(case), **device_names())
    config = dict(case.config)
    for p in space["parameters"]:
        value = config[p["name"]] if p["name"] in config else evaluate(p["default"], names)
        if value not in value_set(p, names):
            raise InvalidConfig("%s: %s=%s is outside its value set" % (case.id, p["name"], value))
        names[p["name"]] = value
    for d in space.get("derived", []):
        names[d["name"]] = evaluate(d["expr"], names)
    failed = [
        c["expr"]
        for c in space.get("constraints", [])
        if c.get("kind", "hard") == "hard"
        and c.get("stage", "before_compile") != "after_compile"
        and not evaluate(c["expr"], names)
    ]
    if failed:
        raise InvalidConfig("%s: hard constraints fail: %s" % (case.id, "; ".join(failed)))
    return names


# ---- random cases, for the full sweep ----

PATHS = ("gemm_tf32", "gemm16", "conv_nhwc", "conv_nchw")


def _random_config(rnd, space, names):
    names = dict(names)
    for p in space["parameters"]:
        names[p["name"]] = rnd.choice(value_set(p, names))
        # Half the configs without split-K, so that its path, which every
        # config not tuned for an idle device takes, keeps its share.
        if p["name"] == "SPLITK" and rnd.random() < 0.5:
            names["SPLITK"] = 1
    return {p["name"]: names[p["name"]] for p in space["parameters"]}


def _random_shape(rnd, path):
    if path.startswith("gemm"):

        def dim():
            return rnd.choice([rnd.randint(1, 200), rnd.randint(1, 40), 8 * rnd.randint(1, 25)])

        return dim(), dim(), dim()
    G = rnd.choice([1, 1, 2, 3, 4])
    shape = dict(
        N=rnd.randint(1, 3),
        C=G * rnd.choice([2, 4, 6, 8, 12, 16, 24, 32]),
        H=rnd.randint(1, 12),
        W=rnd.randint(1, 12),
        K=G * rnd.randint(1, 24),
        R=rnd.randint(1, 4),
        S=rnd.randint(1, 4),
        stride_h=rnd.randint(1, 3),
        stride_w=rnd.randint(1, 3),
        pad_h=rnd.randint(0, 2),
        pad_w=rnd.randint(0, 2),
        dilation_h=rnd.randint(1, 2),
        dilation_w=rnd.randint(1, 2),
        groups=G,
        bias=rnd.randint(0, 1),
    )
    return shape


def random_cases(path, count, seed, max_threads=256, max_blocks=24):
    """count valid cases of one path (gemm_tf32, gemm16: f16 and bf16,
    conv_nhwc, conv_nchw; all 8 gemm transpositions in turn, the conv
    dtypes in turn), configs drawn from the space's value sets; at most
    max_threads per block and max_blocks blocks keep each emulation short."""
    rnd = random.Random("%s/%d" % (path, seed))
    op = "gemm" if path.startswith("gemm") else "conv2d"
    space = load_space(op)
    cases = []
    while len(cases) < count:
        i = len(cases)
        if op == "gemm":
            storage = "f32" if path == "gemm_tf32" else rnd.choice(["f16", "bf16"])
            combo = (i & 1, (i >> 1) & 1, (i >> 2) & 1)
        else:
            storage = ["f16", "bf16", "f32"][i % 3]
        for _ in range(100000):
            if op == "gemm":
                case = gemm(storage, *_random_shape(rnd, path), *combo)
            else:
                layout = "NHWC" if path == "conv_nhwc" else "NCHW"
                case = conv2d(storage, layout, **_random_shape(rnd, path))
            names = dict(problem_vars(case), **device_names())
            if op == "conv2d" and min(names["P"], names["Q"]) < 1:
                continue
            case = dataclasses.replace(case, config=_tuple(_random_config(rnd, space, names)))
            try:
                names = resolve(case, space)
            except InvalidConfig:
                continue
            if names["THREADS"] <= max_threads and names["GROUPS"] <= max_blocks:
                cases.append(case)
                break
        else:
            raise RuntimeError("no valid %s case found in 100000 draws" % path)
    return cases
