; warp_nosync.ll - the deprecated non-sync shfl and vote intrinsics
; (llvm.nvvm.shfl.{idx,up,down,bfly}.{i32,f32}[p], llvm.nvvm.vote.{all,any,uni,ballot}),
; still present in LLVM 19 and LLVM 22. PTX: shfl.MODE.b32 and vote.{all,any,uni}.pred /
; vote.ballot.b32 without .sync, which the PTX ISA does not support on sm_70 and later
; from PTX ISA 6.4 on.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @warp_nosync(ptr addrspace(1) %out, i32 %x, float %f, i32 %lane) {
entry:
  %sidxi = call i32 @llvm.nvvm.shfl.idx.i32(i32 %x, i32 %lane, i32 31)
  %sidxf = call float @llvm.nvvm.shfl.idx.f32(float %f, i32 %lane, i32 31)
  %sidxip = call {i32, i1} @llvm.nvvm.shfl.idx.i32p(i32 %x, i32 %lane, i32 31)
  %sidxfp = call {float, i1} @llvm.nvvm.shfl.idx.f32p(float %f, i32 %lane, i32 31)
  %sidxfb = bitcast float %sidxf to i32
  %sidxipv = extractvalue {i32, i1} %sidxip, 0
  %sidxipp = extractvalue {i32, i1} %sidxip, 1
  %sidxfpv = extractvalue {float, i1} %sidxfp, 0
  %sidxfpb = bitcast float %sidxfpv to i32
  %sidxipz = zext i1 %sidxipp to i32
  %supi = call i32 @llvm.nvvm.shfl.up.i32(i32 %x, i32 %lane, i32 0)
  %supf = call float @llvm.nvvm.shfl.up.f32(float %f, i32 %lane, i32 0)
  %supip = call {i32, i1} @llvm.nvvm.shfl.up.i32p(i32 %x, i32 %lane, i32 0)
  %supfp = call {float, i1} @llvm.nvvm.shfl.up.f32p(float %f, i32 %lane, i32 0)
  %supfb = bitcast float %supf to i32
  %supipv = extractvalue {i32, i1} %supip, 0
  %supipp = extractvalue {i32, i1} %supip, 1
  %supfpv = extractvalue {float, i1} %supfp, 0
  %supfpb = bitcast float %supfpv to i32
  %supipz = zext i1 %supipp to i32
  %sdowni = call i32 @llvm.nvvm.shfl.down.i32(i32 %x, i32 %lane, i32 31)
  %sdownf = call float @llvm.nvvm.shfl.down.f32(float %f, i32 %lane, i32 31)
  %sdownip = call {i32, i1} @llvm.nvvm.shfl.down.i32p(i32 %x, i32 %lane, i32 31)
  %sdownfp = call {float, i1} @llvm.nvvm.shfl.down.f32p(float %f, i32 %lane, i32 31)
  %sdownfb = bitcast float %sdownf to i32
  %sdownipv = extractvalue {i32, i1} %sdownip, 0
  %sdownipp = extractvalue {i32, i1} %sdownip, 1
  %sdownfpv = extractvalue {float, i1} %sdownfp, 0
  %sdownfpb = bitcast float %sdownfpv to i32
  %sdownipz = zext i1 %sdownipp to i32
  %sbflyi = call i32 @llvm.nvvm.shfl.bfly.i32(i32 %x, i32 %lane, i32 31)
  %sbflyf = call float @llvm.nvvm.shfl.bfly.f32(float %f, i32 %lane, i32 31)
  %sbflyip = call {i32, i1} @llvm.nvvm.shfl.bfly.i32p(i32 %x, i32 %lane, i32 31)
  %sbflyfp = call {float, i1} @llvm.nvvm.shfl.bfly.f32p(float %f, i32 %lane, i32 31)
  %sbflyfb = bitcast float %sbflyf to i32
  %sbflyipv = extractvalue {i32, i1} %sbflyip, 0
  %sbflyipp = extractvalue {i32, i1} %sbflyip, 1
  %sbflyfpv = extractvalue {float, i1} %sbflyfp, 0
  %sbflyfpb = bitcast float %sbflyfpv to i32
  %sbflyipz = zext i1 %sbflyipp to i32
  %p = icmp ne i32 %x, 0
  %vall = call i1 @llvm.nvvm.vote.all(i1 %p)
  %vallz = zext i1 %vall to i32
  %vany = call i1 @llvm.nvvm.vote.any(i1 %p)
  %vanyz = zext i1 %vany to i32
  %vuni = call i1 @llvm.nvvm.vote.uni(i1 %p)
  %vuniz = zext i1 %vuni to i32
  %vballot = call i32 @llvm.nvvm.vote.ballot(i1 %p)
  %a0 = xor i32 %sidxi, %sidxfb
  %a1 = xor i32 %a0, %sidxipv
  %a2 = xor i32 %a1, %sidxfpb
  %a3 = xor i32 %a2, %sidxipz
  %a4 = xor i32 %a3, %supi
  %a5 = xor i32 %a4, %supfb
  %a6 = xor i32 %a5, %supipv
  %a7 = xor i32 %a6, %supfpb
  %a8 = xor i32 %a7, %supipz
  %a9 = xor i32 %a8, %sdowni
  %a10 = xor i32 %a9, %sdownfb
  %a11 = xor i32 %a10, %sdownipv
  %a12 = xor i32 %a11, %sdownfpb
  %a13 = xor i32 %a12, %sdownipz
  %a14 = xor i32 %a13, %sbflyi
  %a15 = xor i32 %a14, %sbflyfb
  %a16 = xor i32 %a15, %sbflyipv
  %a17 = xor i32 %a16, %sbflyfpb
  %a18 = xor i32 %a17, %sbflyipz
  %a19 = xor i32 %a18, %vallz
  %a20 = xor i32 %a19, %vanyz
  %a21 = xor i32 %a20, %vuniz
  %a22 = xor i32 %a21, %vballot
  store i32 %a22, ptr addrspace(1) %out
  ret void
}
