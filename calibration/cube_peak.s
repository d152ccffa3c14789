# The cube's sustained ceiling, measured as AIBench (CCF THPC 2024) measures it: every core fills
# L0A and L0B once, then issues the largest mmad they hold back to back, with nothing else to wait
# for. TFLOPS = 2 * 128 * 128 * 256 * 512 mmads * 32 cores / time. calibration/rows.json, row
# cube_ceiling_910; run timing-only (`cubekit run calibration/cube_peak.s --timing-only`).
.kernel cube_peak
.block_dim 32
.tensor A f16 [128, 256] in
.tensor B f16 [256, 128] in

    # A (128 x 256) and B (256 x 128) into L1, 64 KiB each, then 128 fractals each into L0A / L0B.
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=128, cols=256, src_stride=256, dst_rows=128
    copy_gm_l1_nd2nz.f16 l1[65536], B[0], rows=256, cols=128, src_stride=128, dst_rows=256
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    load2d.f16 l0a[0], l1[0], repeat=128
    load2d.f16 l0b[0], l1[65536], repeat=128, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0

    # 512 mmads of 8 x 8 x 16 fractal steps (1024 cycles at peak) each.
    li x1, 0
again:
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=256, init
    add x1, x1, 1
    blt x1, 512, again
    end
