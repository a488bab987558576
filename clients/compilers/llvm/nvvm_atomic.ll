; nvvm_atomic.ll - the scoped llvm.nvvm.atomic.*.gen.{i,f}.{cta,sys} intrinsics (generic
; pointer; LLVM 19 and 22) and llvm.nvvm.atomic.load.{inc,dec}.32 (an intrinsic in LLVM 19;
; LLVM 22 auto-upgrades it to atomicrmw uinc_wrap/udec_wrap). Result unused and used.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @nvvm_atomic(ptr addrspace(1) %out, ptr addrspace(1) %pp, i32 %v, float %f) {
entry:
  ; a generic pointer loaded from memory (a kernel's pointer parameter would be taken as global)
  %p = load ptr, ptr addrspace(1) %pp
  call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %add_cta = call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.exch.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %exch_cta = call i32 @llvm.nvvm.atomic.exch.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.max.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %max_cta = call i32 @llvm.nvvm.atomic.max.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.min.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %min_cta = call i32 @llvm.nvvm.atomic.min.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.inc.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %inc_cta = call i32 @llvm.nvvm.atomic.inc.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.dec.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %dec_cta = call i32 @llvm.nvvm.atomic.dec.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.and.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %and_cta = call i32 @llvm.nvvm.atomic.and.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.or.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %or_cta = call i32 @llvm.nvvm.atomic.or.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.xor.gen.i.cta.i32.p0(ptr %p, i32 %v)
  %xor_cta = call i32 @llvm.nvvm.atomic.xor.gen.i.cta.i32.p0(ptr %p, i32 %v)
  call float @llvm.nvvm.atomic.add.gen.f.cta.f32.p0(ptr %p, float %f)
  %fadd_cta = call float @llvm.nvvm.atomic.add.gen.f.cta.f32.p0(ptr %p, float %f)
  call i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %add_sys = call i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.exch.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %exch_sys = call i32 @llvm.nvvm.atomic.exch.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.max.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %max_sys = call i32 @llvm.nvvm.atomic.max.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.min.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %min_sys = call i32 @llvm.nvvm.atomic.min.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.inc.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %inc_sys = call i32 @llvm.nvvm.atomic.inc.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.dec.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %dec_sys = call i32 @llvm.nvvm.atomic.dec.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.and.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %and_sys = call i32 @llvm.nvvm.atomic.and.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.or.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %or_sys = call i32 @llvm.nvvm.atomic.or.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.xor.gen.i.sys.i32.p0(ptr %p, i32 %v)
  %xor_sys = call i32 @llvm.nvvm.atomic.xor.gen.i.sys.i32.p0(ptr %p, i32 %v)
  call float @llvm.nvvm.atomic.add.gen.f.sys.f32.p0(ptr %p, float %f)
  %fadd_sys = call float @llvm.nvvm.atomic.add.gen.f.sys.f32.p0(ptr %p, float %f)
  call i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr %p, i32 %v)
  %load_inc = call i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr %p, i32 %v)
  call i32 @llvm.nvvm.atomic.load.dec.32.p0(ptr %p, i32 %v)
  %load_dec = call i32 @llvm.nvvm.atomic.load.dec.32.p0(ptr %p, i32 %v)
  %x0 = xor i32 %add_cta, %exch_cta
  %x1 = xor i32 %x0, %max_cta
  %x2 = xor i32 %x1, %min_cta
  %x3 = xor i32 %x2, %inc_cta
  %x4 = xor i32 %x3, %dec_cta
  %x5 = xor i32 %x4, %and_cta
  %x6 = xor i32 %x5, %or_cta
  %x7 = xor i32 %x6, %xor_cta
  %x8 = xor i32 %x7, %add_sys
  %x9 = xor i32 %x8, %exch_sys
  %x10 = xor i32 %x9, %max_sys
  %x11 = xor i32 %x10, %min_sys
  %x12 = xor i32 %x11, %inc_sys
  %x13 = xor i32 %x12, %dec_sys
  %x14 = xor i32 %x13, %and_sys
  %x15 = xor i32 %x14, %or_sys
  %x16 = xor i32 %x15, %xor_sys
  %x17 = xor i32 %x16, %load_inc
  %x18 = xor i32 %x17, %load_dec
  %y0 = fadd float %fadd_cta, %fadd_sys
  %fb = bitcast float %y0 to i32
  %r = xor i32 %x18, %fb
  store i32 %r, ptr addrspace(1) %out
  ret void
}
