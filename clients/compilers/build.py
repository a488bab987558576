#!/usr/bin/env python3
"""Compile clients/compilers/{llvm,cuda,triton} over the matrix below and record the results.

Run through build.sh (which locates the tools), from the repository root:

    python3 clients/compilers/build.py [llvm19] [llvm22] [nvcc] [triton]

For each compiler it rewrites vectors/clients/<compiler>-<version>/modules/ and
manifest.json (the README beside them is written by hand). A matrix point is one
source at one target and one requested PTX ISA version. Each emitted module is kept
byte for byte; points that emit identical bytes share one file. Every module is then
given to ptxas (CUDA 13.5 from sm_75 on, CUDA 12.9 below) and its verdict recorded.
A point that fails to compile records the compiler's error instead. A Triton source
holds many kernels (its KERNELS); each is a point of its own, with `kernel` in its entry.
The litmus tests (clients/compilers/litmus.json, written by litmus.py) are points too,
one each: sm_90 with the default PTX for LLVM, compute_90 for nvcc.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = "clients/compilers"
OUTBASE = "vectors/clients"

LLC19 = os.environ.get("LLC19", "llc-19")
PYTHON = os.environ.get("PYTHON", "python3")
NVCC = os.environ["NVCC"] if "NVCC" in os.environ else None
PTXAS13 = os.environ.get("PTXAS13")
PTXAS12 = os.environ.get("PTXAS12")

# ---------------------------------------------------------------------------- matrix
# (target, requested PTX ISA as llc's feature digits, or None for the compiler's default,
# which is the lowest version LLVM allows for that target).
ATOMIC_LL = {"atomics.ll", "atomics_order_scope.ll", "nvvm_atomic.ll"}

LLVM19 = {
    "sources": ["warp_sync.ll", "warp_nosync.ll", "match_sync.ll", "redux_sync.ll",
                "atomics.ll", "atomics_order_scope.ll", "nvvm_atomic.ll", "elect_sync.ll",
                "barrier_red.ll"],
    "targets": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_90a"],
    "ptx": [None, "85"],                       # LLVM 19's highest: PTX ISA 8.5
    # the atomics modules are the big ones: fewer points, where the lowering can change
    "atomic_points": {("sm_50", None), ("sm_60", None), ("sm_70", None), ("sm_70", "85"),
                      ("sm_80", None), ("sm_90", None), ("sm_90", "85")},
    # elect.sync needs sm_90: the targets that have it
    "limited": {"elect_sync.ll": {"sm_90", "sm_90a"}},
}
LLVM22 = {
    "sources": LLVM19["sources"] + ["redux_sync_f32.ll", "bulk_reduce_tensor.ll"],
    "targets": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_90a",
                "sm_100", "sm_100a", "sm_100f", "sm_120", "sm_120a"],
    "ptx": [None, "90"],                       # LLVM 22's highest: PTX ISA 9.0
    "atomic_points": {("sm_50", None), ("sm_60", None), ("sm_70", None), ("sm_70", "90"),
                      ("sm_80", None), ("sm_90", None), ("sm_90", "90"), ("sm_100", None),
                      ("sm_120", "90")},
    "limited": {"elect_sync.ll": {"sm_90", "sm_90a", "sm_100", "sm_120"}},
}
NVCC_M = {
    "sources": ["warp.cu", "warp_nosync.cu", "redux.cu", "redux_f32.cu", "atomics.cu",
                "atomics_scoped.cu", "nv_atomic.cu", "atomic_ref.cu", "ptx_bulk.cu", "elect.cu",
                "barrier_red.cu"],
    "targets": ["compute_75", "compute_80", "compute_86", "compute_90", "compute_90a",
                "compute_100", "compute_100a", "compute_100f", "compute_110", "compute_120",
                "compute_120a"],
    # nvcc emits one PTX ISA version (its own); big sources on fewer targets
    "limited": {"atomics.cu": {"compute_75", "compute_80", "compute_90", "compute_100",
                               "compute_120"},
                "ptx_bulk.cu": {"compute_80", "compute_90", "compute_90a", "compute_100a",
                                "compute_120"},
                "atomic_ref.cu": {"compute_75", "compute_90", "compute_100"},
                "elect.cu": {"compute_90", "compute_90a", "compute_100", "compute_120"}},
}


# Triton: every kernel of each source, per compute capability (GPUTarget("cuda", N, 32)),
# through triton/compile.py, which stops before Triton's own ptxas.
TRITON_M = {
    "sources": ["atomics.py", "reduce.py", "tma.py", "gluon.py"],
    "targets": ["sm_80", "sm_90", "sm_100"],
}
# Line info off (else the module names this machine's paths); FP fusion pinned to
# Triton 3.9's default (unset, it warns); a fresh cache, so every kernel is compiled.
TRITON_ENV = {"TRITON_DISABLE_LINE_INFO": "1", "TRITON_DEFAULT_FP_FUSION": "1",
              "TRITON_ALWAYS_COMPILE": "1"}


def tnum(target):
    """sm_90a / compute_100f -> (90, 'a')"""
    m = re.match(r"(?:sm|compute)_(\d+)([a-z]?)$", target)
    return int(m.group(1)), m.group(2)


def litmus_sources(lang):
    """The litmus tests' sources in `lang` (cuda or llvm), from clients/compilers/litmus.json
    (written by litmus.py): each compiled at one point, sm_90 with the default PTX, the
    oldest target with every .sem and .scope they can need (.cluster included: LLVM's
    default PTX ISA for sm_90 is 7.8, the version that brought clusters). A test with
    no source in `lang` (cluster scope has no CUDA C++ spelling) has no point."""
    with open(os.path.join(ROOT, SRC, "litmus.json")) as f:
        tests = json.load(f)["tests"]
    return [os.path.basename(t["sources"][lang]) for t in tests if lang in t["sources"]]


LITMUS_LLVM_POINT = ("sm_90", None)
LITMUS_NVCC_TARGET = "compute_90"


def llvm_points(m):
    pts = []
    for src in litmus_sources("llvm"):
        pts.append((src,) + LITMUS_LLVM_POINT)
    for src in m["sources"]:
        for t in m["targets"]:
            for p in m["ptx"]:
                if src in ATOMIC_LL and (t, p) not in m["atomic_points"]:
                    continue
                if t not in m.get("limited", {}).get(src, {t}):
                    continue
                pts.append((src, t, p))
    return pts


def nvcc_points():
    pts = [(src, LITMUS_NVCC_TARGET, None) for src in litmus_sources("cuda")]
    for src in NVCC_M["sources"]:
        for t in NVCC_M["targets"]:
            lim = NVCC_M["limited"].get(src)
            if lim is not None and t not in lim:
                continue
            pts.append((src, t, None))
    return pts


def triton_points():
    return [(src, t, None) for src in TRITON_M["sources"] for t in TRITON_M["targets"]]


# --------------------------------------------------------------------------- helpers
def run(cmd, cwd=ROOT, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
    return p.returncode, p.stdout, p.stderr


def clean_lines(text, tmp):
    """Compiler messages without machine-specific paths and crash dumps."""
    out = []
    for line in text.splitlines():
        if line.startswith("PLEASE submit") or line.startswith("Stack dump"):
            break
        line = line.replace(tmp + "/", "").replace(ROOT + "/", "").rstrip()
        line = re.sub(r"/\S*/site-packages/nvidia/", "<nvidia>/", line)
        if line.strip():
            out.append(line[:400])
    return out


def trim_error(lines):
    """The error lines (at most 6) or, failing that, the first 6 lines."""
    errs = [l for l in lines if re.search(r"\berror\b|LLVM ERROR", l)]
    keep = errs if errs else lines
    return keep[:6] + ([f"... ({len(keep) - 6} more)"] if len(keep) > 6 else [])


def group_ptxas(lines):
    """ptxas prints `ptxas FILE, line N; KIND : TEXT` once per line and message; keep each
    distinct `KIND : TEXT` once, in order of first appearance, with all its line numbers
    (lines without a location, such as the closing `ptxas fatal : ...`, get no lines)."""
    groups = {}
    for l in lines:
        m = re.match(r"ptxas \S+, line (\d+); (.*)$", l)
        text, line = (m.group(2), int(m.group(1))) if m else (re.sub(r"^ptxas ", "", l), None)
        g = groups.setdefault(text, {"text": text, "lines": []})
        if line is not None:
            g["lines"].append(line)
    return list(groups.values())


def ptx_header(text):
    v = re.search(r"^\.version\s+(\d+)\.(\d+)", text, re.M)
    t = re.search(r"^\.target\s+(\w+)", text, re.M)
    return (v.group(1) + v.group(2) if v else None, t.group(1) if t else None)


def ptxas_for(target, version):
    """The ptxas that judges a module, and the -arch it assembles for: 13.5 from sm_75
    on; 12.9 below, up to the .version 8.8 it knows; past that 13.5 for its oldest
    architecture, sm_75 (ptxas judges by the module's .target whatever -arch says, as
    ptxvec's differential does: generator/src/ptxas/mod.rs, Ptxas::arch_for)."""
    n, _ = tnum(target)
    if n >= 75:
        return ("13.5", PTXAS13, target)
    if version is not None and int(version) <= 88:
        return ("12.9", PTXAS12, target)
    return ("13.5", PTXAS13, "sm_75")


# --------------------------------------------------------------------------- compile
def compile_point(kind, src, target, ptx, tmp):
    """-> (display command, exit status, output path, stderr)"""
    stem = src.rsplit(".", 1)[0]
    out = os.path.join(tmp, f"{stem}.{target}.{ptx or 'default'}.ptx")
    disp_out = "OUT.ptx"
    if kind == "llvm19":
        path = f"{SRC}/llvm/{src}"
        args = ["-march=nvptx64", f"-mcpu={target}"] + ([f"-mattr=+ptx{ptx}"] if ptx else [])
        cmd = [LLC19] + args + [path, "-o", out]
        disp = " ".join(["llc-19"] + args + [path, "-o", disp_out])
    elif kind == "llvm22":
        path = f"{SRC}/llvm/{src}"
        args = ["--cpu", target] + (["--features", f"+ptx{ptx}"] if ptx else [])
        cmd = [PYTHON, f"{SRC}/llvmlite_llc.py"] + args + [path, "-o", out]
        disp = " ".join(["python3", f"{SRC}/llvmlite_llc.py"] + args + [path, "-o", disp_out])
    else:
        path = f"{SRC}/cuda/{src}"
        args = ["-ptx", f"-arch={target}", "-std=c++17"]
        cmd = [NVCC] + args + [path, "-o", out]
        disp = " ".join(["nvcc"] + args + [path, "-o", disp_out])
    rc, so, se = run(cmd)
    if rc != 0 or not os.path.exists(out):
        return disp, rc, None, se + so
    return disp, rc, out, se + so


def compile_triton(src, target, tmp):
    """Every kernel of one Triton source at one target: [(kernel, display command, exit
    status, output path or None, messages)], in kernel-name order. compile.py runs once
    per source and target; each point's command (with --kernel) reproduces it alone."""
    arch = tnum(target)[0]
    path = f"{SRC}/triton/{src}"
    outdir = os.path.join(tmp, f"{src.rsplit('.', 1)[0]}.{target}")
    env = dict(TRITON_ENV, TRITON_CACHE_DIR=os.path.join(tmp, "triton-cache"))
    rc, so, se = run([PYTHON, f"{SRC}/triton/compile.py", "--arch", str(arch), path, "-o", outdir],
                     env=env)
    if not os.path.isdir(outdir):
        return [(None, f"python3 {SRC}/triton/compile.py --arch {arch} {path} -o OUT/", rc, None, se + so)]
    res = []
    for f in sorted(os.listdir(outdir)):
        kernel, ext = f.rsplit(".", 1)
        envs = " ".join(f"{k}={v}" for k, v in sorted(TRITON_ENV.items()) if k != "TRITON_ALWAYS_COMPILE")
        disp = f"{envs} python3 {SRC}/triton/compile.py --arch {arch} --kernel {kernel} {path} -o OUT/"
        if ext == "ptx":
            res.append((kernel, disp, 0, os.path.join(outdir, f), ""))
        else:
            res.append((kernel, disp, 1, None, open(os.path.join(outdir, f)).read()))
    return res


def compile_points(kind, src, target, ptx, tmp):
    """[(kernel or None, display command, exit status, output path or None, messages)]"""
    if kind == "triton":
        return compile_triton(src, target, tmp)
    return [(None,) + compile_point(kind, src, target, ptx, tmp)]


def build(kind, version, points):
    outdir = os.path.join(ROOT, OUTBASE, version)
    moddir = os.path.join(outdir, "modules")
    if os.path.isdir(moddir):
        shutil.rmtree(moddir)
    os.makedirs(moddir)
    tmp = tempfile.mkdtemp(prefix="ptxvec-compilers-")
    entries = []
    by_hash = {}     # sha256 -> module file name
    names = {}       # module file name -> sha256
    verdicts = {}    # module file name -> ptxas record
    folder = {"llvm19": "llvm", "llvm22": "llvm", "nvcc": "cuda", "triton": "triton"}[kind]
    for src, target, ptx, kernel, disp, rc, out, msgs in (
            (src, target, ptx) + r for src, target, ptx in points
            for r in compile_points(kind, src, target, ptx, tmp)):
        lines = clean_lines(msgs, tmp)
        e = {"source": f"{SRC}/{folder}/{src}",
             "target": target,
             "ptx_requested": (f"{ptx[0]}.{ptx[1:]}" if ptx else "default"),
             "command": disp,
             "exit": rc}
        if kernel is not None:
            e["kernel"] = kernel
        if out is None:
            e["error"] = trim_error(lines) or [f"exit status {rc}, no output"]
            entries.append(e)
            continue
        # on success keep only the diagnostic lines (nvcc repeats the source line and a caret)
        diags = sorted(set(l for l in lines if re.search(r"warning|error|remark", l, re.I)))
        if diags:
            e["messages"] = diags
        data = open(out, "rb").read()
        h = hashlib.sha256(data).hexdigest()
        ver, tgt = ptx_header(data.decode())
        e["ptx_version"] = f"{ver[0]}.{ver[1:]}" if ver else None
        e["ptx_target"] = tgt
        if h in by_hash:
            name = by_hash[h]
        else:
            stem = kernel or src.rsplit(".", 1)[0]
            name = f"{stem}.{tgt}.ptx{ver}.ptx"
            k = 2
            while name in names:
                name = f"{stem}.{tgt}.ptx{ver}-{k}.ptx"
                k += 1
            names[name] = h
            by_hash[h] = name
            with open(os.path.join(moddir, name), "wb") as f:
                f.write(data)
            rel, exe, arch = ptxas_for(tgt, ver)
            acmd = ["ptxas", f"-arch={arch}", "-o", "/dev/null", f"modules/{name}"]
            arc, aso, ase = run([exe] + acmd[1:], cwd=outdir)
            verdicts[name] = {"release": rel, "command": " ".join(acmd), "exit": arc,
                              "messages": group_ptxas(clean_lines(ase + aso, tmp))}
            # Kept gzipped (vectors/ stays under 20 MB); `ptxvec lint` reads *.ptx.gz.
            run(["gzip", "-9n", "-f", os.path.join(moddir, name)])
        e["module"] = f"modules/{name}.gz"
        e["ptxas"] = verdicts[name]
        entries.append(e)
    shutil.rmtree(tmp)

    def key(e):
        n, suf = tnum(e["target"])
        p = e["ptx_requested"]
        return (e["source"], e.get("kernel", ""), n, suf, "" if p == "default" else p)
    entries.sort(key=key)
    return outdir, entries


# LLVM's "Cannot select" messages print the addresses of its DAG nodes, which change
# from run to run: masked when an error is compared with the recorded one.
NODE_ADDRESS = re.compile(r"0x[0-9a-f]{6,}")


def keep_recorded_errors(outdir, entries):
    """Each failed point whose error is the recorded one but for LLVM's node addresses
    keeps the recorded entry, so that a rebuild changes only what changed."""
    path = os.path.join(outdir, "manifest.json")
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        old = json.load(f)["entries"]

    def point(e):
        return (e["source"], e["target"], e["ptx_requested"], e.get("kernel"))

    def masked(e):
        return json.dumps({k: ([NODE_ADDRESS.sub("0x?", l) for l in v] if k == "error" else v)
                           for k, v in e.items()}, sort_keys=True)

    recorded = {point(e): e for e in old if "error" in e}
    out = []
    for e in entries:
        r = recorded.get(point(e))
        out.append(r if "error" in e and r is not None and masked(r) == masked(e) else e)
    return out


def write_manifest(outdir, compiler, version_string, entries, date="2026-11-26"):
    entries = keep_recorded_errors(outdir, entries)
    doc = {"compiler": compiler,
           "version": version_string,
           "date": date,
           "build": f"{SRC}/build.sh",
           "entries": entries}
    # one entry a line (keys sorted), so the file stays small and diffs stay readable
    head = json.dumps({k: v for k, v in doc.items() if k != "entries"}, indent=1, sort_keys=True)
    body = ",\n".join("  " + json.dumps(e, sort_keys=True) for e in entries)
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        f.write(head[:-2] + ',\n "entries": [\n' + body + "\n ]\n}\n")


def main():
    which = sys.argv[1:] or ["llvm19", "llvm22", "nvcc", "triton"]
    for kind in which:
        if kind == "llvm19":
            vs = run([LLC19, "--version"])[1]
            ver = re.search(r"LLVM version (\S+)", vs).group(1)
            outdir, entries = build(kind, f"llvm-{ver}", llvm_points(LLVM19))
            write_manifest(outdir, "llc (LLVM NVPTX back end)",
                           re.search(r".*LLVM version.*", vs).group(0).strip(), entries)
        elif kind == "llvm22":
            ver = run([PYTHON, "-c", "import llvmlite, llvmlite.binding as b;"
                       "print('.'.join(map(str, b.llvm_version_info)), llvmlite.__version__)"])[1].split()
            outdir, entries = build(kind, f"llvm-{ver[0]}", llvm_points(LLVM22))
            write_manifest(outdir, "LLVM NVPTX back end via llvmlite",
                           f"LLVM {ver[0]} (llvmlite {ver[1]})", entries)
        elif kind == "nvcc":
            vs = run([NVCC, "--version"])[1]
            ver = re.search(r"V(\d+\.\d+\.\d+)", vs).group(1)
            outdir, entries = build(kind, f"nvcc-{ver}", nvcc_points())
            write_manifest(outdir, "nvcc",
                           re.search(r"Cuda compilation tools.*", vs).group(0).strip(), entries)
        elif kind == "triton":
            ver = run([PYTHON, "-c", "import triton; print(triton.__version__)"])[1].strip()
            outdir, entries = build(kind, f"triton-{ver}", triton_points())
            write_manifest(outdir, "triton (NVIDIA back end, PTX stage)", f"triton {ver}", entries,
                           date="2026-11-29")
        else:
            sys.exit(f"unknown compiler {kind!r}: llvm19, llvm22, nvcc or triton")
        total = sum(os.path.getsize(os.path.join(outdir, "modules", n))
                    for n in os.listdir(os.path.join(outdir, "modules")))
        fails = sum(1 for e in entries if "error" in e)
        rej = sum(1 for e in entries if e.get("ptxas", {}).get("exit", 0) != 0)
        print(f"{os.path.relpath(outdir, ROOT)}: {len(entries)} points, {fails} compile "
              f"errors, {rej} rejected by ptxas, modules {total} bytes")


if __name__ == "__main__":
    main()
