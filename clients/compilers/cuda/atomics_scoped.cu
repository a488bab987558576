// atomics_scoped.cu - the scoped atomic functions (_block: .cta, _system: .sys; the
// unsuffixed ones are device scope) on global memory, result unused and result used.
typedef unsigned long long ull;

#define SCOPED(S)                                                                  \
  atomicAdd##S(gi, v); atomicSub##S(gi, v); atomicAnd##S(gi, v); atomicOr##S(gi, v); \
  atomicXor##S(gi, v); atomicMin##S(gi, v); atomicMax##S(gi, v);                   \
  atomicExch##S(gi, v); atomicInc##S(gu, w); atomicDec##S(gu, w);                  \
  atomicAdd##S(gull, x); atomicAdd##S(gf, f); atomicAdd##S(gd, d);                 \
  acc ^= atomicAdd##S(gi, v) ^ atomicMin##S(gi, v) ^ (int)atomicInc##S(gu, w) ^    \
         (int)atomicAdd##S(gull, x);                                               \
  facc += atomicAdd##S(gf, f) + (float)atomicAdd##S(gd, d);

extern "C" __global__ void atomics_scoped(int *out, int *gi, unsigned *gu, ull *gull,
                                          float *gf, double *gd, int v, unsigned w, ull x,
                                          float f, double d) {
  int acc = 0;
  float facc = 0.f;
  SCOPED(_block)
  SCOPED(_system)
  *out = acc ^ __float_as_int(facc);
}
