#! --chip ascend950pr
.kernel fixpipe_to_ub
.tensor A f16 [32, 64] in
.tensor B f16 [64, 32] in
.tensor C f32 [32, 32] out
.entry aic cube
.entry aiv vec
cube:
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=32, cols=64, src_stride=64, dst_rows=32
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=64, cols=32, src_stride=32, dst_rows=64
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    load2d.f16 l0a[0], l1[0], repeat=4, src_stride=2
    load2d.f16 l0a[2048], l1[512], repeat=4, src_stride=2
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[1024], l1[4608], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[2048], l1[5120], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[3072], l1[5632], repeat=2, src_stride=4, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=64, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    fixpipe.f32.f32 ub[0], l0c[0], m=16, n=32, src_stride=32, dst_stride=32, sub=0
    fixpipe.f32.f32 ub[0], l0c[1024], m=16, n=32, src_stride=32, dst_stride=32, sub=1
    set_cross FIX, mode=2, id=0
    end
vec:
    subblock_idx x1
    mul x2, x1, 2048
    wait_cross V, id=0
    vmuls.f32 ub[4096], ub[0], 2.0, repeat=8
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm C[x2], ub[4096], len=64
    end
