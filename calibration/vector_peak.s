# The vector unit's sustained ceiling, measured as AIBench (CCF THPC 2024) measures it: every core
# loads two UB operands once, then issues full-mask f16 vadds of 255 repeats back to back (128
# lanes, one addition each per repeat). TFLOPS = 128 * 255 * 1024 vadds * 32 cores / time.
# calibration/rows.json, row vector_ceiling_910; run timing-only.
.kernel vector_peak
.block_dim 32
.tensor X f16 [2, 32640] in

    # Two operands of 255 repeats x 256 B into UB; the sums go to a third region.
    copy_gm_ub ub[0], X[0], len=2040
    copy_gm_ub ub[65536], X[65280], len=2040
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0

    li x1, 0
again:
    vadd.f16 ub[131072], ub[0], ub[65536], repeat=255
    add x1, x1, 1
    blt x1, 1024, again
    end
