"""The least data a problem must move, read from its canonical key, for the
roofline's arithmetic intensity (FLOPs / bytes).

conv2d: input + filter + output, gemm: A + B + C, each element read or written
once (any kernel moves at least this much, so the intensity is an upper
bound). Keys are parsed as beast/problem/problem.cpp writes and reads them
(stride, pad and dilation with _h/_w variants, output extents by floor
division). Any other op (an imported Kernel Tuner problem) has no known size:
None.
"""

_DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def _fields(key):
    op, _, rest = key.partition(":")
    fields = {}
    for item in rest.split(","):
        name, _, value = item.partition("=")
        fields[name.strip()] = value.strip()
    return op, fields


def _int(fields, *names, default=None):
    """The first of names present in fields, as an int."""
    for name in names:
        if name in fields:
            return int(fields[name])
    if default is None:
        raise KeyError(names[0])
    return default


def _out_extent(size, pad, dilation, filter_size, stride):
    return (size + 2 * pad - dilation * (filter_size - 1) - 1) // stride + 1


def min_bytes(key):
    """Bytes a run of problem `key` must move at least; None when unknown."""
    op, fields = _fields(key)
    try:
        element = _DTYPE_BYTES[fields.get("dtype", "f32")]
        if op == "gemm":
            m, n, k = _int(fields, "M"), _int(fields, "N"), _int(fields, "K")
            return element * (m * k + k * n + m * n)
        if op == "conv2d":
            n, c, h, w = (_int(fields, name) for name in ("N", "C", "H", "W"))
            k, r, s = (_int(fields, name) for name in ("K", "R", "S"))
            groups = _int(fields, "groups", default=1)
            p = _out_extent(
                h,
                _int(fields, "pad_h", "pad", default=0),
                _int(fields, "dilation_h", "dilation", default=1),
                r,
                _int(fields, "stride_h", "stride", default=1),
            )
            q = _out_extent(
                w,
                _int(fields, "pad_w", "pad", default=0),
                _int(fields, "dilation_w", "dilation", default=1),
                s,
                _int(fields, "stride_w", "stride", default=1),
            )
            return element * (n * c * h * w + k * (c // groups) * r * s + n * k * p * q)
    except (KeyError, ValueError):
        return None
    return None
