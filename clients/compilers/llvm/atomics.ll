; atomics.ll - atomicrmw, monotonic, default (system) scope, in the global (1), shared (3)
; and generic (0) address spaces. Each op once with the result unused (the candidates for
; PTX red) and once with the result used (folded into a value stored to %out).
; i32: every integer op; i64: every integer op except uinc_wrap/udec_wrap (PTX atom.inc/dec
; are 32-bit only), global and generic only to keep the module small; floating-point
; fadd on float, double, half and bfloat in all three spaces.
target triple = "nvptx64-nvidia-cuda"

@sh32 = internal addrspace(3) global i32 0, align 4
@sh64 = internal addrspace(3) global i64 0, align 8
@shf = internal addrspace(3) global double 0.0, align 8

define ptx_kernel void @atomics(ptr addrspace(1) %out, ptr addrspace(1) %g, ptr addrspace(1) %g64, ptr addrspace(1) %pp, i32 %v, i64 %w, float %f, double %d, half %h, bfloat %b) {
entry:
  ; generic pointers are loaded from memory: NVPTX treats a kernel's pointer parameters
  ; as global, so a parameter would not stay generic
  %p = load ptr, ptr addrspace(1) %pp
  %pp8 = getelementptr i8, ptr addrspace(1) %pp, i64 8
  %p64 = load ptr, ptr addrspace(1) %pp8
  ; ---- i32, global
  atomicrmw add ptr addrspace(1) %g, i32 %v monotonic
  %global_add_32 = atomicrmw add ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw sub ptr addrspace(1) %g, i32 %v monotonic
  %global_sub_32 = atomicrmw sub ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw and ptr addrspace(1) %g, i32 %v monotonic
  %global_and_32 = atomicrmw and ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw or ptr addrspace(1) %g, i32 %v monotonic
  %global_or_32 = atomicrmw or ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw xor ptr addrspace(1) %g, i32 %v monotonic
  %global_xor_32 = atomicrmw xor ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw max ptr addrspace(1) %g, i32 %v monotonic
  %global_max_32 = atomicrmw max ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw min ptr addrspace(1) %g, i32 %v monotonic
  %global_min_32 = atomicrmw min ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw umax ptr addrspace(1) %g, i32 %v monotonic
  %global_umax_32 = atomicrmw umax ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw umin ptr addrspace(1) %g, i32 %v monotonic
  %global_umin_32 = atomicrmw umin ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw xchg ptr addrspace(1) %g, i32 %v monotonic
  %global_xchg_32 = atomicrmw xchg ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw uinc_wrap ptr addrspace(1) %g, i32 %v monotonic
  %global_uinc_wrap_32 = atomicrmw uinc_wrap ptr addrspace(1) %g, i32 %v monotonic
  atomicrmw udec_wrap ptr addrspace(1) %g, i32 %v monotonic
  %global_udec_wrap_32 = atomicrmw udec_wrap ptr addrspace(1) %g, i32 %v monotonic
  ; ---- i32, shared
  atomicrmw add ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_add_32 = atomicrmw add ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw sub ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_sub_32 = atomicrmw sub ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw and ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_and_32 = atomicrmw and ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw or ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_or_32 = atomicrmw or ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw xor ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_xor_32 = atomicrmw xor ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw max ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_max_32 = atomicrmw max ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw min ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_min_32 = atomicrmw min ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw umax ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_umax_32 = atomicrmw umax ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw umin ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_umin_32 = atomicrmw umin ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw xchg ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_xchg_32 = atomicrmw xchg ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw uinc_wrap ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_uinc_wrap_32 = atomicrmw uinc_wrap ptr addrspace(3) @sh32, i32 %v monotonic
  atomicrmw udec_wrap ptr addrspace(3) @sh32, i32 %v monotonic
  %shared_udec_wrap_32 = atomicrmw udec_wrap ptr addrspace(3) @sh32, i32 %v monotonic
  ; ---- i32, generic
  atomicrmw add ptr %p, i32 %v monotonic
  %generic_add_32 = atomicrmw add ptr %p, i32 %v monotonic
  atomicrmw sub ptr %p, i32 %v monotonic
  %generic_sub_32 = atomicrmw sub ptr %p, i32 %v monotonic
  atomicrmw and ptr %p, i32 %v monotonic
  %generic_and_32 = atomicrmw and ptr %p, i32 %v monotonic
  atomicrmw or ptr %p, i32 %v monotonic
  %generic_or_32 = atomicrmw or ptr %p, i32 %v monotonic
  atomicrmw xor ptr %p, i32 %v monotonic
  %generic_xor_32 = atomicrmw xor ptr %p, i32 %v monotonic
  atomicrmw max ptr %p, i32 %v monotonic
  %generic_max_32 = atomicrmw max ptr %p, i32 %v monotonic
  atomicrmw min ptr %p, i32 %v monotonic
  %generic_min_32 = atomicrmw min ptr %p, i32 %v monotonic
  atomicrmw umax ptr %p, i32 %v monotonic
  %generic_umax_32 = atomicrmw umax ptr %p, i32 %v monotonic
  atomicrmw umin ptr %p, i32 %v monotonic
  %generic_umin_32 = atomicrmw umin ptr %p, i32 %v monotonic
  atomicrmw xchg ptr %p, i32 %v monotonic
  %generic_xchg_32 = atomicrmw xchg ptr %p, i32 %v monotonic
  atomicrmw uinc_wrap ptr %p, i32 %v monotonic
  %generic_uinc_wrap_32 = atomicrmw uinc_wrap ptr %p, i32 %v monotonic
  atomicrmw udec_wrap ptr %p, i32 %v monotonic
  %generic_udec_wrap_32 = atomicrmw udec_wrap ptr %p, i32 %v monotonic
  ; ---- i64, global
  atomicrmw add ptr addrspace(1) %g64, i64 %w monotonic
  %global_add_64 = atomicrmw add ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw sub ptr addrspace(1) %g64, i64 %w monotonic
  %global_sub_64 = atomicrmw sub ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw and ptr addrspace(1) %g64, i64 %w monotonic
  %global_and_64 = atomicrmw and ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw or ptr addrspace(1) %g64, i64 %w monotonic
  %global_or_64 = atomicrmw or ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw xor ptr addrspace(1) %g64, i64 %w monotonic
  %global_xor_64 = atomicrmw xor ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw max ptr addrspace(1) %g64, i64 %w monotonic
  %global_max_64 = atomicrmw max ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw min ptr addrspace(1) %g64, i64 %w monotonic
  %global_min_64 = atomicrmw min ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw umax ptr addrspace(1) %g64, i64 %w monotonic
  %global_umax_64 = atomicrmw umax ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw umin ptr addrspace(1) %g64, i64 %w monotonic
  %global_umin_64 = atomicrmw umin ptr addrspace(1) %g64, i64 %w monotonic
  atomicrmw xchg ptr addrspace(1) %g64, i64 %w monotonic
  %global_xchg_64 = atomicrmw xchg ptr addrspace(1) %g64, i64 %w monotonic
  ; ---- i64, generic
  atomicrmw add ptr %p64, i64 %w monotonic
  %generic_add_64 = atomicrmw add ptr %p64, i64 %w monotonic
  atomicrmw sub ptr %p64, i64 %w monotonic
  %generic_sub_64 = atomicrmw sub ptr %p64, i64 %w monotonic
  atomicrmw and ptr %p64, i64 %w monotonic
  %generic_and_64 = atomicrmw and ptr %p64, i64 %w monotonic
  atomicrmw or ptr %p64, i64 %w monotonic
  %generic_or_64 = atomicrmw or ptr %p64, i64 %w monotonic
  atomicrmw xor ptr %p64, i64 %w monotonic
  %generic_xor_64 = atomicrmw xor ptr %p64, i64 %w monotonic
  atomicrmw max ptr %p64, i64 %w monotonic
  %generic_max_64 = atomicrmw max ptr %p64, i64 %w monotonic
  atomicrmw min ptr %p64, i64 %w monotonic
  %generic_min_64 = atomicrmw min ptr %p64, i64 %w monotonic
  atomicrmw umax ptr %p64, i64 %w monotonic
  %generic_umax_64 = atomicrmw umax ptr %p64, i64 %w monotonic
  atomicrmw umin ptr %p64, i64 %w monotonic
  %generic_umin_64 = atomicrmw umin ptr %p64, i64 %w monotonic
  atomicrmw xchg ptr %p64, i64 %w monotonic
  %generic_xchg_64 = atomicrmw xchg ptr %p64, i64 %w monotonic
  ; ---- fadd, global
  atomicrmw fadd ptr addrspace(1) %g64, float %f monotonic
  %global_fadd_f32 = atomicrmw fadd ptr addrspace(1) %g64, float %f monotonic
  atomicrmw fadd ptr addrspace(1) %g64, double %d monotonic
  %global_fadd_f64 = atomicrmw fadd ptr addrspace(1) %g64, double %d monotonic
  atomicrmw fadd ptr addrspace(1) %g64, half %h monotonic
  %global_fadd_f16 = atomicrmw fadd ptr addrspace(1) %g64, half %h monotonic
  atomicrmw fadd ptr addrspace(1) %g64, bfloat %b monotonic
  %global_fadd_bf16 = atomicrmw fadd ptr addrspace(1) %g64, bfloat %b monotonic
  ; ---- fadd, shared
  atomicrmw fadd ptr addrspace(3) @shf, float %f monotonic
  %shared_fadd_f32 = atomicrmw fadd ptr addrspace(3) @shf, float %f monotonic
  atomicrmw fadd ptr addrspace(3) @shf, double %d monotonic
  %shared_fadd_f64 = atomicrmw fadd ptr addrspace(3) @shf, double %d monotonic
  atomicrmw fadd ptr addrspace(3) @shf, half %h monotonic
  %shared_fadd_f16 = atomicrmw fadd ptr addrspace(3) @shf, half %h monotonic
  atomicrmw fadd ptr addrspace(3) @shf, bfloat %b monotonic
  %shared_fadd_bf16 = atomicrmw fadd ptr addrspace(3) @shf, bfloat %b monotonic
  ; ---- fadd, generic
  atomicrmw fadd ptr %p64, float %f monotonic
  %generic_fadd_f32 = atomicrmw fadd ptr %p64, float %f monotonic
  atomicrmw fadd ptr %p64, double %d monotonic
  %generic_fadd_f64 = atomicrmw fadd ptr %p64, double %d monotonic
  atomicrmw fadd ptr %p64, half %h monotonic
  %generic_fadd_f16 = atomicrmw fadd ptr %p64, half %h monotonic
  atomicrmw fadd ptr %p64, bfloat %b monotonic
  %generic_fadd_bf16 = atomicrmw fadd ptr %p64, bfloat %b monotonic
  ; ---- fold the used results
  %x0 = xor i32 %global_add_32, %global_sub_32
  %x1 = xor i32 %x0, %global_and_32
  %x2 = xor i32 %x1, %global_or_32
  %x3 = xor i32 %x2, %global_xor_32
  %x4 = xor i32 %x3, %global_max_32
  %x5 = xor i32 %x4, %global_min_32
  %x6 = xor i32 %x5, %global_umax_32
  %x7 = xor i32 %x6, %global_umin_32
  %x8 = xor i32 %x7, %global_xchg_32
  %x9 = xor i32 %x8, %global_uinc_wrap_32
  %x10 = xor i32 %x9, %global_udec_wrap_32
  %x11 = xor i32 %x10, %shared_add_32
  %x12 = xor i32 %x11, %shared_sub_32
  %x13 = xor i32 %x12, %shared_and_32
  %x14 = xor i32 %x13, %shared_or_32
  %x15 = xor i32 %x14, %shared_xor_32
  %x16 = xor i32 %x15, %shared_max_32
  %x17 = xor i32 %x16, %shared_min_32
  %x18 = xor i32 %x17, %shared_umax_32
  %x19 = xor i32 %x18, %shared_umin_32
  %x20 = xor i32 %x19, %shared_xchg_32
  %x21 = xor i32 %x20, %shared_uinc_wrap_32
  %x22 = xor i32 %x21, %shared_udec_wrap_32
  %x23 = xor i32 %x22, %generic_add_32
  %x24 = xor i32 %x23, %generic_sub_32
  %x25 = xor i32 %x24, %generic_and_32
  %x26 = xor i32 %x25, %generic_or_32
  %x27 = xor i32 %x26, %generic_xor_32
  %x28 = xor i32 %x27, %generic_max_32
  %x29 = xor i32 %x28, %generic_min_32
  %x30 = xor i32 %x29, %generic_umax_32
  %x31 = xor i32 %x30, %generic_umin_32
  %x32 = xor i32 %x31, %generic_xchg_32
  %x33 = xor i32 %x32, %generic_uinc_wrap_32
  %x34 = xor i32 %x33, %generic_udec_wrap_32
  %y0 = xor i64 %global_add_64, %global_sub_64
  %y1 = xor i64 %y0, %global_and_64
  %y2 = xor i64 %y1, %global_or_64
  %y3 = xor i64 %y2, %global_xor_64
  %y4 = xor i64 %y3, %global_max_64
  %y5 = xor i64 %y4, %global_min_64
  %y6 = xor i64 %y5, %global_umax_64
  %y7 = xor i64 %y6, %global_umin_64
  %y8 = xor i64 %y7, %global_xchg_64
  %y9 = xor i64 %y8, %generic_add_64
  %y10 = xor i64 %y9, %generic_sub_64
  %y11 = xor i64 %y10, %generic_and_64
  %y12 = xor i64 %y11, %generic_or_64
  %y13 = xor i64 %y12, %generic_xor_64
  %y14 = xor i64 %y13, %generic_max_64
  %y15 = xor i64 %y14, %generic_min_64
  %y16 = xor i64 %y15, %generic_umax_64
  %y17 = xor i64 %y16, %generic_umin_64
  %y18 = xor i64 %y17, %generic_xchg_64
  %y64t = trunc i64 %y18 to i32
  %xi = xor i32 %x34, %y64t
  %ff0 = fadd float %global_fadd_f32, %shared_fadd_f32
  %ff1 = fadd float %ff0, %generic_fadd_f32
  %fd0 = fadd double %global_fadd_f64, %shared_fadd_f64
  %fd1 = fadd double %fd0, %generic_fadd_f64
  %fh0 = fadd half %global_fadd_f16, %shared_fadd_f16
  %fh1 = fadd half %fh0, %generic_fadd_f16
  %fb0 = fadd bfloat %global_fadd_bf16, %shared_fadd_bf16
  %fb1 = fadd bfloat %fb0, %generic_fadd_bf16
  %cf16 = fpext half %fh1 to float
  %cbf = fpext bfloat %fb1 to float
  %cf64 = fptrunc double %fd1 to float
  %s0 = fadd float %ff1, %cf16
  %s1 = fadd float %s0, %cbf
  %s2 = fadd float %s1, %cf64
  %sb = bitcast float %s2 to i32
  %r = xor i32 %xi, %sb
  store i32 %r, ptr addrspace(1) %out
  ret void
}
