"""Triton's reductions, scans and histogram, which lower to warp shuffles, `redux.sync`
and shared-memory trees: one kernel per (operation, type), over a BLOCK x BLOCK tile
along each axis (axis 1 stays within a warp; axis 0 crosses warps), and over the
whole tile.
"""
import triton
import triton.language as tl

BLOCK = 32


@triton.jit
def _and(a, b):
    return a & b


@triton.jit
def _or(a, b):
    return a | b


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _min_nan(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _reduce(x, axis: tl.constexpr, OP: tl.constexpr):
    if OP == "sum":
        r = tl.sum(x, axis=axis)
    elif OP == "max":
        r = tl.max(x, axis=axis)
    elif OP == "min":
        r = tl.min(x, axis=axis)
    elif OP == "and":
        r = tl.reduce(x, axis, _and)
    elif OP == "or":
        r = tl.reduce(x, axis, _or)
    elif OP == "xor":
        r = tl.reduce(x, axis, _xor)
    elif OP == "argmax":
        r = tl.argmax(x, axis=axis)
    elif OP == "max_nan":
        r = tl.reduce(x, axis, _max_nan)
    elif OP == "min_nan":
        r = tl.reduce(x, axis, _min_nan)
    elif OP == "max_abs":
        r = tl.max(tl.abs(x), axis=axis)
    elif OP == "min_abs_nan":
        r = tl.reduce(tl.abs(x), axis, _min_nan)
    elif OP == "cumsum":
        r = tl.cumsum(x, axis=axis)
    elif OP == "scan_xor":
        r = tl.associative_scan(x, axis, _xor)
    else:
        r = tl.associative_scan(x, axis, _add, reverse=True)
    return r


@triton.jit
def reduce_kernel(x_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    offs = i[:, None] * BLOCK + i[None, :]
    x = tl.load(x_ptr + offs)
    if OP == "cumsum" or OP == "scan_xor" or OP == "scan_rev":
        tl.store(out_ptr + offs, _reduce(x, 0, OP))
        tl.store(out_ptr + BLOCK * BLOCK + offs, _reduce(x, 1, OP))
    else:
        tl.store(out_ptr + i, _reduce(x, 0, OP))
        tl.store(out_ptr + BLOCK + i, _reduce(x, 1, OP))
        tl.store(out_ptr + 2 * BLOCK, _reduce(tl.reshape(x, BLOCK * BLOCK), 0, OP))


@triton.jit
def histogram_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


OPS = ["sum", "max", "min", "and", "or", "xor", "argmax", "cumsum", "scan_xor", "scan_rev"]
TYPES = ["i32", "u32", "i64", "fp16", "bf16", "fp32", "fp64"]
# bitwise operations only on integers; NaN-propagating and absolute min/max (which
# can lower to redux.sync's .NaN and .abs at sm_100a) on the 16- and 32-bit floats
FLOAT_ONLY = ["max_nan", "min_nan", "max_abs", "min_abs_nan"]
OPS += FLOAT_ONLY
SKIP = ({(op, ty) for op in ["and", "or", "xor", "scan_xor"] for ty in ["fp16", "bf16", "fp32", "fp64"]}
        | {(op, ty) for op in FLOAT_ONLY for ty in ["i32", "u32", "i64", "fp64"]})

KERNELS = {
    f"{op}_{ty}": (reduce_kernel, {"x_ptr": f"*{ty}", "out_ptr": f"*{ty}" if op != "argmax" else "*i32",
                                   "OP": "constexpr", "BLOCK": "constexpr"},
                   {"OP": op, "BLOCK": BLOCK})
    for op in OPS for ty in TYPES if (op, ty) not in SKIP
}
KERNELS["histogram_i32"] = (histogram_kernel, {"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr",
                                               "BINS": "constexpr"}, {"BLOCK": 1024, "BINS": 64})
