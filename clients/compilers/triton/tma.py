"""Tensor descriptors (TMA, sm_90 and up): a tile loaded through one descriptor, stored
and atomically added through another (`desc.atomic_add`, Triton's TMA reduce, which
lowers to `cp.reduce.async.bulk.tensor`), and a gather along a row (`tl.gather`).
"""
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def tma_kernel(a_ptr, b_ptr, M, N, OP: tl.constexpr, BLOCK: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    b = tl.make_tensor_descriptor(b_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    pid = tl.program_id(0)
    x = a.load([pid * BLOCK, 0])
    if OP == "store":
        b.store([pid * BLOCK, 0], x)
    elif OP == "add":
        b.atomic_add([pid * BLOCK, 0], x)
    elif OP == "min":
        b.atomic_min([pid * BLOCK, 0], x)
    elif OP == "max":
        b.atomic_max([pid * BLOCK, 0], x)
    elif OP == "and":
        b.atomic_and([pid * BLOCK, 0], x)
    elif OP == "or":
        b.atomic_or([pid * BLOCK, 0], x)
    else:
        b.atomic_xor([pid * BLOCK, 0], x)


@triton.jit
def gather_kernel(x_ptr, i_ptr, out_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    offs = r[:, None] * BLOCK + r[None, :]
    x = tl.load(x_ptr + offs)
    idx = tl.load(i_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, idx, 1))


def _tma(op, ty):
    return (tma_kernel, {"a_ptr": f"*{ty}", "b_ptr": f"*{ty}", "M": "i32", "N": "i32",
                         "OP": "constexpr", "BLOCK": "constexpr"}, {"OP": op, "BLOCK": BLOCK})


# Not fp16/bf16 min and max: there Triton 3.9 asks the CUDA driver (none without a GPU:
# "0 active drivers"), so the result would depend on the machine.
KERNELS = {f"tma_{op}_{ty}": _tma(op, ty)
           for op, tys in [("store", ["fp32"]), ("add", ["i32", "u32", "i64", "fp16", "bf16", "fp32"]),
                           ("min", ["i32", "u32"]), ("max", ["i32", "u32"]),
                           ("and", ["i32", "i64"]), ("or", ["i32", "i64"]), ("xor", ["i32", "i64"])]
           for ty in tys}
KERNELS["gather_i32"] = (gather_kernel, {"x_ptr": "*i32", "i_ptr": "*i32", "out_ptr": "*i32",
                                         "BLOCK": "constexpr"}, {"BLOCK": 32})
# TMA needs sm_90
ARCHS = {name: (90, 100) for name in KERNELS if name.startswith("tma_")}
