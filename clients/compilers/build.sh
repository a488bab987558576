#!/usr/bin/env bash
# clients/compilers/build.sh - compile the sources beside this script with four real
# compilers and record what they emit, for a later `ptxvec lint`:
#
#   llvm/*.ll  -> llc-19 (LLVM 19.1.7, Debian)          -> vectors/clients/llvm-19.1.7/
#   llvm/*.ll  -> LLVM 22.1.0 inside llvmlite 0.50.0     -> vectors/clients/llvm-22.1.0/
#                 (driven by llvmlite_llc.py)
#   cuda/*.cu  -> nvcc 13.5 (V13.5.37), libcu++ CCCL 3.5 -> vectors/clients/nvcc-13.5.37/
#   triton/*.py -> Triton 3.9.0, PTX stage, no GPU       -> vectors/clients/triton-3.9.0/
#                 (driven by triton/compile.py)
#
# The litmus tests (llvm/litmus_*.ll, cuda/litmus_*.cu, listed in litmus.json; written
# by litmus.py) are compiled at one point each (sm_90 / compute_90); afterwards
# `ptxvec litmus-compiled` reads them back (vectors/clients/<compiler>/litmus.json).
#
# Each module is then given to ptxas: CUDA 13.5's for .target sm_75 and up, CUDA 12.9's
# below (13.5 no longer assembles sm_50..sm_72). The matrix, the deduplication and the
# manifest format are in build.py.
#
# This script installs nothing. On a clean Debian 12 machine with Python 3.11:
#
#   apt-get update && apt-get install -y llvm-19        # llc-19, 19.1.7
#   pip install llvmlite==0.50.0                        # LLVM 22.1.0
#   pip install nvidia-cuda-nvcc==13.5.37               # nvcc, ptxas 13.5 (pulls crt, nvvm,
#                                                       # cuda-runtime 13.5.37)
#   pip install nvidia-cuda-cccl==13.3.5.0.6            # libcu++ (CCCL 3.5.0); no 13.5.x
#                                                       # release of this package exists
#   pip install nvidia-cuda-nvcc-cu12==12.9.86          # ptxas 12.9 for sm_50..sm_72
#   pip install triton==3.9.0                           # Triton (its own ptxas is not run)
#
# Usage, from anywhere:   clients/compilers/build.sh [llvm19] [llvm22] [nvcc] [triton]
# (no argument: all four). Tool paths may be overridden with LLC19, PYTHON, NVCC,
# PTXAS13 and PTXAS12. Runs one compiler process at a time (about 6 minutes in all on
# two cores).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

export PYTHON="${PYTHON:-python3}"
site="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
export LLC19="${LLC19:-llc-19}"
export NVCC="${NVCC:-$site/nvidia/cu13/bin/nvcc}"
export PTXAS13="${PTXAS13:-$site/nvidia/cu13/bin/ptxas}"
export PTXAS12="${PTXAS12:-$site/nvidia/cuda_nvcc/bin/ptxas}"

missing=0
for tool in "$LLC19" "$NVCC" "$PTXAS13" "$PTXAS12"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build.sh: missing $tool (see the install commands at the top of this script)" >&2
    missing=1
  fi
done
"$PYTHON" -c 'import triton' 2>/dev/null ||
  { echo "build.sh: missing triton (pip install triton==3.9.0)" >&2; missing=1; }
"$PYTHON" -c 'import llvmlite.binding' 2>/dev/null ||
  { echo "build.sh: missing llvmlite (pip install llvmlite==0.50.0)" >&2; missing=1; }
[ -f "$site/nvidia/cu13/include/cccl/cuda/ptx" ] ||
  { echo "build.sh: missing libcu++ (pip install nvidia-cuda-cccl==13.3.5.0.6)" >&2; missing=1; }
[ "$missing" = 0 ] || exit 1

cd "$root"
exec "$PYTHON" "$here/build.py" "$@"
