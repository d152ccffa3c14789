# C = A x B, 128x128 by K = 1024 in fp16 (f32 result), in 8 k-tiles of 128, DOUBLE-buffered:
# two L1 slots and two L0A/L0B slots (ping-pong), so MTE2 loads tile i+1 while MTE1 and the cube
# work on tile i. The loop handles two tiles, one per slot, because event ids are immediates.
# Every flag and barrier is needed (the mutation test deletes each in turn): the guards skip the
# waits of each slot's first tile and the signals of its last.
.kernel matmul_f16_db
.tensor A f16 [128, 1024] in
.tensor B f16 [1024, 128] in
.tensor C f32 [128, 128] out
    li x10, 0                              # i: the tile in slot 0; i+1 goes to slot 1
pairs:
    add x11, x10, 1
    # ---- the k-tile in x10 through slot 0 ----
    beq x10, 0, p_l1_free           # its first use: nothing to wait for
    wait_flag MTE1, MTE2, 0              # MTE1 has finished reading L1 slot 0
p_l1_free:
    mul x2, x10, 256                # A columns [128i, 128i+128): byte offset 128i*2
    mul x3, x10, 32768              # B rows [128i, 128i+128): byte offset 128i*128*2
    copy_gm_l1_nd2nz.f16 l1[0], A[x2], rows=128, cols=128, src_stride=1024, dst_rows=128
    copy_gm_l1_nd2nz.f16 l1[32768], B[x3], rows=128, cols=128, src_stride=128, dst_rows=128
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    beq x10, 0, p_l0_free
    wait_flag M, MTE1, 0                 # the cube has finished reading L0 slot 0
p_l0_free:
    li x1, 0
p_a:                                 # A: fractal (mb, kb) from L1 (kb*8+mb) to L0A (mb*8+kb)
    mul x4, x1, 512
    add x4, x4, 0
    mul x5, x1, 4096
    add x5, x5, 0
    load2d.f16 l0a[x5], l1[x4], repeat=8, src_stride=8
    add x1, x1, 1
    blt x1, 8, p_a
    li x1, 0
p_b:                                 # B: fractal (kb, nb) from L1 (nb*8+kb) to L0B (kb*8+nb), transposed
    mul x4, x1, 512
    add x4, x4, 32768
    mul x5, x1, 4096
    add x5, x5, 0
    load2d.f16 l0b[x5], l1[x4], repeat=8, src_stride=8, transpose
    add x1, x1, 1
    blt x1, 8, p_b
    bge x10, 6, p_keep_l1           # the slot's last tile: nobody waits for it
    set_flag MTE1, MTE2, 0
p_keep_l1:
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    beq x10, 0, p_init
    barrier M                              # accumulate after the previous mmad completed
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=128
    jmp p_issued
p_init:
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=128, init
p_issued:
    bge x10, 6, p_keep_l0
    set_flag M, MTE1, 0
p_keep_l0:
    # ---- the k-tile in x11 through slot 1 ----
    beq x10, 0, q_l1_free           # its first use: nothing to wait for
    wait_flag MTE1, MTE2, 1              # MTE1 has finished reading L1 slot 1
q_l1_free:
    mul x2, x11, 256                # A columns [128i, 128i+128): byte offset 128i*2
    mul x3, x11, 32768              # B rows [128i, 128i+128): byte offset 128i*128*2
    copy_gm_l1_nd2nz.f16 l1[65536], A[x2], rows=128, cols=128, src_stride=1024, dst_rows=128
    copy_gm_l1_nd2nz.f16 l1[98304], B[x3], rows=128, cols=128, src_stride=128, dst_rows=128
    set_flag MTE2, MTE1, 1
    wait_flag MTE2, MTE1, 1
    beq x10, 0, q_l0_free
    wait_flag M, MTE1, 1                 # the cube has finished reading L0 slot 1
q_l0_free:
    li x1, 0
q_a:                                 # A: fractal (mb, kb) from L1 (kb*8+mb) to L0A (mb*8+kb)
    mul x4, x1, 512
    add x4, x4, 65536
    mul x5, x1, 4096
    add x5, x5, 32768
    load2d.f16 l0a[x5], l1[x4], repeat=8, src_stride=8
    add x1, x1, 1
    blt x1, 8, q_a
    li x1, 0
q_b:                                 # B: fractal (kb, nb) from L1 (nb*8+kb) to L0B (kb*8+nb), transposed
    mul x4, x1, 512
    add x4, x4, 98304
    mul x5, x1, 4096
    add x5, x5, 32768
    load2d.f16 l0b[x5], l1[x4], repeat=8, src_stride=8, transpose
    add x1, x1, 1
    blt x1, 8, q_b
    bge x10, 6, q_keep_l1           # the slot's last tile: nobody waits for it
    set_flag MTE1, MTE2, 1
q_keep_l1:
    set_flag MTE1, M, 1
    wait_flag MTE1, M, 1
    barrier M                              # accumulate after the previous mmad completed
    mmad.f16 l0c[0], l0a[32768], l0b[32768], m=128, n=128, k=128
    bge x10, 6, q_keep_l0
    set_flag M, MTE1, 1
q_keep_l0:
    add x10, x10, 2
    blt x10, 8, pairs
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
