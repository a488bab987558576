#!/usr/bin/env python3
"""A minimal `llc` for the LLVM inside llvmlite (LLVM 22.1.0 in llvmlite 0.50.0).

    python3 llvmlite_llc.py --cpu sm_90 [--features +ptx85] INPUT.ll -o OUTPUT.ptx

Parses the IR, verifies it, creates a target machine for nvptx64-nvidia-cuda with the
given processor and features (llvmlite's defaults otherwise: opt level 2, like llc's
-O2), and writes the assembly it emits. Errors that LLVM reports as exceptions (IR
that does not parse or verify) are printed on stderr with exit status 1; LLVM's fatal
errors (such as "Cannot select") abort the process, as they abort llc.
"""
import argparse
import sys

import llvmlite.binding as llvm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", required=True)
    ap.add_argument("--features", default="")
    ap.add_argument("input")
    ap.add_argument("-o", dest="output", required=True)
    a = ap.parse_args()

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        with open(a.input) as f:
            module = llvm.parse_assembly(f.read())
        module.verify()
    except RuntimeError as e:
        sys.stderr.write(f"error: {a.input}: {e}\n")
        return 1
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    tm = target.create_target_machine(cpu=a.cpu, features=a.features)
    asm = tm.emit_assembly(module)
    with open(a.output, "w") as f:
        f.write(asm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
