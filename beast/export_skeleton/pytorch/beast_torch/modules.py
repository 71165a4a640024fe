"""The Python face of beast_torch: functions with a backward, and Conv2d.

The library tunes forward kernels only. When an input needs a gradient, the
forward pass still runs beast's kernel and the backward pass runs PyTorch's
own convolution gradients (torch.nn.grad), with a warning the first time.
When none does (inference), Conv2d prepares its weights once per input
shape and weight version (torch.ops.beast.conv2d_prepare): a tuned kernel
that transforms its weights first (Winograd) then does it once, not per call.
"""

import collections
import threading
import warnings

import torch
import torch.nn.functional as F

_warned_backward = False


def _warn_backward_once():
    global _warned_backward
    if not _warned_backward:
        _warned_backward = True
        warnings.warn(
            "beast_torch: the backward pass runs PyTorch's own gradients (beast tunes "
            "the forward pass only)",
            stacklevel=3,
        )


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _needs_grad(*tensors):
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


class _Conv2dFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups):
        ctx.save_for_backward(x, weight)
        ctx.conv = (stride, padding, dilation, groups, bias is not None)
        return torch.ops.beast.conv2d(x, weight, bias, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad):
        _warn_backward_once()
        x, weight = ctx.saved_tensors
        stride, padding, dilation, groups, has_bias = ctx.conv
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = torch.nn.grad.conv2d_input(
                x.shape, weight, grad, stride, padding, dilation, groups
            )
        if ctx.needs_input_grad[1]:
            gw = torch.nn.grad.conv2d_weight(
                x, weight.shape, grad, stride, padding, dilation, groups
            )
        if has_bias and ctx.needs_input_grad[2]:
            gb = grad.sum((0, 2, 3))
        return gx, gw, gb, None, None, None, None


class _LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return torch.ops.beast.linear(x, weight, bias)

    @staticmethod
    def backward(ctx, grad):
        _warn_backward_once()
        x, weight = ctx.saved_tensors
        gx = grad @ weight if ctx.needs_input_grad[0] else None
        rows = grad.reshape(-1, grad.shape[-1])
        gw = rows.t() @ x.reshape(-1, x.shape[-1]) if ctx.needs_input_grad[1] else None
        gb = rows.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return gx, gw, gb


