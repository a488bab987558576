#!/usr/bin/env python3
"""Write the litmus tests for real compilers: one CUDA C++ source (cuda::atomic_ref,
libcu++) and one LLVM IR source per test, and clients/compilers/litmus.json, the
manifest that says what each test is (build.py reads it for the sources it compiles;
`ptxvec litmus-compiled` reads it to read the compiled PTX back as litmus tests).

    python3 clients/compilers/litmus.py          # rewrites cuda/litmus_*.cu,
                                                 # llvm/litmus_*.ll, litmus.json

Every file it writes says so in its first line; none is edited by hand.

A test is a classic shape (MP, SB, LB, IRIW, WRC, CoRR, 2+2W, and MP and SB with
fences between the accesses, MP and SB with exchanges for stores (`+rmw`) and also
fetch_adds of 0 for loads (`+rmws`)) at a choice of
C++ memory orders, at one thread scope (block, device, system), for threads placed
within that scope (one CTA; one CTA each on one GPU; one GPU each). Then the same
tests with their threads outside their atomics' scope (`.across_ctas`: block scope, a
CTA each on one GPU; `.across_gpus`: device scope, a GPU each), where the source
forbids nothing (a heterogeneous race: libcu++'s memory model, "Data Races"); then,
in LLVM IR only, the same tests at syncscope("cluster"), a CTA each in one cluster
(`.cluster`) and a cluster each on one GPU (`.cluster.across_clusters`): CUDA C++ has
no cluster scope to write them in (WHY_NO_CUDA, kept in each such test). Each thread is
one kernel (`litmus_<test>_t<N>`) whose parameters are the shared locations, in the order
of the manifest's `locations`, then one output pointer per register the thread
observes, in the order of its `observed`. A location holds 0 at the start; a load
or rmw's value is written to its output pointer with a plain store.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# The shapes, as (locations, threads); a thread is a list of operations:
#   ("st", loc, value, role)  ("ld", loc, reg, role)  ("xchg", loc, value, role)
#   ("fadd", loc, reg, role): a fetch_add of 0, a read by an rmw, its old value observed
#   ("fence", role)
# where `role` names which of the test's orders the operation takes.
SHAPES = {
    "MP": (["data", "flag"],
           [[("st", "data", 1, "data"), ("st", "flag", 1, "w")],
            [("ld", "flag", "r0", "r"), ("ld", "data", "r1", "data")]]),
    "MP+fences": (["data", "flag"],
                  [[("st", "data", 1, "data"), ("fence", "fw"), ("st", "flag", 1, "data")],
                   [("ld", "flag", "r0", "data"), ("fence", "fr"), ("ld", "data", "r1", "data")]]),
    "MP+rmw": (["data", "flag"],
               [[("st", "data", 1, "data"), ("xchg", "flag", 1, "w")],
                [("ld", "flag", "r0", "r"), ("ld", "data", "r1", "data")]]),
    "SB": (["x", "y"],
           [[("st", "x", 1, "w"), ("ld", "y", "r0", "r")],
            [("st", "y", 1, "w"), ("ld", "x", "r1", "r")]]),
    "SB+fences": (["x", "y"],
                  [[("st", "x", 1, "data"), ("fence", "f"), ("ld", "y", "r0", "data")],
                   [("st", "y", 1, "data"), ("fence", "f"), ("ld", "x", "r1", "data")]]),
    "SB+rmw": (["x", "y"],
               [[("xchg", "x", 1, "w"), ("ld", "y", "r0", "r")],
                [("xchg", "y", 1, "w"), ("ld", "x", "r1", "r")]]),
    "MP+rmws": (["data", "flag"],
                [[("st", "data", 1, "data"), ("xchg", "flag", 1, "w")],
                 [("fadd", "flag", "r0", "r"), ("ld", "data", "r1", "data")]]),
    "SB+rmws": (["x", "y"],
                [[("xchg", "x", 1, "w"), ("fadd", "y", "r0", "r")],
                 [("xchg", "y", 1, "w"), ("fadd", "x", "r1", "r")]]),
    "LB": (["x", "y"],
           [[("ld", "x", "r0", "r"), ("st", "y", 1, "w")],
            [("ld", "y", "r1", "r"), ("st", "x", 1, "w")]]),
    "IRIW": (["x", "y"],
             [[("st", "x", 1, "w")],
              [("st", "y", 1, "w")],
              [("ld", "x", "r0", "r"), ("ld", "y", "r1", "r")],
              [("ld", "y", "r2", "r"), ("ld", "x", "r3", "r")]]),
    "WRC": (["x", "y"],
            [[("st", "x", 1, "w")],
             [("ld", "x", "r0", "r"), ("st", "y", 1, "w")],
             [("ld", "y", "r1", "r"), ("ld", "x", "r2", "r")]]),
    "CoRR": (["x"],
             [[("st", "x", 1, "w")],
              [("ld", "x", "r0", "r"), ("ld", "x", "r1", "r")]]),
    "2+2W": (["x", "y"],
             [[("st", "x", 1, "w"), ("st", "y", 2, "w")],
              [("st", "y", 1, "w"), ("st", "x", 2, "w")]]),
}

# (shape, name, orders by role). "data" is always relaxed.
TESTS = [
    ("MP", "rlx", {"w": "relaxed", "r": "relaxed"}),
    ("MP", "rel_acq", {"w": "release", "r": "acquire"}),
    ("MP", "rel_rlx", {"w": "release", "r": "relaxed"}),
    ("MP", "rlx_acq", {"w": "relaxed", "r": "acquire"}),
    ("MP", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("MP+fences", "rel_acq", {"fw": "release", "fr": "acquire"}),
    ("MP+fences", "acq_rel", {"fw": "acq_rel", "fr": "acq_rel"}),
    ("MP+fences", "sc", {"fw": "seq_cst", "fr": "seq_cst"}),
    ("MP+rmw", "rel_acq", {"w": "release", "r": "acquire"}),
    ("MP+rmw", "acq_rel_acq", {"w": "acq_rel", "r": "acquire"}),
    ("MP+rmw", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("MP+rmws", "rel_acq", {"w": "release", "r": "acquire"}),
    ("MP+rmws", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("SB+rmws", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("SB", "rel_acq", {"w": "release", "r": "acquire"}),
    ("SB", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("SB+fences", "acq_rel", {"f": "acq_rel"}),
    ("SB+fences", "sc", {"f": "seq_cst"}),
    ("SB+rmw", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("LB", "rlx", {"w": "relaxed", "r": "relaxed"}),
    ("LB", "rel_acq", {"w": "release", "r": "acquire"}),
    ("LB", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("IRIW", "rel_acq", {"w": "release", "r": "acquire"}),
    ("IRIW", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("WRC", "rlx", {"w": "relaxed", "r": "relaxed"}),
    ("WRC", "rel_acq", {"w": "release", "r": "acquire"}),
    ("WRC", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("CoRR", "rlx", {"w": "relaxed", "r": "relaxed"}),
    ("CoRR", "sc", {"w": "seq_cst", "r": "seq_cst"}),
    ("2+2W", "rlx", {"w": "relaxed"}),
    ("2+2W", "rel", {"w": "release"}),
    ("2+2W", "sc", {"w": "seq_cst"}),
]

# scope -> (placement, cuda::thread_scope, LLVM syncscope)
SCOPES = [("block", "cta", "cuda::thread_scope_block", 'syncscope("block") '),
          ("device", "gpu", "cuda::thread_scope_device", 'syncscope("device") '),
          ("system", "sys", "cuda::thread_scope_system", "")]

# The tests whose threads are outside their scope: (scope, id suffix, placement, ...);
# every TESTS entry once at each, after the tests above.
OUTSIDE = [("block", "across_ctas", "gpu", "cuda::thread_scope_block", 'syncscope("block") '),
           ("device", "across_gpus", "sys", "cuda::thread_scope_device", 'syncscope("device") ')]

# Cluster scope, in LLVM IR only: (id suffix or None, placement); every TESTS entry at
# each, after the outside tests.
CLUSTER = [(None, "cluster"), ("across_clusters", "gpu")]
CLUSTER_SYNCSCOPE = 'syncscope("cluster") '
WHY_NO_CUDA = ("CUDA C++ has no cluster thread scope to write this test in: libcu++ 13.5 "
               "(CCCL 3.5, nvidia-cuda-cccl 13.3.5.0.6) declares enum thread_scope with "
               "thread_scope_system, _device, _block and _thread only "
               "(cuda/std/__atomic/scopes.h); its __thread_scope_cluster_tag is internal, "
               "no thread_scope value maps to it (__scope_enum_to_tag), and neither "
               "cuda::atomic_ref nor cuda::atomic_thread_fence can name it (a cast value, "
               "cuda::atomic_ref<int, (cuda::thread_scope)3>, fails in nvcc 13.5: "
               "class \"cuda::std::__4::__scope_enum_to_tag<3>\" has no member \"__tag\")")

CXX_ORDER = {o: f"cuda::std::memory_order_{o}" for o in
             ["relaxed", "acquire", "release", "acq_rel", "seq_cst"]}
LL_ORDER = {"relaxed": "monotonic", "acquire": "acquire", "release": "release",
            "acq_rel": "acq_rel", "seq_cst": "seq_cst"}


def stem(shape, name, scope):
    s = shape.lower().replace("+", "_").replace("2_2w", "2p2w")
    return f"{s}_{name}_{scope}"


def order(orders, role):
    return "relaxed" if role == "data" else orders[role]


def cuda_source(test, shape, locs, threads, orders, scope_t):
    lines = [f"// GENERATED by clients/compilers/litmus.py; do not edit. Litmus test {test}:",
             "// one kernel per thread; the manifest is clients/compilers/litmus.json.",
             "#include <cuda/atomic>", ""]
    for t, ops in enumerate(threads):
        regs = [op[2] for op in ops if op[0] in ("ld", "fadd")]
        params = [f"int *{l}" for l in locs] + [f"int *out_{r}" for r in regs]
        lines.append(f'extern "C" __global__ void litmus_{stem_of[test]}_t{t}({", ".join(params)}) {{')
        used = sorted({op[1] for op in ops if op[0] != "fence"}, key=locs.index)
        for l in used:
            lines.append(f"  cuda::atomic_ref<int, {scope_t}> a_{l}(*{l});")
        for op in ops:
            kind = op[0]
            if kind == "st":
                lines.append(f"  a_{op[1]}.store({op[2]}, {CXX_ORDER[order(orders, op[3])]});")
            elif kind == "ld":
                lines.append(f"  *out_{op[2]} = a_{op[1]}.load({CXX_ORDER[order(orders, op[3])]});")
            elif kind == "fadd":
                lines.append(f"  *out_{op[2]} = a_{op[1]}.fetch_add(0, {CXX_ORDER[order(orders, op[3])]});")
            elif kind == "xchg":
                lines.append(f"  a_{op[1]}.exchange({op[2]}, {CXX_ORDER[order(orders, op[3])]});")
            else:
                lines.append(f"  cuda::atomic_thread_fence({CXX_ORDER[order(orders, op[1])]}, {scope_t});")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def llvm_source(test, shape, locs, threads, orders, sscope):
    lines = [f"; GENERATED by clients/compilers/litmus.py; do not edit. Litmus test {test}:",
             "; one kernel per thread; the manifest is clients/compilers/litmus.json.",
             'target triple = "nvptx64-nvidia-cuda"', ""]
    for t, ops in enumerate(threads):
        regs = [op[2] for op in ops if op[0] in ("ld", "fadd")]
        params = [f"ptr addrspace(1) %{l}" for l in locs] + [f"ptr addrspace(1) %out_{r}" for r in regs]
        lines.append(f"define ptx_kernel void @litmus_{stem_of[test]}_t{t}({', '.join(params)}) {{")
        k = 0
        for op in ops:
            kind = op[0]
            if kind == "st":
                o = LL_ORDER[order(orders, op[3])]
                lines.append(f"  store atomic i32 {op[2]}, ptr addrspace(1) %{op[1]} {sscope}{o}, align 4")
            elif kind == "ld":
                o = LL_ORDER[order(orders, op[3])]
                lines.append(f"  %{op[2]} = load atomic i32, ptr addrspace(1) %{op[1]} {sscope}{o}, align 4")
                lines.append(f"  store i32 %{op[2]}, ptr addrspace(1) %out_{op[2]}, align 4")
            elif kind == "fadd":
                o = LL_ORDER[order(orders, op[3])]
                lines.append(f"  %{op[2]} = atomicrmw add ptr addrspace(1) %{op[1]}, i32 0 {sscope}{o}, align 4")
                lines.append(f"  store i32 %{op[2]}, ptr addrspace(1) %out_{op[2]}, align 4")
            elif kind == "xchg":
                o = LL_ORDER[order(orders, op[3])]
                lines.append(f"  %old{k} = atomicrmw xchg ptr addrspace(1) %{op[1]}, i32 {op[2]} {sscope}{o}, align 4")
                k += 1
            else:
                o = LL_ORDER[order(orders, op[1])]
                lines.append(f"  fence {sscope}{o}")
        lines.append("  ret void")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def manifest_threads(test, locs, threads, orders, placement):
    out = []
    for t, ops in enumerate(threads):
        mops = []
        for op in ops:
            kind = op[0]
            if kind == "fence":
                mops.append({"op": "fence", "order": order(orders, op[1])})
            elif kind == "ld":
                mops.append({"op": "load", "loc": op[1], "reg": op[2], "order": order(orders, op[3])})
            elif kind == "fadd":
                mops.append({"op": "fetch_add", "loc": op[1], "reg": op[2], "value": 0, "order": order(orders, op[3])})
            elif kind == "st":
                mops.append({"op": "store", "loc": op[1], "value": op[2], "order": order(orders, op[3])})
            else:
                mops.append({"op": "exchange", "loc": op[1], "value": op[2], "order": order(orders, op[3])})
        # one CTA: all at CTA 0; one GPU: a CTA (and so a cluster of one) each; one
        # cluster: a CTA each in cluster 0; system: a GPU each.
        place = {"cta": [0, 0, 0], "gpu": [0, t, 0], "cluster": [0, 0, t],
                 "sys": [t, 0, 0]}[placement]
        out.append({"kernel": f"litmus_{stem_of[test]}_t{t}",
                    "place": {"gpu": place[0], "cluster": place[1], "cta": place[2]},
                    "observed": [op[2] for op in ops if op[0] in ("ld", "fadd")],
                    "ops": mops})
    return out


stem_of = {}


def add_test(tests, shape, name, orders, scope, suffix, placement, scope_t, sscope):
    """Writes one test's sources (no CUDA C++ where `scope_t` is None) and appends its
    manifest entry."""
    locs, threads = SHAPES[shape]
    test = f"{shape}.{name}.{scope}" + (f".{suffix}" if suffix else "")
    stem_of[test] = stem(shape, name, scope) + (f"_{suffix}" if suffix else "")
    s = stem_of[test]
    files = [(f"llvm/litmus_{s}.ll", llvm_source(test, shape, locs, threads, orders, sscope))]
    if scope_t is not None:
        files.insert(0, (f"cuda/litmus_{s}.cu", cuda_source(test, shape, locs, threads, orders, scope_t)))
    for path, text in files:
        with open(os.path.join(HERE, path), "w") as f:
            f.write(text)
    entry = {"id": test, "shape": shape, "scope": scope, "placement": placement,
             "sources": {("cuda" if path.startswith("cuda/") else "llvm"): path for path, _ in files},
             "locations": locs,
             "observed_memory": locs if shape == "2+2W" else [],
             "threads": manifest_threads(test, locs, threads, orders, placement)}
    if scope_t is None:
        entry["why_no_cuda"] = WHY_NO_CUDA
    tests.append(entry)


def main():
    tests = []
    for shape, name, orders in TESTS:
        for scope, placement, scope_t, sscope in SCOPES:
            add_test(tests, shape, name, orders, scope, None, placement, scope_t, sscope)
    for scope, suffix, placement, scope_t, sscope in OUTSIDE:
        for shape, name, orders in TESTS:
            add_test(tests, shape, name, orders, scope, suffix, placement, scope_t, sscope)
    for suffix, placement in CLUSTER:
        for shape, name, orders in TESTS:
            add_test(tests, shape, name, orders, "cluster", suffix, placement, None, CLUSTER_SYNCSCOPE)
    doc = {"generated": "by clients/compilers/litmus.py; do not edit",
           "tests": tests}
    body = ",\n".join("  " + json.dumps(t, sort_keys=True) for t in tests)
    with open(os.path.join(HERE, "litmus.json"), "w") as f:
        f.write('{"generated": ' + json.dumps(doc["generated"]) + ',\n "tests": [\n' + body + "\n ]}\n")


if __name__ == "__main__":
    main()
