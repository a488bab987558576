; redux_sync_f32.ll - floating-point redux.sync (LLVM 22 only; LLVM 19 has no such
; intrinsics): llvm.nvvm.redux.sync.{fmin,fmax}[.abs][.NaN](float value, i32 membermask).
; PTX: redux.sync.{min,max}[.abs][.NaN].f32, which the PTX ISA gives to sm_100a/sm_101a
; (PTX ISA 8.6) and family targets later.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @redux_sync_f32(ptr addrspace(1) %out, float %x, i32 %mask) {
entry:
  %fmin = call float @llvm.nvvm.redux.sync.fmin(float %x, i32 %mask)
  %fmin_abs = call float @llvm.nvvm.redux.sync.fmin.abs(float %x, i32 %mask)
  %fmin_NaN = call float @llvm.nvvm.redux.sync.fmin.NaN(float %x, i32 %mask)
  %fmin_abs_NaN = call float @llvm.nvvm.redux.sync.fmin.abs.NaN(float %x, i32 %mask)
  %fmax = call float @llvm.nvvm.redux.sync.fmax(float %x, i32 %mask)
  %fmax_abs = call float @llvm.nvvm.redux.sync.fmax.abs(float %x, i32 %mask)
  %fmax_NaN = call float @llvm.nvvm.redux.sync.fmax.NaN(float %x, i32 %mask)
  %fmax_abs_NaN = call float @llvm.nvvm.redux.sync.fmax.abs.NaN(float %x, i32 %mask)
  %a0 = fadd float %fmin, %fmin_abs
  %a1 = fadd float %a0, %fmin_NaN
  %a2 = fadd float %a1, %fmin_abs_NaN
  %a3 = fadd float %a2, %fmax
  %a4 = fadd float %a3, %fmax_abs
  %a5 = fadd float %a4, %fmax_NaN
  %a6 = fadd float %a5, %fmax_abs_NaN
  store float %a6, ptr addrspace(1) %out
  ret void
}