def _explicit_padding(x, weight, padding, dilation, stride):
    """(input, (pad_h, pad_w)) for a padding of ints or 'valid' / 'same'; an
    uneven 'same' (an even dilated filter) pads the input itself first.
    'same' with a stride is refused, as PyTorch refuses it: no padding keeps
    a strided output the input's size."""
    if not isinstance(padding, str):
        return x, _pair(padding)
    if padding == "valid":
        return x, (0, 0)
    if padding != "same":
        raise ValueError("padding must be an int, a pair, 'valid' or 'same', not %r" % padding)
    if tuple(stride) != (1, 1):
        raise ValueError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    if all(t % 2 == 0 for t in totals):
        return x, (totals[0] // 2, totals[1] // 2)
    h, w = totals
    return F.pad(x, [w // 2, w - w // 2, h // 2, h - h // 2]), (0, 0)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d through beast's kernels."""
    stride, dilation = _pair(stride), _pair(dilation)
    x, padding = _explicit_padding(x, weight, padding, dilation, stride)
    if _needs_grad(x, weight, bias):
        return _Conv2dFunction.apply(x, weight, bias, stride, padding, dilation, groups)
    return torch.ops.beast.conv2d(x, weight, bias, stride, padding, dilation, groups)


def prepare_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """The weights prepared once for convolutions of inputs shaped as x (its
    shape, dtype, device and memory format): call .forward(input) on what it
    returns. A kernel with a prepare step (Winograd's filter transform) reads
    what that step made of the weights, one without reads the weights
    themselves: after they change, prepare again. It holds a workspace of
    device memory sized for x's shape until it is freed. No backward
    (inference)."""
    stride, dilation = _pair(stride), _pair(dilation)
    padded, padding = _explicit_padding(x, weight, padding, dilation, stride)
    if padded is not x:
        raise ValueError(
            "prepare_conv2d: padding='same' with an even dilated filter pads the input "
            "unevenly; pad it first (torch.nn.functional.pad) and pass padding=0"
        )
    return torch.ops.beast.conv2d_prepare(x, weight, bias, stride, padding, dilation, groups)


def explain_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Which kernel conv2d would run for these arguments, and why."""
    stride, dilation = _pair(stride), _pair(dilation)
    x, padding = _explicit_padding(x, weight, padding, dilation, stride)
    return torch.ops.beast.explain_conv2d(x, weight, bias, stride, padding, dilation, groups)


def linear(x, weight, bias=None):
    """torch.nn.functional.linear through beast's GEMM (PyTorch adds the bias)."""
    if _needs_grad(x, weight, bias):
        return _LinearFunction.apply(x, weight, bias)
    return torch.ops.beast.linear(x, weight, bias)


def gemm(a, b):
    """a @ b for 2-D a and b through beast's GEMM (no backward)."""
    return torch.ops.beast.gemm(a, b)


def explain_gemm(a, b):
    """Which kernel gemm(a, b) would run, and why."""
    return torch.ops.beast.explain_gemm(a, b)


_cache_lock = threading.Lock()  # the layers' caches of prepared convolutions


def _identity(t):
    """What tells a tensor's memory and contents apart from another's or an
    earlier version's: a prepared convolution is valid while it is the same."""
    if t is None:
        return None
    return (t.data_ptr(), t._version, t.shape, t.stride(), t.dtype, t.device)


def _versioned(*tensors):
    """Whether PyTorch counts the in-place changes of every tensor given (an
    inference tensor, made under torch.inference_mode(), has no version)."""
    return not any(t is not None and t.is_inference() for t in tensors)


class Conv2d(torch.nn.Conv2d):
    """torch.nn.Conv2d whose forward pass runs beast's kernels: the same
    constructor, parameters and state dict.

    When no gradient is needed (torch.no_grad() or torch.inference_mode(),
    or parameters that need none), the forward pass runs on weights prepared
    once (beast_torch.prepare_conv2d), kept for the last `prepared_shapes`
    input shapes (each with a workspace of device memory for its shape) and
    made again when a parameter changes in place or is replaced, or the
    layer's stride, padding, dilation or groups change. A change PyTorch
    does not count (one made through .data) is not seen: call
    release_prepared() after it, or set prepare_weights to False to prepare
    in every call. Parameters made under torch.inference_mode() have no
    version to watch: their layers prepare in every call."""

    prepare_weights = True
    prepared_shapes = 4

    def _prepared_for(self, input, padding):
        """The prepared convolution for input (padded as the layer pads it)."""
        layer = (
            _identity(self.weight),
            _identity(self.bias),
            tuple(self.stride),
            tuple(padding),
            tuple(self.dilation),
            self.groups,
        )
        key = (tuple(input.shape), input.stride(), input.dtype, input.device, layer)
        with _cache_lock:
            cache = self.__dict__.setdefault("_beast_prepared", collections.OrderedDict())
            prepared = cache.get(key)
            if prepared is not None:
                cache.move_to_end(key)
                return prepared
        prepared = prepare_conv2d(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )
        with _cache_lock:
            for stale in [k for k in cache if k[4] != layer]:
                del cache[stale]  # what the layer was before: never valid again
            cache[key] = prepared
            cache.move_to_end(key)
            while len(cache) > max(1, self.prepared_shapes):
                cache.popitem(last=False)
        return prepared

    def release_prepared(self):
        """Drops the prepared weights (the next forward pass prepares again)."""
        self.__dict__.pop("_beast_prepared", None)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_beast_prepared", None)  # device memory: not copied, prepared again
        return state

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica.__dict__.pop("_beast_prepared", None)  # its own weights, its own cache
        return replica

    def _padded(self, input):
        """(input, padding) for the zero-padded convolution this layer is:
        another padding_mode pads the input with PyTorch first."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0

    def forward(self, input):
        input, padding = self._padded(input)
        if (
            not self.prepare_weights
            or _needs_grad(input, self.weight, self.bias)
            or not _versioned(self.weight, self.bias)
        ):
            return conv2d(
                input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
            )
        input, padding = _explicit_padding(
            input, self.weight, padding, _pair(self.dilation), _pair(self.stride)
        )
        return self._prepared_for(input, padding).forward(input)

    def explain(self, input):
        """Which kernel this layer runs for input, and why."""
        input, padding = self._padded(input)
        return explain_conv2d(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )

    @classmethod
    def from_conv2d(cls, conv):
        """A beast Conv2d that shares conv's parameters, buffers and hooks."""
        new = cls.__new__(cls)
        new.__dict__.update(conv.__dict__)
        for field in ("_parameters", "_buffers", "_modules"):
            setattr(new, field, collections.OrderedDict(getattr(conv, field)))
        return new


def replace_convs(model):
    """Swaps every torch.nn.Conv2d of model (exactly that class: subclasses
    keep their own forward) for a beast_torch.Conv2d sharing its parameters,
    in place, and returns model (a bare nn.Conv2d comes back swapped)."""
    if type(model) is torch.nn.Conv2d:
        return Conv2d.from_conv2d(model)
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Conv2d:
                setattr(parent, name, Conv2d.from_conv2d(child))
    return model
