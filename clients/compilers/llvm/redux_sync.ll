; redux_sync.ll - integer redux.sync through llvm.nvvm.redux.sync.* (LLVM 19 and 22):
; add, umin, umax, min, max, and, or, xor, each (value, membermask).
; PTX: redux.sync.{add,min,max}.{u32,s32}, redux.sync.{and,or,xor}.b32; sm_80 and up.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @redux_sync(ptr addrspace(1) %out, i32 %x, i32 %mask) {
entry:
  %add = call i32 @llvm.nvvm.redux.sync.add(i32 %x, i32 %mask)
  %umin = call i32 @llvm.nvvm.redux.sync.umin(i32 %x, i32 %mask)
  %umax = call i32 @llvm.nvvm.redux.sync.umax(i32 %x, i32 %mask)
  %min = call i32 @llvm.nvvm.redux.sync.min(i32 %x, i32 %mask)
  %max = call i32 @llvm.nvvm.redux.sync.max(i32 %x, i32 %mask)
  %and = call i32 @llvm.nvvm.redux.sync.and(i32 %x, i32 %mask)
  %or = call i32 @llvm.nvvm.redux.sync.or(i32 %x, i32 %mask)
  %xor = call i32 @llvm.nvvm.redux.sync.xor(i32 %x, i32 %mask)
  %a0 = xor i32 %add, %umin
  %a1 = xor i32 %a0, %umax
  %a2 = xor i32 %a1, %min
  %a3 = xor i32 %a2, %max
  %a4 = xor i32 %a3, %and
  %a5 = xor i32 %a4, %or
  %a6 = xor i32 %a5, %xor
  store i32 %a6, ptr addrspace(1) %out
  ret void
}
