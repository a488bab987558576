; atomics_order_scope.ll - atomicrmw add (i32) and fadd (float) on a global pointer under
; each syncscope NVPTX might read ("" = system, "block", "cluster", "device") and each
; ordering (monotonic, acq_rel, seq_cst); result unused and result used. Shows whether
; the emitted atom/red carries .cta/.cluster/.gpu/.sys and .relaxed/.acq_rel or fences.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @atomics_order_scope(ptr addrspace(1) %out, ptr addrspace(1) %g, i32 %v, float %f) {
entry:
  ; scope system, monotonic
  atomicrmw add ptr addrspace(1) %g, i32 %v monotonic
  %i_system_monotonic = atomicrmw add ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw fadd ptr addrspace(1) %g, float %f monotonic
  %f_system_monotonic = atomicrmw fadd ptr addrspace(1) %g, float %f monotonic
  ; scope system, acq_rel
  atomicrmw add ptr addrspace(1) %g, i32 %v acq_rel
  %i_system_acq_rel = atomicrmw add ptr addrspace(1) %g, i32 %v acq_rel
  atomicrmw fadd ptr addrspace(1) %g, float %f acq_rel
  %f_system_acq_rel = atomicrmw fadd ptr addrspace(1) %g, float %f acq_rel
  ; scope system, seq_cst
  atomicrmw add ptr addrspace(1) %g, i32 %v seq_cst
  %i_system_seq_cst = atomicrmw add ptr addrspace(1) %g, i32 %v seq_cst
  atomicrmw fadd ptr addrspace(1) %g, float %f seq_cst
  %f_system_seq_cst = atomicrmw fadd ptr addrspace(1) %g, float %f seq_cst
  ; scope block, monotonic
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") monotonic
  %i_block_monotonic = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") monotonic
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") monotonic
  %f_block_monotonic = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") monotonic
  ; scope block, acq_rel
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") acq_rel
  %i_block_acq_rel = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") acq_rel
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") acq_rel
  %f_block_acq_rel = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") acq_rel
  ; scope block, seq_cst
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") seq_cst
  %i_block_seq_cst = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("block") seq_cst
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") seq_cst
  %f_block_seq_cst = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("block") seq_cst
  ; scope cluster, monotonic
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") monotonic
  %i_cluster_monotonic = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") monotonic
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") monotonic
  %f_cluster_monotonic = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") monotonic
  ; scope cluster, acq_rel
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") acq_rel
  %i_cluster_acq_rel = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") acq_rel
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") acq_rel
  %f_cluster_acq_rel = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") acq_rel
  ; scope cluster, seq_cst
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") seq_cst
  %i_cluster_seq_cst = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("cluster") seq_cst
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") seq_cst
  %f_cluster_seq_cst = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("cluster") seq_cst
  ; scope device, monotonic
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") monotonic
  %i_device_monotonic = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") monotonic
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") monotonic
  %f_device_monotonic = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") monotonic
  ; scope device, acq_rel
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") acq_rel
  %i_device_acq_rel = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") acq_rel
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") acq_rel
  %f_device_acq_rel = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") acq_rel
  ; scope device, seq_cst
  atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") seq_cst
  %i_device_seq_cst = atomicrmw add ptr addrspace(1) %g, i32 %v syncscope("device") seq_cst
  atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") seq_cst
  %f_device_seq_cst = atomicrmw fadd ptr addrspace(1) %g, float %f syncscope("device") seq_cst
  %x0 = xor i32 %i_system_monotonic, %i_system_acq_rel
  %x1 = xor i32 %x0, %i_system_seq_cst
  %x2 = xor i32 %x1, %i_block_monotonic
  %x3 = xor i32 %x2, %i_block_acq_rel
  %x4 = xor i32 %x3, %i_block_seq_cst
  %x5 = xor i32 %x4, %i_cluster_monotonic
  %x6 = xor i32 %x5, %i_cluster_acq_rel
  %x7 = xor i32 %x6, %i_cluster_seq_cst
  %x8 = xor i32 %x7, %i_device_monotonic
  %x9 = xor i32 %x8, %i_device_acq_rel
  %x10 = xor i32 %x9, %i_device_seq_cst
  %y0 = fadd float %f_system_monotonic, %f_system_acq_rel
  %y1 = fadd float %y0, %f_system_seq_cst
  %y2 = fadd float %y1, %f_block_monotonic
  %y3 = fadd float %y2, %f_block_acq_rel
  %y4 = fadd float %y3, %f_block_seq_cst
  %y5 = fadd float %y4, %f_cluster_monotonic
  %y6 = fadd float %y5, %f_cluster_acq_rel
  %y7 = fadd float %y6, %f_cluster_seq_cst
  %y8 = fadd float %y7, %f_device_monotonic
  %y9 = fadd float %y8, %f_device_acq_rel
  %y10 = fadd float %y9, %f_device_seq_cst
  %fb = bitcast float %y10 to i32
  %r = xor i32 %x10, %fb
  store i32 %r, ptr addrspace(1) %out
  ret void
}
