; match_sync.ll - match.{any,all}.sync through llvm.nvvm.match.* (LLVM 19 and 22).
; match.any returns the mask of lanes holding the same value; match.all returns a pair
; {mask, predicate}. PTX: match.any.sync.b32/.b64, match.all.sync.b32/.b64 d|p.
; The PTX ISA needs sm_70 for match.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @match_sync(ptr addrspace(1) %out, i32 %x, i64 %y, i32 %mask) {
entry:
  %any32 = call i32 @llvm.nvvm.match.any.sync.i32(i32 %mask, i32 %x)
  %any64 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %mask, i64 %y)
  %all32 = call {i32, i1} @llvm.nvvm.match.all.sync.i32p(i32 %mask, i32 %x)
  %all64 = call {i32, i1} @llvm.nvvm.match.all.sync.i64p(i32 %mask, i64 %y)
  %m32 = extractvalue {i32, i1} %all32, 0
  %p32 = extractvalue {i32, i1} %all32, 1
  %m64 = extractvalue {i32, i1} %all64, 0
  %p64 = extractvalue {i32, i1} %all64, 1
  %z32 = zext i1 %p32 to i32
  %z64 = zext i1 %p64 to i32
  %a0 = xor i32 %any32, %any64
  %a1 = xor i32 %a0, %m32
  %a2 = xor i32 %a1, %m64
  %a3 = xor i32 %a2, %z32
  %a4 = xor i32 %a3, %z64
  store i32 %a4, ptr addrspace(1) %out
  ret void
}
