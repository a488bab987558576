; warp_sync.ll - shfl.sync, vote.sync and activemask through their llvm.nvvm.*
; intrinsics (both LLVM 19 and LLVM 22 have all of them).
; Expected PTX: shfl.sync.{idx,up,down,bfly}.b32 (the ...p intrinsics also return
; the lane-valid predicate: shfl.sync.MODE.b32 d|p, ...), vote.sync.{all,any,uni}.pred,
; vote.sync.ballot.b32, activemask.b32.
; Every result is folded into %acc and stored, so nothing is dead.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @warp_sync(ptr addrspace(1) %out, i32 %x, float %f, i32 %lane, i32 %mask) {
entry:
  ; shfl.sync.idx: (membermask, value, lane/offset, clamp|segmask)
  %sidxi = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sidxf = call float @llvm.nvvm.shfl.sync.idx.f32(i32 %mask, float %f, i32 %lane, i32 31)
  %sidxip = call {i32, i1} @llvm.nvvm.shfl.sync.idx.i32p(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sidxfp = call {float, i1} @llvm.nvvm.shfl.sync.idx.f32p(i32 %mask, float %f, i32 %lane, i32 31)
  ; shfl.sync.up: (membermask, value, lane/offset, clamp|segmask)
  %supi = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %mask, i32 %x, i32 %lane, i32 0)
  %supf = call float @llvm.nvvm.shfl.sync.up.f32(i32 %mask, float %f, i32 %lane, i32 0)
  %supip = call {i32, i1} @llvm.nvvm.shfl.sync.up.i32p(i32 %mask, i32 %x, i32 %lane, i32 0)
  %supfp = call {float, i1} @llvm.nvvm.shfl.sync.up.f32p(i32 %mask, float %f, i32 %lane, i32 0)
  ; shfl.sync.down: (membermask, value, lane/offset, clamp|segmask)
  %sdowni = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sdownf = call float @llvm.nvvm.shfl.sync.down.f32(i32 %mask, float %f, i32 %lane, i32 31)
  %sdownip = call {i32, i1} @llvm.nvvm.shfl.sync.down.i32p(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sdownfp = call {float, i1} @llvm.nvvm.shfl.sync.down.f32p(i32 %mask, float %f, i32 %lane, i32 31)
  ; shfl.sync.bfly: (membermask, value, lane/offset, clamp|segmask)
  %sbflyi = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sbflyf = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 %mask, float %f, i32 %lane, i32 31)
  %sbflyip = call {i32, i1} @llvm.nvvm.shfl.sync.bfly.i32p(i32 %mask, i32 %x, i32 %lane, i32 31)
  %sbflyfp = call {float, i1} @llvm.nvvm.shfl.sync.bfly.f32p(i32 %mask, float %f, i32 %lane, i32 31)
  ; vote.sync: (membermask, predicate)
  %p = icmp ne i32 %x, 0
  %vall = call i1 @llvm.nvvm.vote.all.sync(i32 %mask, i1 %p)
  %vany = call i1 @llvm.nvvm.vote.any.sync(i32 %mask, i1 %p)
  %vuni = call i1 @llvm.nvvm.vote.uni.sync(i32 %mask, i1 %p)
  %vbal = call i32 @llvm.nvvm.vote.ballot.sync(i32 %mask, i1 %p)
  %am = call i32 @llvm.nvvm.activemask()
  ; fold everything into one value
  %sidxfb = bitcast float %sidxf to i32
  %sidxipv = extractvalue {i32, i1} %sidxip, 0
  %sidxipp = extractvalue {i32, i1} %sidxip, 1
  %sidxfpv = extractvalue {float, i1} %sidxfp, 0
  %sidxfpp = extractvalue {float, i1} %sidxfp, 1
  %sidxfpb = bitcast float %sidxfpv to i32
  %sidxipz = zext i1 %sidxipp to i32
  %sidxfpz = zext i1 %sidxfpp to i32
  %supfb = bitcast float %supf to i32
  %supipv = extractvalue {i32, i1} %supip, 0
  %supipp = extractvalue {i32, i1} %supip, 1
  %supfpv = extractvalue {float, i1} %supfp, 0
  %supfpp = extractvalue {float, i1} %supfp, 1
  %supfpb = bitcast float %supfpv to i32
  %supipz = zext i1 %supipp to i32
  %supfpz = zext i1 %supfpp to i32
  %sdownfb = bitcast float %sdownf to i32
  %sdownipv = extractvalue {i32, i1} %sdownip, 0
  %sdownipp = extractvalue {i32, i1} %sdownip, 1
  %sdownfpv = extractvalue {float, i1} %sdownfp, 0
  %sdownfpp = extractvalue {float, i1} %sdownfp, 1
  %sdownfpb = bitcast float %sdownfpv to i32
  %sdownipz = zext i1 %sdownipp to i32
  %sdownfpz = zext i1 %sdownfpp to i32
  %sbflyfb = bitcast float %sbflyf to i32
  %sbflyipv = extractvalue {i32, i1} %sbflyip, 0
  %sbflyipp = extractvalue {i32, i1} %sbflyip, 1
  %sbflyfpv = extractvalue {float, i1} %sbflyfp, 0
  %sbflyfpp = extractvalue {float, i1} %sbflyfp, 1
  %sbflyfpb = bitcast float %sbflyfpv to i32
  %sbflyipz = zext i1 %sbflyipp to i32
  %sbflyfpz = zext i1 %sbflyfpp to i32
  %vallz = zext i1 %vall to i32
  %vanyz = zext i1 %vany to i32
  %vuniz = zext i1 %vuni to i32
  %a0 = xor i32 %sidxi, %sidxfb
  %a1 = xor i32 %a0, %sidxipv
  %a2 = xor i32 %a1, %sidxfpb
  %a3 = xor i32 %a2, %sidxipz
  %a4 = xor i32 %a3, %sidxfpz
  %a5 = xor i32 %a4, %supi
  %a6 = xor i32 %a5, %supfb
  %a7 = xor i32 %a6, %supipv
  %a8 = xor i32 %a7, %supfpb
  %a9 = xor i32 %a8, %supipz
  %a10 = xor i32 %a9, %supfpz
  %a11 = xor i32 %a10, %sdowni
  %a12 = xor i32 %a11, %sdownfb
  %a13 = xor i32 %a12, %sdownipv
  %a14 = xor i32 %a13, %sdownfpb
  %a15 = xor i32 %a14, %sdownipz
  %a16 = xor i32 %a15, %sdownfpz
  %a17 = xor i32 %a16, %sbflyi
  %a18 = xor i32 %a17, %sbflyfb
  %a19 = xor i32 %a18, %sbflyipv
  %a20 = xor i32 %a19, %sbflyfpb
  %a21 = xor i32 %a20, %sbflyipz
  %a22 = xor i32 %a21, %sbflyfpz
  %a23 = xor i32 %a22, %vallz
  %a24 = xor i32 %a23, %vanyz
  %a25 = xor i32 %a24, %vuniz
  %a26 = xor i32 %a25, %vbal
  %a27 = xor i32 %a26, %am
  store i32 %a27, ptr addrspace(1) %out
  ret void
}
