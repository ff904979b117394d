"""Hand-written PTX kernels for the GPU tests and the launch benchmark (ISA 8.0, so
the nvJitLink of a CUDA 13.0 host accepts it)."""

PTX = r"""
.version 8.0
.target sm_75
.address_size 64

.visible .global .align 4 .u32 counter = 7;

.visible .entry add_one(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}

.visible .entry empty4(.param .u64 a, .param .u64 b, .param .u64 c, .param .f32 d)
{
  ret;
}

.visible .entry fault()
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, 8;
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}

.visible .entry store_params(.param .u64 out, .param .u8 a, .param .u32 b, .param .u64 c,
                             .param .f64 d, .param .f32 e)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<2>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u8 %h1, [a];
  st.global.u8 [%rd2], %h1;
  ld.param.u32 %r1, [b];
  st.global.u32 [%rd2+4], %r1;
  ld.param.u64 %rd3, [c];
  st.global.u64 [%rd2+8], %rd3;
  ld.param.f64 %fd1, [d];
  st.global.f64 [%rd2+16], %fd1;
  ld.param.f32 %f1, [e];
  st.global.f32 [%rd2+24], %f1;
  ret;
}

.visible .entry use_shared(.param .u64 p)
{
  .shared .align 4 .b8 sbuf[1024];
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<3>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  mov.u64 %rd2, sbuf;
  add.s64 %rd3, %rd2, %rd1;
  cvt.rn.f32.u32 %f1, %r1;
  st.shared.f32 [%rd3], %f1;
  bar.sync 0;
  xor.b32 %r2, %r1, 1;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd5, %rd2, %rd5;
  ld.shared.f32 %f2, [%rd5];
  ld.param.u64 %rd4, [p];
  cvta.to.global.u64 %rd4, %rd4;
  add.s64 %rd4, %rd4, %rd1;
  st.global.f32 [%rd4], %f2;
  ret;
}
"""
