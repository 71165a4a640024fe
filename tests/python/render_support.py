"""What the render tests share: the renderer (harness/render/render.py,
loaded as a module), the space files evaluated with Python's own semantics
(the space language is a Python subset), problems as the template variables
beast gives them, and a render of one config that must succeed. A module of
its own, not a test file, so the test files import it without importing
each other."""

import importlib.util
import os

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(ROOT, "kernel_templates")
RENDER_PY = os.path.join(ROOT, "harness", "render", "render.py")

_spec = importlib.util.spec_from_file_location("beast_render", RENDER_PY)
render = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render)

DEVICE = {  # PoCL on a 2-core CPU, as `beast devices` reports it
    "device_max_work_group_size": 4096,
    "device_max_work_item_size_0": 4096,
    "device_max_work_item_size_1": 4096,
    "device_max_work_item_size_2": 4096,
    "device_local_mem_bytes": 524288,
    "device_static_local_mem_bytes": 524288,
    "device_compute_units": 2,
    "device_warp_size": 8,
    "device_max_registers_per_thread": 0,
    "device_max_groups_1": 2147483647,
    "device_max_groups_2": 2147483647,
}


def conv_problem(
    N=1,
    C=64,
    H=56,
    W=56,
    K=64,
    R=3,
    S=3,
    stride=(1, 1),
    pad=(1, 1),
    dilation=(1, 1),
    groups=1,
    bias=0,
):
    p = {
        "N": N,
        "C": C,
        "H": H,
        "W": W,
        "K": K,
        "R": R,
        "S": S,
        "stride_h": stride[0],
        "stride_w": stride[1],
        "pad_h": pad[0],
        "pad_w": pad[1],
        "dilation_h": dilation[0],
        "dilation_w": dilation[1],
        "groups": groups,
        "bias": bias,
        "dtype_bytes": 4,  # f32, as beast's Problem::Variables says
        "compute_bytes": 4,
    }
    p["P"] = (H + 2 * pad[0] - dilation[0] * (R - 1) - 1) // stride[0] + 1
    p["Q"] = (W + 2 * pad[1] - dilation[1] * (S - 1) - 1) // stride[1] + 1
    return p


def gemm_problem(M=512, N=512, K=512, trans_a=0, trans_b=0, col_major=0):
    return {
        "M": M,
        "N": N,
        "K": K,
        "trans_a": trans_a,
        "trans_b": trans_b,
        "col_major": col_major,
        "dtype_bytes": 4,
        "compute_bytes": 4,
    }


_FUNCTIONS = {
    "ceil_div": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
    "abs": abs,
    "int": int,
    "float": float,
    "__builtins__": {},
}
_COMPILED = {}


def _eval(expr, names):
    if isinstance(expr, (int, float)):
        return expr
    code = _COMPILED.get(expr)
    if code is None:
        code = _COMPILED[expr] = compile(str(expr), "<space>", "eval")
    return eval(code, _FUNCTIONS, names)


def load_space(name):
    with open(os.path.join(TEMPLATES, name + ".space.yaml")) as f:
        return yaml.safe_load(f)


def value_set(param, names):
    if "values" in param:
        return [_eval(v, names) for v in param["values"]]
    if "range" in param:
        return list(range(*[_eval(v, names) for v in param["range"]]))
    lo, hi = [_eval(v, names) for v in param["pow2"]]
    return [2**e for e in range(31) if lo <= 2**e <= hi]


def complete(space, problem, config, hard_only=True):
    """problem + device + config + derived values, or None when a value is
    outside its value set or a constraint (hard only, unless told) fails."""
    names = dict(problem)
    names.update(DEVICE)
    for p in space["parameters"]:
        value = config[p["name"]]
        if value not in value_set(p, names):
            return None
        names[p["name"]] = value
    for d in space.get("derived", []):
        names[d["name"]] = _eval(d["expr"], names)
    for c in space.get("constraints", []):
        if hard_only and c.get("kind", "hard") == "soft":
            continue
        if not _eval(c["expr"], names):
            return None
    return names


def count_valid(space, problem):
    """Brute force over the value sets: (raw size, valid configs)."""
    params, raw, valid = space["parameters"], 0, 0

    def walk(i, names):
        nonlocal raw, valid
        if i == len(params):
            raw += 1
            full = dict(names)
            for d in space.get("derived", []):
                full[d["name"]] = _eval(d["expr"], full)
            valid += all(_eval(c["expr"], full) for c in space.get("constraints", []))
            return
        for value in value_set(params[i], names):
            names[params[i]["name"]] = value
            walk(i + 1, names)
        del names[params[i]["name"]]

    names = dict(problem)
    names.update(DEVICE)
    walk(0, names)
    return raw, valid


def default_config(space, problem):
    names = dict(problem)
    names.update(DEVICE)
    return {p["name"]: _eval(p["default"], names) for p in space["parameters"]}


def template_vars(space, problem, config, backend="opencl", layout="NCHW"):
    names = complete(space, problem, config)
    assert names is not None, "config %s is not valid for %s" % (config, problem)
    variables = {k: v for k, v in names.items() if not k.startswith("device_")}
    variables.update(LAYOUT=layout, KERNEL_NAME=space["kernel"], BACKEND=backend, DTYPE="float")
    return variables


def source_name(space_name, space):
    return os.path.dirname(space_name) + "/" + space["source"]


def render_reply(env, space_name, problem, config, backend="opencl", layout="NCHW", **extra):
    """The renderer's reply for a config of a space: {"source"} or
    {"error"}; extra: more template variables (STORAGE=...)."""
    space = load_space(space_name)
    variables = template_vars(space, problem, config, backend, layout)
    variables.update(extra)
    return render.render_request(
        env, TEMPLATES, {"template": source_name(space_name, space), "vars": variables}
    )


def render_ok(env, space_name, problem, config, backend="opencl", layout="NCHW", **extra):
    """The source a config renders to, which must render without error."""
    reply = render_reply(env, space_name, problem, config, backend, layout, **extra)
    assert "error" not in reply, reply.get("error")
    return reply["source"]


CONV_DEFAULT = conv_problem()
GEMM_DEFAULT = gemm_problem()
