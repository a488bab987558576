; bulk_reduce_tensor.ll - LLVM 22 only. Neither LLVM 19 nor LLVM 22 has an intrinsic for
; the non-tensor cp.reduce.async.bulk (global/shared::cluster destinations); the nearest
; are llvm.nvvm.cp.async.bulk.tensor.reduce.{add,min,max,inc,dec,and,or,xor}.{tile,im2col}.Nd,
; which emit cp.reduce.async.bulk.tensor.Nd.global.shared::cta.OP.MODE.bulk_group.
; Arguments (as LLVM 22 takes them): shared::cta source, tensor map (generic), the
; coordinates, an i64 cache-policy and an i1 that says whether the cache hint is used
; (adds .L2::cache_hint). The element type comes from the tensor map, not the intrinsic.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @bulk_reduce_tensor(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i32 %c1, i32 %c2, i64 %policy) {
entry:
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.min.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.min.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.max.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.max.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.inc.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.inc.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.dec.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.dec.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.and.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.and.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.or.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.or.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.xor.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.xor.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 1)
  ; one im2col form (3d is the smallest im2col rank)
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.im2col.3d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i32 %c1, i32 %c2, i64 %policy, i1 0)
  ret void
}
