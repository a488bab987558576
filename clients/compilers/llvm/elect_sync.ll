; elect_sync.ll - elect.sync through llvm.nvvm.elect.sync (LLVM 19 and 22), which
; returns the leader's lane id and the leader's flag.
; Expected PTX (sm_90 and up, PTX ISA 8.0 and up): elect.sync d|p, membermask.
; Both results are folded into %acc and stored, so nothing is dead; the second call
; keeps only the flag.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @elect_sync(ptr addrspace(1) %out, i32 %mask) {
entry:
  %full = call {i32, i1} @llvm.nvvm.elect.sync(i32 -1)
  %lane = extractvalue {i32, i1} %full, 0
  %flag = extractvalue {i32, i1} %full, 1
  %part = call {i32, i1} @llvm.nvvm.elect.sync(i32 %mask)
  %pflag = extractvalue {i32, i1} %part, 1
  %f = zext i1 %flag to i32
  %pf = zext i1 %pflag to i32
  %pf2 = shl i32 %pf, 1
  %a1 = xor i32 %lane, %f
  %acc = xor i32 %a1, %pf2
  store i32 %acc, ptr addrspace(1) %out
  ret void
}

declare {i32, i1} @llvm.nvvm.elect.sync(i32)
