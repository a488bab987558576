// atomics.cu - CUDA atomic functions, each once with its result unused (a candidate for
// PTX red) and once with its result used (folded into *out).
// Global memory: every atomic function on int, unsigned, unsigned long long, long long,
// float, double, __half, __half2, __nv_bfloat16, __nv_bfloat162, and (sm_90) float2/float4.
// Shared and generic memory: the 32-bit integer functions and float add.
// The _block and _system scoped variants follow in atomics_scoped.cu.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef unsigned long long ull;

// The integer operations on one pointer; U: unused results, R: results into acc.
#define INT_OPS(p, v)                                                              \
  atomicAdd(p, v); atomicSub(p, v); atomicAnd(p, v); atomicOr(p, v);               \
  atomicXor(p, v); atomicMin(p, v); atomicMax(p, v); atomicExch(p, v);             \
  acc ^= atomicAdd(p, v) ^ atomicSub(p, v) ^ atomicAnd(p, v) ^ atomicOr(p, v) ^    \
         atomicXor(p, v) ^ atomicMin(p, v) ^ atomicMax(p, v) ^ atomicExch(p, v);
#define U64_OPS(p, v)                                                              \
  atomicAdd(p, v); atomicAnd(p, v); atomicOr(p, v); atomicXor(p, v);               \
  atomicMin(p, v); atomicMax(p, v); atomicExch(p, v);                              \
  acc ^= (int)(atomicAdd(p, v) ^ atomicAnd(p, v) ^ atomicOr(p, v) ^                \
               atomicXor(p, v) ^ atomicMin(p, v) ^ atomicMax(p, v) ^ atomicExch(p, v));
#define S64_OPS(p, v)                                                              \
  atomicAnd(p, v); atomicOr(p, v); atomicXor(p, v); atomicMin(p, v); atomicMax(p, v); \
  acc ^= (int)(atomicAnd(p, v) ^ atomicOr(p, v) ^ atomicXor(p, v) ^                \
               atomicMin(p, v) ^ atomicMax(p, v));

extern "C" __global__ void atomics(int *out, int *gi, unsigned *gu, ull *gull,
                                   long long *gll, float *gf, double *gd, __half *gh,
                                   __half2 *gh2, __nv_bfloat16 *gb, __nv_bfloat162 *gb2,
                                   float2 *gf2, float4 *gf4, int **pp, int v, unsigned w,
                                   ull x, long long y, float f, double d) {
  __shared__ int si;
  __shared__ unsigned su;
  __shared__ float sf;
  int acc = 0;
  float facc = 0.f;
  // ---- global
  INT_OPS(gi, v)
  INT_OPS(gu, w)
  atomicInc(gu, w); atomicDec(gu, w);
  acc ^= atomicInc(gu, w) ^ atomicDec(gu, w);
  U64_OPS(gull, x)
  S64_OPS(gll, y)
  atomicAdd(gf, f); atomicExch(gf, f);
  facc += atomicAdd(gf, f) + atomicExch(gf, f);
  atomicAdd(gd, d);
  facc += (float)atomicAdd(gd, d);
  __half h = __float2half(f);
  __half2 h2 = __halves2half2(h, h);
  __nv_bfloat16 b = __float2bfloat16(f);
  __nv_bfloat162 b2 = __halves2bfloat162(b, b);
  atomicAdd(gh, h); atomicAdd(gh2, h2); atomicAdd(gb, b); atomicAdd(gb2, b2);
  facc += __half2float(atomicAdd(gh, h)) + __low2float(atomicAdd(gh2, h2)) +
          __bfloat162float(atomicAdd(gb, b)) + __low2float(atomicAdd(gb2, b2));
#if __CUDA_ARCH__ >= 900
  // float2/float4 atomicAdd: global memory, sm_90 and up
  float2 f2 = make_float2(f, f);
  float4 f4 = make_float4(f, f, f, f);
  atomicAdd(gf2, f2); atomicAdd(gf4, f4);
  facc += atomicAdd(gf2, f2).x + atomicAdd(gf4, f4).w;
#endif
  // ---- shared
  INT_OPS(&si, v)
  INT_OPS(&su, w)
  atomicInc(&su, w); atomicDec(&su, w);
  acc ^= atomicInc(&su, w) ^ atomicDec(&su, w);
  atomicAdd(&sf, f);
  facc += atomicAdd(&sf, f);
  // ---- generic (a pointer loaded from memory, so its space is unknown)
  int *p = *pp;
  INT_OPS(p, v)
  atomicAdd((float *)p, f);
  facc += atomicAdd((float *)p, f);
  *out = acc ^ __float_as_int(facc);
}
