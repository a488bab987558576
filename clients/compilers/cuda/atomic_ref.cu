// atomic_ref.cu - libcu++ cuda::atomic_ref fetch_* with the result unused and used,
// under memory orders and thread scopes (block, device, system).
#include <cuda/atomic>

template <cuda::thread_scope S>
__device__ int ops(int *gi, float *gf, int v, float f) {
  cuda::atomic_ref<int, S> a(*gi);
  cuda::atomic_ref<float, S> b(*gf);
  // result unused
  a.fetch_add(v, cuda::std::memory_order_relaxed);
  a.fetch_add(v, cuda::std::memory_order_acq_rel);
  a.fetch_add(v);  // seq_cst
  a.fetch_sub(v, cuda::std::memory_order_relaxed);
  a.fetch_and(v, cuda::std::memory_order_relaxed);
  a.fetch_or(v, cuda::std::memory_order_relaxed);
  a.fetch_xor(v, cuda::std::memory_order_relaxed);
  a.fetch_min(v, cuda::std::memory_order_relaxed);
  a.fetch_max(v, cuda::std::memory_order_relaxed);
  b.fetch_add(f, cuda::std::memory_order_relaxed);
  // result used
  int r = a.fetch_add(v, cuda::std::memory_order_relaxed);
  return r ^ __float_as_int(b.fetch_add(f, cuda::std::memory_order_relaxed));
}

extern "C" __global__ void atomic_ref(int *out, int *gi, float *gf, int v, float f) {
  *out = ops<cuda::thread_scope_block>(gi, gf, v, f) ^
         ops<cuda::thread_scope_device>(gi, gf, v, f) ^
         ops<cuda::thread_scope_system>(gi, gf, v, f);
}
