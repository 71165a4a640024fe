"""The job file of an ONNX model (`beast problems --onnx MODEL`): every 2-D
Conv and every Gemm/MatMul whose shapes are known after ONNX shape inference,
as beast problem keys in model order, equal shapes merged into one line with
their count as weight (`x3`) and a comment naming the first node. Nodes of
those kinds that beast cannot express (3-D convolutions, transposed ones,
asymmetric padding, shapes left unknown) are listed in comments with the
reason, never dropped silently."""

import math
from dataclasses import dataclass, field

from beast_analysis.errors import InputError, os_message

DTYPES = ("f32", "f64", "f16", "bf16")
LAYOUTS = ("NCHW", "NHWC")


@dataclass
class Job:
    keys: list = field(default_factory=list)  # in model order, once each
    weights: dict = field(default_factory=dict)  # key -> layers sharing it
    first_node: dict = field(default_factory=dict)  # key -> "name (op)"
    unmapped: list = field(default_factory=list)  # "name (op): why"

    def add(self, key, node):
        if key not in self.weights:
            self.keys.append(key)
            self.weights[key] = 0
            self.first_node[key] = node
        self.weights[key] += 1


def _node_name(node, index):
    return f"{node.name or f'node {index}'} ({node.op_type})"


def _attributes(node):
    import onnx

    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _with_batch(model, batch):
    """The model with each graph input's symbolic leading (batch) dimension
    set to `batch`, and the inferred shapes it carried dropped: shape
    inference then works the batch through every node, Reshape's -1
    included (data propagation), where taking any unknown leading dimension
    for the batch would be wrong (a [batch * 128, 768] reshape of a [batch,
    128, 768] input)."""
    import onnx

    initialized = {init.name for init in model.graph.initializer}
    for info in model.graph.input:
        if info.name in initialized or not info.type.HasField("tensor_type"):
            continue
        shape = info.type.tensor_type.shape
        if len(shape.dim) and not shape.dim[0].HasField("dim_value"):
            shape.dim[0].dim_value = batch
    del model.graph.value_info[:]
    return onnx.shape_inference.infer_shapes(model, data_prop=True)


