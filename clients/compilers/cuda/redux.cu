// redux.cu - __reduce_*_sync (sm_80+): add/min/max on int and unsigned, and/or/xor on
// unsigned -> redux.sync.{add,min,max}.{s32,u32}, redux.sync.{and,or,xor}.b32.
// CUDA 13.5's headers declare no floating-point __reduce_*_sync (no redux.sync .f32 source).
extern "C" __global__ void redux(int *out, int x, unsigned u, unsigned mask) {
  int acc = 0;
  acc ^= __reduce_add_sync(mask, x);
  acc ^= (int)__reduce_add_sync(mask, u);
  acc ^= __reduce_min_sync(mask, x);
  acc ^= (int)__reduce_min_sync(mask, u);
  acc ^= __reduce_max_sync(mask, x);
  acc ^= (int)__reduce_max_sync(mask, u);
  acc ^= (int)__reduce_and_sync(mask, u);
  acc ^= (int)__reduce_or_sync(mask, u);
  acc ^= (int)__reduce_xor_sync(mask, u);
  *out = acc;
}
