// barrier_red.cu - bar.red through CUDA's block-wide vote intrinsics (every target):
//   __syncthreads_count(p) -> int   (the number of threads with p true)
//   __syncthreads_and(p)   -> int   (p true in every thread)
//   __syncthreads_or(p)    -> int   (p true in some thread)
// on a per-thread predicate and on a predicate computed from a runtime value. Every
// result is folded into one value stored to *out, so nothing is dead.
extern "C" __global__ void barrier_red(int *out, const int *in, int x) {
  int v = in[threadIdx.x];
  int acc = __syncthreads_count(v > x);
  acc ^= __syncthreads_and(v != 0) << 8;
  acc ^= __syncthreads_or((v & 1) == 1) << 9;
  out[threadIdx.x] = acc;
}
