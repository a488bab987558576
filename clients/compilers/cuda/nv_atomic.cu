// nv_atomic.cu - nvcc's __nv_atomic_* built-ins (order and scope as arguments):
// __nv_atomic_add/sub/and/or/xor/min/max (no result) against __nv_atomic_fetch_* (result),
// relaxed/acq_rel/seq_cst at block, cluster, device and system scope, global memory.
#define ORDERS(OP, p, v, S)                                                        \
  __nv_atomic_##OP(p, v, __NV_ATOMIC_RELAXED, S);                                  \
  __nv_atomic_##OP(p, v, __NV_ATOMIC_RELEASE, S);                                  \
  __nv_atomic_##OP(p, v, __NV_ATOMIC_SEQ_CST, S);

extern "C" __global__ void nv_atomic(int *out, int *gi, float *gf, int v, float f) {
  // the non-returning forms
  ORDERS(add, gi, v, __NV_THREAD_SCOPE_BLOCK)
  ORDERS(add, gi, v, __NV_THREAD_SCOPE_CLUSTER)
  ORDERS(add, gi, v, __NV_THREAD_SCOPE_DEVICE)
  ORDERS(add, gi, v, __NV_THREAD_SCOPE_SYSTEM)
  __nv_atomic_sub(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_and(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_or(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_xor(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_min(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_max(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_add(gf, f, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  // the fetching forms, result unused and used
  __nv_atomic_fetch_add(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  int r = __nv_atomic_fetch_add(gi, v, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  r ^= __nv_atomic_fetch_add(gi, v, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_BLOCK);
  r ^= __nv_atomic_fetch_min(gi, v, __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_SYSTEM);
  float g = __nv_atomic_fetch_add(gf, f, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  *out = r ^ __float_as_int(g);
}
