#! --chip ascend910b2
# C = relu(A x B + bias) on ascend910b2, a split chip: one mixed kernel on one core group.
#   cube core (AIC):  GM --MTE2--> L1 --MTE1--> L0A/L0B --M mmad--> L0C --FIX fixpipe--> W (GM workspace, f32)
#   vector cores (AIV 0 and 1, 16 rows each):
#                     W --MTE2--> UB --V vadd bias, vrelu, vconv f32->f16--> UB --MTE3--> C (GM)
# The cube core tells its two vector cores that W is written with a cross-core flag (mode 2: an
# AIC's set reaches both AIVs of its group); inside each core, set_flag/wait_flag hand work from
# pipe to pipe and `barrier V` orders dependent vector instructions. Run it with
#   cubekit run examples/asm/mixed_matmul_bias_relu_910b2.s --chip ascend910b2
# Deleting any synchronisation instruction is reported (tests/emulator/mixed_example_test.cpp).
.kernel mixed_matmul_bias_relu
.tensor A f16 [32, 64] in
.tensor B f16 [64, 32] in
.tensor bias f32 [32] in
.tensor W f32 [32, 32] out        # the workspace the cube core hands to the vector cores
.tensor C f16 [32, 32] out
.entry aic cube
.entry aiv vec

cube:
    # A (32 x 64) and B (64 x 32) into L1 as NZ fractals: column blocks of 16 halves.
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=32, cols=64, src_stride=64, dst_rows=32
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=64, cols=32, src_stride=32, dst_rows=64
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    # L0A (zZ) wants A's fractal (mb, kb) at (mb*4 + kb)*512; in L1 it is at (kb*2 + mb)*512.
    load2d.f16 l0a[0], l1[0], repeat=4, src_stride=2
    load2d.f16 l0a[2048], l1[512], repeat=4, src_stride=2
    # L0B (zN) wants B's fractal (kb, nb) at (kb*2 + nb)*512, transposed; in L1 at (nb*4 + kb)*512.
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[1024], l1[4608], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[2048], l1[5120], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[3072], l1[5632], repeat=2, src_stride=4, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=64, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    # L0C (NZ, 32 rows per fractal column) -> W row-major, f32 unchanged.
    fixpipe.f32.f32 W[0], l0c[0], m=32, n=32, src_stride=32, dst_stride=32
    set_cross FIX, mode=2, id=0    # W is written: both vector cores of this group may read it
    end

vec:
    subblock_idx x1                # 0 or 1: which half of the rows
    mul x2, x1, 2048               # its 16 rows of W (16 x 32 f32)
    mul x3, x1, 1024               # its 16 rows of C (16 x 32 f16)
    # The bias twice (64 f32: one vector repeat covers two rows of 32), then the rows of W.
    copy_gm_ub ub[0], bias[0], len=4
    copy_gm_ub ub[128], bias[0], len=4
    wait_cross MTE2, id=0          # until the cube core's fixpipe has written W
    copy_gm_ub ub[256], W[x2], len=64
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vadd.f32 ub[256], ub[256], ub[0], repeat=8, src1_rep=0
    barrier V
    vrelu.f32 ub[256], ub[256], repeat=8
    barrier V
    vconv.f16.f32 ub[2304], ub[256], repeat=8, dst_rep=4
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm C[x3], ub[2304], len=32
    end