def _shapes(model):
    """Tensor name -> list of ints (None where a dimension stays unknown)."""
    shapes = {}

    def dims(tensor_type):
        return [d.dim_value if d.HasField("dim_value") else None for d in tensor_type.shape.dim]

    graph = model.graph
    for info in list(graph.input) + list(graph.value_info) + list(graph.output):
        if info.type.HasField("tensor_type") and info.type.tensor_type.HasField("shape"):
            shapes[info.name] = dims(info.type.tensor_type)
    for init in graph.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def _conv_key(node, attrs, shapes, layout, dtype):
    x, w = shapes.get(node.input[0]), shapes.get(node.input[1])
    if w is not None and len(w) != 4:
        return None, f"a {len(w) - 2}-D convolution (beast tunes 2-D ones)"
    if x is None or w is None or None in x or None in w or len(x) != 4:
        return None, "its input or filter shape is unknown after shape inference"
    n, c, h, width = x
    k, cg, r, s = w
    group = attrs.get("group", 1)
    strides = list(attrs.get("strides", [1, 1]))
    dilations = list(attrs.get("dilations", [1, 1]))
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("NOTSET", ""):
        pads = list(attrs.get("pads", [0, 0, 0, 0]))
    elif auto_pad == "VALID":
        pads = [0, 0, 0, 0]
    else:  # SAME_UPPER / SAME_LOWER: the output is ceil(input / stride)
        pads = []
        for size, stride, taps, dil in (
            (h, strides[0], r, dilations[0]),
            (width, strides[1], s, dilations[1]),
        ):
            out = math.ceil(size / stride)
            total = max(0, (out - 1) * stride + (taps - 1) * dil + 1 - size)
            small, large = total // 2, total - total // 2
            pads.append((small, large) if auto_pad == "SAME_UPPER" else (large, small))
        pads = [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
    if pads[0] != pads[2] or pads[1] != pads[3]:
        return None, f"asymmetric padding {pads} (beast pads each side alike)"
    if c != cg * group:
        return None, f"its input has {c} channels, its filter {cg} per group of {group}"
    bias = len(node.input) > 2 and node.input[2] != ""
    key = (
        f"conv2d:N={n},C={c},H={h},W={width},K={k},R={r},S={s},stride_h={strides[0]},"
        f"stride_w={strides[1]},pad_h={pads[0]},pad_w={pads[1]},dilation_h={dilations[0]},"
        f"dilation_w={dilations[1]},groups={group}{',bias=1' if bias else ''},layout={layout},"
        f"dtype={dtype}"
    )
    return key, None


def _gemm_key(node, attrs, shapes, dtype):
    a, b = shapes.get(node.input[0]), shapes.get(node.input[1])
    if a is None or b is None or None in a or None in b:
        return None, "an input shape is unknown after shape inference"
    if node.op_type == "Gemm":
        ta, tb = attrs.get("transA", 0), attrs.get("transB", 0)
        m, k = (a[1], a[0]) if ta else (a[0], a[1])
        n = b[0] if tb else b[1]
        return f"gemm:M={m},N={n},K={k},transA={ta},transB={tb},dtype={dtype}", None
    # MatMul: [..., M, K] x [K, N]; the leading dimensions of A fold into M
    # (a linear layer over a batch); a batched B has no gemm of its own.
    if len(b) != 2 or len(a) < 2:
        return None, f"a batched MatMul ({a} x {b}): beast's gemm multiplies two matrices"
    m = math.prod(a[:-1])
    return f"gemm:M={m},N={b[1]},K={a[-1]},transA=0,transB=0,dtype={dtype}", None


def job_of_model(path, batch=1, dtype="f32", layout="NCHW"):
    """The Job of the ONNX model at `path` (see the module's docstring)."""
    import onnx

    if dtype not in DTYPES:
        raise InputError(f"--dtype must be one of {', '.join(DTYPES)}, not {dtype}")
    if layout not in LAYOUTS:
        raise InputError(f"--layout must be NCHW or NHWC, not {layout}")
    if batch < 1:
        raise InputError(f"--batch must be at least 1, not {batch}")
    try:
        model = onnx.load(str(path))
    except OSError as error:
        raise InputError(os_message(error, path)) from error
    except Exception as error:  # onnx raises what protobuf raises on a malformed file
        raise InputError(f"{path}: not an ONNX model ({error})") from error
    model = _with_batch(model, batch)
    shapes = _shapes(model)
    job = Job()
    for index, node in enumerate(model.graph.node):
        name = _node_name(node, index)
        if node.op_type == "ConvTranspose":
            job.unmapped.append(f"{name}: a transposed convolution")
            continue
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        attrs = _attributes(node)
        if node.op_type == "Conv":
            key, why = _conv_key(node, attrs, shapes, layout, dtype)
        else:
            key, why = _gemm_key(node, attrs, shapes, dtype)
        if key is None:
            job.unmapped.append(f"{name}: {why}")
        else:
            job.add(key, name)
    return job


def job_text(path, batch=1, dtype="f32", layout="NCHW"):
    """The job file of the model: a header comment, one line per shape
    (`KEY xN  # first: NODE`), then the nodes it could not map."""
    job = job_of_model(path, batch, dtype, layout)
    convs = sum(1 for k in job.keys if k.startswith("conv2d:"))
    layers = sum(job.weights.values())
    header = (
        f"# beast problems --onnx {path} --batch {batch}: {convs} conv2d and "
        f"{len(job.keys) - convs} gemm shapes of {layers} layers"
    )
    lines = [header]
    for key in job.keys:
        lines.append(f"{key} x{job.weights[key]}  # first: {job.first_node[key]}")
    for line in job.unmapped:
        lines.append(f"# not mapped: {line}")
    return "\n".join(lines) + "\n"
