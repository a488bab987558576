// elect.cu - elect.sync through libcu++'s cuda::ptx::elect_sync (PTX ISA 8.0, sm_90):
//   cuda::ptx::elect_sync(membermask) -> bool   (elect.sync _|p, membermask)
// with a full mask, a runtime mask and inside a branch (a partial warp). Every
// result is folded into one value stored to *out, so nothing is dead.
#include <cuda/ptx>

extern "C" __global__ void elect(int *out, unsigned mask, int x) {
  int acc = 0;
  acc ^= (int)cuda::ptx::elect_sync(0xffffffffu);
  acc ^= (int)cuda::ptx::elect_sync(mask) << 1;
  if (x > 0) {
    acc ^= (int)cuda::ptx::elect_sync(__activemask()) << 2;
  }
  *out = acc;
}
