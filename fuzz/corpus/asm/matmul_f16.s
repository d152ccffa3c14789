# C = A x B for 128x128 fp16 matrices with an f32 result, on one AI core.
# The whole problem fits every buffer at once, so the program is a straight pipeline:
#   GM --MTE2 nd2nz--> L1 (NZ) --MTE1 load2d--> L0A (zZ) / L0B (zN) --M mmad--> L0C (NZ)
#      --V mov_l0c_ub--> UB (NZ) --MTE3 strided bursts--> GM (row-major)
# Each hand-over between pipes is a set_flag/wait_flag pair; nothing else orders them.
.kernel matmul_f16
.tensor A f16 [128, 128] in
.tensor B f16 [128, 128] in
.tensor C f32 [128, 128] out

    # A and B into L1 as NZ fractals: 8 column blocks of 128 rows x 16 halves (32 KiB each).
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=128, cols=128, src_stride=128, dst_rows=128
    copy_gm_l1_nd2nz.f16 l1[32768], B[0], rows=128, cols=128, src_stride=128, dst_rows=128
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0

    # L0A wants A's fractal (mb, kb) at (mb*8 + kb)*512; in L1 it sits at (kb*8 + mb)*512.
    # One load2d per row of fractals: 8 fractals, 8 apart in L1.
    li x1, 0                     # mb
a_rows:
    mul x2, x1, 512              # L1 offset of fractal (mb, 0)
    mul x3, x1, 4096             # L0A offset of fractal (mb, 0)
    load2d.f16 l0a[x3], l1[x2], repeat=8, src_stride=8
    add x1, x1, 1
    blt x1, 8, a_rows

    # L0B wants B's fractal (kb, nb) at (kb*8 + nb)*512, transposed inside (zN); in L1 it sits
    # at (nb*8 + kb)*512.
    li x1, 0                     # kb
b_rows:
    mul x2, x1, 512
    add x2, x2, 32768
    mul x3, x1, 4096
    load2d.f16 l0b[x3], l1[x2], repeat=8, src_stride=8, transpose
    add x1, x1, 1
    blt x1, 8, b_rows
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0

    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=128, init
    set_flag M, V, 0
    wait_flag M, V, 0

    # 64 accumulator fractals to UB, unchanged (f32, NZ).
    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=64
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0

    # NZ -> row-major on the way out: column strip nb is 128 rows of 16 floats (64 B) in UB;
    # in C each such row piece starts 512 B after the previous one (14 blocks of gap).
    li x1, 0                     # nb
c_strips:
    mul x2, x1, 8192             # UB offset of strip nb
    mul x3, x1, 64               # C offset of column nb*16
    copy_ub_gm C[x3], ub[x2], nburst=128, len=2, dst_gap=14
    add x1, x1, 1
    blt x1, 8, c_strips
    end
