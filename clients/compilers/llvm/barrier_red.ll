; barrier_red.ll - bar.red through llvm.nvvm.barrier0.popc, .and and .or (LLVM 19
; and 22), the intrinsics behind CUDA's __syncthreads_count, _and and _or: each
; takes an i32 predicate (non-zero is true) and returns the reduction over the CTA.
; Expected PTX: bar.red.popc.u32 / bar.red.and.pred / bar.red.or.pred, or their
; barrier.cta.red...aligned spellings. The three results are folded into %acc and
; stored, so nothing is dead.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @barrier_red(ptr addrspace(1) %out, i32 %p) {
entry:
  %n = call i32 @llvm.nvvm.barrier0.popc(i32 %p)
  %all = call i32 @llvm.nvvm.barrier0.and(i32 %p)
  %any = call i32 @llvm.nvvm.barrier0.or(i32 %p)
  %all2 = shl i32 %all, 8
  %any2 = shl i32 %any, 9
  %a1 = xor i32 %n, %all2
  %acc = xor i32 %a1, %any2
  store i32 %acc, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.barrier0.popc(i32)
declare i32 @llvm.nvvm.barrier0.and(i32)
declare i32 @llvm.nvvm.barrier0.or(i32)
