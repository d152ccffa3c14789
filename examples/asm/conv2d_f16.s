# A 3x3 convolution, stride 1, padding 1, as the cube does it: img2col by load3d from a feature map
# in L1, times the weights as the GEMM's B operand, on one AI core.
#   X: 1 image, 20 channels, 8 x 8, in NC1HWC0 (C1 = 2 blocks of C0 = 16 channels; 12 zero channels)
#   W: 24 filters of 20 x 3 x 3 in FRACTAL_Z: (C1*KH*KW, N1, N0, C0) = (18, 2, 16, 16), filters 24..31 zero
#   Y: the implicit GEMM's result, (OH*OW, Cout padded) = 64 x 32 f32, row-major (NHWC for one image)
# GM --MTE2--> L1 --MTE1 load3d--> L0A (the 64 x 288 im2col window, zZ)
#             L1 --MTE1 load2d--> L0B (FRACTAL_Z is L0B's zN order already)
#    --M mmad--> L0C (NZ) --V mov_l0c_ub--> UB --MTE3 strided bursts--> GM
# emulator/layout.h defines both layouts; tests/emulator/conv_layout_test.cpp runs this file against
# naive loops.
.kernel conv2d_f16
.tensor X f16 [1, 2, 8, 8, 16] in
.tensor W f16 [18, 2, 16, 16] in
.tensor Y f32 [64, 32] out

    copy_gm_l1 l1[0], X[0], len=128          # 4 KiB feature map, as it is
    copy_gm_l1 l1[4096], W[0], len=576       # 18 KiB of weight fractals
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0

    set_fmatrix h=8, w=8, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1
    # Rows: the 64 output positions; columns: K = (c1, kh, kw, c0) = 2 * 3 * 3 * 16 = 288.
    load3d.f16 l0a[0], l1[0], c1=2, kh=3, kw=3, m_len=64, k_len=288
    load2d.f16 l0b[0], l1[4096], repeat=36
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0

    mmad.f16 l0c[0], l0a[0], l0b[0], m=64, n=32, k=288, init
    set_flag M, V, 0
    wait_flag M, V, 0

    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=8  # 4 x 2 accumulator fractals, NZ
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0

    # Column strip nb of the NZ result is 64 rows of 16 floats (64 B) in UB; rows of Y are 128 B.
    copy_ub_gm Y[0], ub[0], nburst=64, len=2, dst_gap=2
    copy_ub_gm Y[64], ub[4096], nburst=64, len=2, dst_gap=2
    end
