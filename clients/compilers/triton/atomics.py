"""Triton's atomics: every tl.atomic_* at every `sem` and `scope`, per element type.

One kernel per (operation, type), `atomic_<op>_<type>`: each of the 12 (sem, scope)
pairs twice, on one element (a scalar pointer, the result stored: Triton guards it
with a `tid == 0` predicate) and on a block of BLOCK elements (the result unused).
A pair Triton refuses for a type makes the whole kernel fail, which the manifest
records.

`atomic_add_<type>_vec<N>`: the same add on a block of 128 * N elements through
pointers Triton may take as 16-byte aligned (`tt.divisibility` 16), so that each thread
holds N neighbouring elements and Triton can write one vector atomic for them.
"""
import triton
import triton.language as tl

BLOCK = 128  # one element a thread at 4 warps

@triton.jit
def _atomic(p, v, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    if OP == "add":
        r = tl.atomic_add(p, v, sem=SEM, scope=SCOPE)
    elif OP == "max":
        r = tl.atomic_max(p, v, sem=SEM, scope=SCOPE)
    elif OP == "min":
        r = tl.atomic_min(p, v, sem=SEM, scope=SCOPE)
    elif OP == "and":
        r = tl.atomic_and(p, v, sem=SEM, scope=SCOPE)
    elif OP == "or":
        r = tl.atomic_or(p, v, sem=SEM, scope=SCOPE)
    elif OP == "xor":
        r = tl.atomic_xor(p, v, sem=SEM, scope=SCOPE)
    elif OP == "xchg":
        r = tl.atomic_xchg(p, v, sem=SEM, scope=SCOPE)
    else:
        r = tl.atomic_cas(p, v, v + v, sem=SEM, scope=SCOPE)
    return r


@triton.jit
def _pair(p, q, v, w, out, OP: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
    # On one element, the result stored; on the block, the result unused (which
    # Triton writes as `red`).
    tl.store(out, _atomic(p, v, OP, SEM, SCOPE))
    _atomic(q, w, OP, SEM, SCOPE)


@triton.jit
def atomic_kernel(p, q, out, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + 1)
    w = tl.load(q + BLOCK + offs)
    qs = q + offs
    _pair(p, qs, v, w, out, OP, "relaxed", "cta")
    _pair(p, qs, v, w, out, OP, "relaxed", "gpu")
    _pair(p, qs, v, w, out, OP, "relaxed", "sys")
    _pair(p, qs, v, w, out, OP, "acquire", "cta")
    _pair(p, qs, v, w, out, OP, "acquire", "gpu")
    _pair(p, qs, v, w, out, OP, "acquire", "sys")
    _pair(p, qs, v, w, out, OP, "release", "cta")
    _pair(p, qs, v, w, out, OP, "release", "gpu")
    _pair(p, qs, v, w, out, OP, "release", "sys")
    _pair(p, qs, v, w, out, OP, "acq_rel", "cta")
    _pair(p, qs, v, w, out, OP, "acq_rel", "gpu")
    _pair(p, qs, v, w, out, OP, "acq_rel", "sys")


OPS = ["add", "max", "min", "and", "or", "xor", "xchg", "cas"]
TYPES = ["i32", "u32", "i64", "u64", "fp16", "bf16", "fp32", "fp64"]

KERNELS = {
    f"atomic_{op}_{ty}": (atomic_kernel, {"p": f"*{ty}", "q": f"*{ty}", "out": f"*{ty}",
                                          "OP": "constexpr", "BLOCK": "constexpr"},
                          {"OP": op, "BLOCK": BLOCK})
    for op in OPS for ty in TYPES
}
ALIGNED = {(i,): [["tt.divisibility", 16]] for i in range(3)}
# 2, 4 and 8 a thread on the types PTX has vector adds for; 8 also on two it has not
KERNELS.update({
    f"atomic_add_{ty}_vec{n}": (atomic_kernel, KERNELS[f"atomic_add_{ty}"][1], {"OP": "add", "BLOCK": BLOCK * n},
                                ALIGNED)
    for n, tys in [(2, ["fp16", "bf16", "fp32"]), (4, ["fp16", "bf16", "fp32"]),
                   (8, ["i32", "fp16", "bf16", "fp32", "fp64"])]
    for ty in tys
})
