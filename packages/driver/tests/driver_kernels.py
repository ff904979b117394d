"""Hand-written PTX kernels for the GPU tests and the launch benchmark (ISA 8.0, so
the nvJitLink of a CUDA 13.0 host accepts it); ``SM90_PTX`` holds the kernels that
need compute capability 9.0 (clusters, programmatic dependent launch)."""

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

// Thread 0 of every block increments *arrivals, then spins until all blocks have
// (the parameter is not named ``counter``: that name is the module's global above):
// a grid-wide barrier, which finishes only when every block is co-resident (what a
// cooperative launch guarantees); out[ctaid.x] = the count each block saw.
.visible .entry grid_sync(.param .u64 arrivals, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  ld.param.u64 %rd1, [arrivals];
  cvta.to.global.u64 %rd1, %rd1;
  atom.global.add.u32 %r2, [%rd1], 1;
  mov.u32 %r3, %nctaid.x;
SPIN:
  ld.volatile.global.u32 %r4, [%rd1];
  setp.lt.u32 %p2, %r4, %r3;
  @%p2 bra SPIN;
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r5, %ctaid.x;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
END:
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

SM90_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

// out[3 * ctaid.x + (0, 1, 2)] = (%clusterid.x, %cluster_ctarank, %cluster_nctarank)
.visible .entry cluster_ids(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %clusterid.x;
  mov.u32 %r4, %cluster_ctarank;
  mov.u32 %r5, %cluster_nctarank;
  mul.wide.u32 %rd2, %r2, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
DONE:
  ret;
}

// add_one after griddepcontrol.wait (the previous kernel's writes are visible), then
// griddepcontrol.launch_dependents: the kernel of a programmatic dependent launch chain.
.visible .entry add_one_pdl(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;
  griddepcontrol.wait;
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
  griddepcontrol.launch_dependents;
  ret;
}
"""
