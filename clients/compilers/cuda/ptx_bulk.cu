// ptx_bulk.cu - libcu++ cuda::ptx wrappers (inline PTX; sm_90 and up):
//   cp_reduce_async_bulk: every overload of CCCL 3.5 -- shared::cta -> global with
//     bulk_group (and/or/xor on b32/b64, min/max/add/inc/dec on u32, min/max/add on s32,
//     min/max/add on u64, min/max on s64, add on s64 (emitted as .u64), add on f32/f64,
//     min/max/add(.noftz) on f16/bf16), and shared::cta -> shared::cluster with
//     mbarrier::complete_tx::bytes (and/or/xor b32, min/max/add/inc/dec u32,
//     min/max/add s32, add u64/s64);
//   red_async: every overload (red.async...shared::cluster.mbarrier::complete_tx::bytes);
//   shfl_sync_{idx,up,down,bfly}: cuda::ptx's shfl.sync wrappers.
#include <cuda/ptx>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace ptx = cuda::ptx;
using u32 = cuda::std::uint32_t;
using u64 = cuda::std::uint64_t;
using i32 = cuda::std::int32_t;
using i64 = cuda::std::int64_t;

extern "C" __global__ void ptx_bulk(char *g, int *out, u32 n, u32 v, u32 lane) {
  __shared__ alignas(128) char s[256];
  __shared__ alignas(8) u64 bar;
  auto G = ptx::space_global;
  auto S = ptx::space_shared;
  auto C = ptx::space_cluster;
  // ---- shared::cta -> global, bulk_group
  ptx::cp_reduce_async_bulk(G, S, ptx::op_and_op, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_or_op, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_xor_op, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_and_op, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_or_op, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_xor_op, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_inc, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_dec, (u32 *)g, (const u32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (i32 *)g, (const i32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (i32 *)g, (const i32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (i32 *)g, (const i32 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (u64 *)g, (const u64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (i64 *)g, (const i64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (i64 *)g, (const i64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (i64 *)g, (const i64 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (float *)g, (const float *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (double *)g, (const double *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (__half *)g, (const __half *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (__half *)g, (const __half *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (__half *)g, (const __half *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_min, (__nv_bfloat16 *)g, (const __nv_bfloat16 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_max, (__nv_bfloat16 *)g, (const __nv_bfloat16 *)s, n);
  ptx::cp_reduce_async_bulk(G, S, ptx::op_add, (__nv_bfloat16 *)g, (const __nv_bfloat16 *)s, n);
  // ---- shared::cta -> shared::cluster, mbarrier::complete_tx::bytes
  u32 *d32 = (u32 *)(s + 128);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_and_op, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_or_op, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_xor_op, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_min, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_max, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_add, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_inc, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_dec, d32, (const u32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_min, (i32 *)d32, (const i32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_max, (i32 *)d32, (const i32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_add, (i32 *)d32, (const i32 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_add, (u64 *)d32, (const u64 *)s, n, &bar);
  ptx::cp_reduce_async_bulk(C, S, ptx::op_add, (i64 *)d32, (const i64 *)s, n, &bar);
  // ---- red.async (shared::cluster, mbarrier::complete_tx::bytes)
  ptx::red_async(ptx::op_inc, d32, v, &bar);
  ptx::red_async(ptx::op_dec, d32, v, &bar);
  ptx::red_async(ptx::op_min, d32, v, &bar);
  ptx::red_async(ptx::op_max, d32, v, &bar);
  ptx::red_async(ptx::op_add, d32, v, &bar);
  ptx::red_async(ptx::op_min, (i32 *)d32, (i32)v, &bar);
  ptx::red_async(ptx::op_max, (i32 *)d32, (i32)v, &bar);
  ptx::red_async(ptx::op_add, (i32 *)d32, (i32)v, &bar);
  ptx::red_async(ptx::op_and_op, d32, v, &bar);
  ptx::red_async(ptx::op_or_op, d32, v, &bar);
  ptx::red_async(ptx::op_xor_op, d32, v, &bar);
  ptx::red_async(ptx::op_add, (u64 *)d32, (u64)v, &bar);
  ptx::red_async(ptx::op_add, (i64 *)d32, (i64)v, (i64 *)&bar);  // this overload takes an i64* barrier
  // ---- shfl.sync wrappers
  bool p;
  u32 r = ptx::shfl_sync_idx(v, p, lane, 0x1f, 0xffffffffu);
  r ^= ptx::shfl_sync_up(v, 1, 0, 0xffffffffu);
  r ^= ptx::shfl_sync_down(v, 1, 0x1f, 0xffffffffu);
  r ^= ptx::shfl_sync_bfly(v, 1, 0x1f, 0xffffffffu);
  *out = (int)r ^ (int)p;
}
