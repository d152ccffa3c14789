# C = A x B, 128x128 by K = 1024 in fp16 (f32 result), in 8 k-tiles of 128, SINGLE-buffered:
# one L1 slot and one L0A/L0B slot, so loading tile i+1 into L1 waits until MTE1 has moved tile i
# on, and MTE1 waits for the cube to finish with L0. Compare matmul_f16_db.s.
# Every flag is needed: the guards skip the waits of the first tile and the signals of the last,
# so nothing is left set and no wait is redundant. No barrier either: the flags M -> MTE1 -> M
# already order each mmad after the previous one, which accumulates into the same L0C.
.kernel matmul_f16_kloop
.tensor A f16 [128, 1024] in
.tensor B f16 [1024, 128] in
.tensor C f32 [128, 128] out
    li x10, 0                              # i: the k-tile
tiles:
    # ---- the k-tile in x10 through slot 0 ----
    beq x10, 0, t_l1_free           # its first use: nothing to wait for
    wait_flag MTE1, MTE2, 0              # MTE1 has finished reading L1 slot 0
t_l1_free:
    mul x2, x10, 256                # A columns [128i, 128i+128): byte offset 128i*2
    mul x3, x10, 32768              # B rows [128i, 128i+128): byte offset 128i*128*2
    copy_gm_l1_nd2nz.f16 l1[0], A[x2], rows=128, cols=128, src_stride=1024, dst_rows=128
    copy_gm_l1_nd2nz.f16 l1[32768], B[x3], rows=128, cols=128, src_stride=128, dst_rows=128
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    beq x10, 0, t_l0_free
    wait_flag M, MTE1, 0                 # the cube has finished reading L0 slot 0
t_l0_free:
    li x1, 0
t_a:                                 # A: fractal (mb, kb) from L1 (kb*8+mb) to L0A (mb*8+kb)
    mul x4, x1, 512
    add x4, x4, 0
    mul x5, x1, 4096
    add x5, x5, 0
    load2d.f16 l0a[x5], l1[x4], repeat=8, src_stride=8
    add x1, x1, 1
    blt x1, 8, t_a
    li x1, 0
t_b:                                 # B: fractal (kb, nb) from L1 (nb*8+kb) to L0B (kb*8+nb), transposed
    mul x4, x1, 512
    add x4, x4, 32768
    mul x5, x1, 4096
    add x5, x5, 0
    load2d.f16 l0b[x5], l1[x4], repeat=8, src_stride=8, transpose
    add x1, x1, 1
    blt x1, 8, t_b
    bge x10, 7, t_keep_l1           # the slot's last tile: nobody waits for it
    set_flag MTE1, MTE2, 0
t_keep_l1:
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    beq x10, 0, t_init
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=128
    jmp t_issued
t_init:
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=128, init
t_issued:
    bge x10, 7, t_keep_l0
    set_flag M, MTE1, 0
t_keep_l0:
    add x10, x10, 1
    blt x10, 8, tiles
    set_flag M, V, 0
    wait_flag M, V, 0
    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=64
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    li x1, 0
store:                                     # NZ -> row-major: strip nb is 128 rows of 64 B
    mul x2, x1, 8192
    mul x3, x1, 64
    copy_ub_gm C[x3], ub[x2], nburst=128, len=2, dst_gap=14
    add x1, x1, 1
    blt x1, 8, store
    end
