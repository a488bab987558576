#!/usr/bin/env python3
"""Compile every kernel of one Triton source to PTX for one target, without a GPU.

    python3 clients/compilers/triton/compile.py --arch 90 [--kernel NAME] SRC.py -o DIR

SRC.py lists its kernels in `KERNELS`: name -> (the @triton.jit function, its
signature, its constexprs[, its attrs: what Triton may assume of an argument, such as
`tt.divisibility`]). For each, DIR/<name>.ptx gets `.asm["ptx"]` of
`triton.compile(ASTSource(...), target=GPUTarget("cuda", ARCH, 32))`, or
DIR/<name>.err Triton's error (the innermost, the call it refused); with --kernel,
that kernel alone. Exits 1 when a kernel failed. Triton's pipeline is
ttir -> ttgir -> llir -> ptx -> cubin; the cubin stage runs Triton's own ptxas, so
here it returns no bytes instead: the PTX is what is recorded, and the repository's
ptxas judges it (build.py). Line info is off (TRITON_DISABLE_LINE_INFO=1, set by build.py), so the
module names no path of this machine.
"""
import argparse
import importlib.util
import os
import sys
import traceback

import triton
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import CUDABackend
from triton.experimental.gluon._runtime import GluonASTSource

_add_stages = CUDABackend.add_stages


def _ptx_only(self, stages, options, language):
    """Triton's stages, the last (ptxas) made a no-op: Triton's CompiledKernel wants a
    `cubin` entry, so the stage stays and yields nothing."""
    _add_stages(self, stages, options, language)
    stages["cubin"] = lambda src, metadata: b""


CUDABackend.add_stages = _ptx_only


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, required=True, help="compute capability: 80, 90, 100")
    ap.add_argument("--kernel", help="only this kernel of KERNELS")
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("source")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("kernels", a.source)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for name, (fn, signature, constexprs, *attrs) in mod.KERNELS.items():
        if a.kernel is not None and name != a.kernel:
            continue
        if a.arch not in getattr(mod, "ARCHS", {}).get(name, (a.arch,)):
            continue
        try:
            # a Gluon kernel (triton.experimental.gluon) needs Gluon's source class
            source = GluonASTSource if fn.is_gluon() else triton.compiler.ASTSource
            src = source(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs[0] if attrs else None)
            k = triton.compile(src, target=GPUTarget("cuda", a.arch, 32))
            ptx = k.asm["ptx"]
            if isinstance(ptx, bytes):
                ptx = ptx.decode()
            with open(os.path.join(a.out, name + ".ptx"), "w") as f:
                f.write(ptx)
        except Exception as e:  # Triton's refusal is the result
            while e.__cause__ is not None:  # the innermost: the call Triton refused
                e = e.__cause__
            msg = "".join(traceback.format_exception_only(type(e), e))
            failed = 1
            with open(os.path.join(a.out, name + ".err"), "w") as f:
                f.write(msg)
    return failed


if __name__ == "__main__":
    sys.exit(main())
