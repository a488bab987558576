// warp.cu - the CUDA warp intrinsics that lower to our warp instructions:
//   __shfl_sync / __shfl_up_sync / __shfl_down_sync / __shfl_xor_sync
//     on int, float (one shfl.sync.*.b32 each) and long long, double (two each),
//   __ballot_sync, __all_sync, __any_sync, __uni_sync  (vote.sync.*),
//   __activemask                                        (activemask.b32),
//   __match_any_sync, __match_all_sync on 32- and 64-bit values (match.*.sync, sm_70+).
// Every result is folded into one value stored to *out, so nothing is dead.
extern "C" __global__ void warp(int *out, int x, float f, long long l, double d,
                                unsigned mask, int lane) {
  int acc = 0;
  // shfl.sync: idx (lane), up/down (delta), bfly (lane mask); width 32 (default).
  acc ^= __shfl_sync(mask, x, lane);
  acc ^= __float_as_int(__shfl_sync(mask, f, lane));
  acc ^= (int)__shfl_sync(mask, l, lane);
  acc ^= (int)__double2loint(__shfl_sync(mask, d, lane));
  acc ^= __shfl_up_sync(mask, x, 1);
  acc ^= __float_as_int(__shfl_up_sync(mask, f, 1));
  acc ^= (int)__shfl_up_sync(mask, l, 1);
  acc ^= __shfl_down_sync(mask, x, 1);
  acc ^= __float_as_int(__shfl_down_sync(mask, f, 1));
  acc ^= (int)__double2loint(__shfl_down_sync(mask, d, 1));
  acc ^= __shfl_xor_sync(mask, x, 1);
  acc ^= __float_as_int(__shfl_xor_sync(mask, f, 1));
  acc ^= (int)__shfl_xor_sync(mask, l, 1);
  // a sub-warp width (16) changes the clamp/segment-mask operand
  acc ^= __shfl_sync(mask, x, lane, 16);
  acc ^= __shfl_down_sync(mask, x, 1, 16);
  // vote.sync
  acc ^= (int)__ballot_sync(mask, x > 0);
  acc ^= __all_sync(mask, x > 0) << 1;
  acc ^= __any_sync(mask, x > 0) << 2;
  acc ^= __uni_sync(mask, x > 0) << 3;
  // activemask
  acc ^= (int)__activemask();
  // match.sync (32- and 64-bit values; __match_all_sync also returns a predicate)
  int pred32 = 0, pred64 = 0;
  acc ^= (int)__match_any_sync(mask, x);
  acc ^= (int)__match_any_sync(mask, l);
  acc ^= (int)__match_all_sync(mask, x, &pred32);
  acc ^= (int)__match_all_sync(mask, l, &pred64);
  acc ^= pred32 << 4;
  acc ^= pred64 << 5;
  *out = acc;
}
