"""Gluon (triton.experimental.gluon, Triton's lower-level language): atomics on shared
memory, which the Triton language has not. One kernel per (operation, type),
`gluon_<op>_<type>`: 128 values scattered with `atomic_scatter_<op>` into a 128-element
shared buffer at loaded indices, along axis 0 (one element a thread, 4 warps).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def scatter_kernel(x_ptr, i_ptr, out_ptr, OP: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    shared: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    offs = gl.arange(0, 128, layout=layout)
    x = gl.load(x_ptr + offs)
    idx = gl.load(i_ptr + offs)
    smem = gl.allocate_shared_memory(x_ptr.dtype.element_ty, [128], shared, x)
    if OP == "add":
        r = smem.atomic_scatter_add(x, idx, 0)
    elif OP == "max":
        r = smem.atomic_scatter_max(x, idx, 0)
    elif OP == "min":
        r = smem.atomic_scatter_min(x, idx, 0)
    elif OP == "and":
        r = smem.atomic_scatter_and(x, idx, 0)
    elif OP == "or":
        r = smem.atomic_scatter_or(x, idx, 0)
    elif OP == "xor":
        r = smem.atomic_scatter_xor(x, idx, 0)
    else:
        r = smem.atomic_scatter_xchg(x, idx, 0)
    gl.store(out_ptr + offs, r)
    gl.store(out_ptr + 128 + offs, smem.load(layout))


OPS = ["add", "max", "min", "and", "or", "xor", "xchg"]
TYPES = ["i32", "u32", "i64", "u64", "fp16", "bf16", "fp32", "fp64"]

KERNELS = {
    f"gluon_{op}_{ty}": (scatter_kernel, {"x_ptr": f"*{ty}", "i_ptr": "*i32", "out_ptr": f"*{ty}",
                                          "OP": "constexpr"}, {"OP": op})
    for op in OPS for ty in TYPES
}
