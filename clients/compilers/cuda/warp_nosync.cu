// warp_nosync.cu - the pre-CUDA 9 warp intrinsics without a member mask: __shfl, __shfl_up,
// __shfl_down, __shfl_xor, __ballot, __all, __any (PTX shfl / vote without .sync).
// CUDA declares them only for targets below sm_70, so with nvcc 13.5 (compute_75 and
// up) this file is expected not to compile; the error is the recorded result.
extern "C" __global__ void warp_nosync(int *out, int x, int lane) {
  int acc = __shfl(x, lane) ^ __shfl_up(x, 1) ^ __shfl_down(x, 1) ^ __shfl_xor(x, 1);
  acc ^= (int)__ballot(x > 0) ^ __all(x > 0) ^ __any(x > 0);
  *out = acc;
}
