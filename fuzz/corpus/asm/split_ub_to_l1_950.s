#! --chip ascend950pr
.kernel ub_to_l1
.tensor X f16 [32, 16] in
.tensor B f16 [16, 32] in
.tensor C f32 [32, 32] out
.entry aic cube
.entry aiv vec
cube:
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=16, cols=32, src_stride=32, dst_rows=16
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    wait_cross MTE1, id=1
    load2d.f16 l0a[0], l1[0], repeat=2, src_stride=1
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=1, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=16, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    fixpipe.f32.f32 C[0], l0c[0], m=32, n=32, src_stride=32, dst_stride=32
    end
vec:
    subblock_idx x1
    mul x2, x1, 512
    copy_gm_ub ub[0], X[x2], len=16
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vadds.f16 ub[512], ub[0], 1.0, repeat=2
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_l1 l1[x2], ub[512], len=16
    set_cross MTE3, mode=2, id=1
    end
