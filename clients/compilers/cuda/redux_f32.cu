// redux_f32.cu - probe: does CUDA 13.5 offer a float __reduce_min_sync/__reduce_max_sync
// (redux.sync.{min,max}.f32)? Its headers declare none, so this is expected to fail
// (no overload takes a float without conversion to int/unsigned being ambiguous) or to
// convert the float to an integer; either outcome is the recorded result.
extern "C" __global__ void redux_f32(float *out, float f, unsigned mask) {
  *out = __reduce_min_sync(mask, f) + __reduce_max_sync(mask, f);
}
