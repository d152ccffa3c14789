.kernel C
.tensor A f16 [16, 32] in
.tensor B f16 [32, 32] in
.tensor C f32 [16, 32] out
    block_idx x1
    block_num x2
    li x28, 0
    add x3, x28, 0
    li x28, 0
    add x4, x28, 0
    set_flag MTE1, MTE2, 0
    set_flag MTE1, MTE2, 1
    set_flag MTE1, MTE2, 2
    set_flag MTE1, MTE2, 3
    li x28, 0
    add x5, x28, 0
    set_flag M, MTE1, 0
    set_flag M, MTE1, 1
    li x28, 0
    add x6, x28, 0
    set_flag MTE3, V, 0
    set_flag MTE3, V, 1
    set_flag V, M, 0
    li x28, -1
    bge x28, 0, L0
    li x28, 0
    div x8, x28, 1
    li x28, 0
    rem x9, x28, 1
    mov x28, x8
    add x10, x28, 0
    mov x28, x10
    rem x8, x28, 1
    mov x28, x10
    div x10, x28, 1
    mov x28, x10
    rem x11, x28, 1
    rem x31, x4, 4
    bne x31, 0, L3
    wait_flag MTE1, MTE2, 0
    jmp L2
L3:
    bne x31, 1, L4
    wait_flag MTE1, MTE2, 1
    jmp L2
L4:
    bne x31, 2, L5
    wait_flag MTE1, MTE2, 2
    jmp L2
L5:
    wait_flag MTE1, MTE2, 3
L2:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=32, src_stride=32, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x9, 2048
    mov x29, x31
    mul x31, x8, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L7
    set_flag MTE2, MTE1, 0
    jmp L6
L7:
    bne x31, 1, L8
    set_flag MTE2, MTE1, 1
    jmp L6
L8:
    bne x31, 2, L9
    set_flag MTE2, MTE1, 2
    jmp L6
L9:
    set_flag MTE2, MTE1, 3
L6:
    mov x28, x4
    add x4, x28, 1
    jmp L0
L0:
L1:
    li x28, 0
    bge x28, 0, L10
    li x28, 1
    div x8, x28, 1
    li x28, 1
    rem x9, x28, 1
    mov x28, x8
    add x10, x28, 0
    mov x28, x10
    rem x8, x28, 1
    mov x28, x10
    div x10, x28, 1
    mov x28, x10
    rem x11, x28, 1
    rem x31, x4, 4
    bne x31, 0, L13
    wait_flag MTE1, MTE2, 0
    jmp L12
L13:
    bne x31, 1, L14
    wait_flag MTE1, MTE2, 1
    jmp L12
L14:
    bne x31, 2, L15
    wait_flag MTE1, MTE2, 2
    jmp L12
L15:
    wait_flag MTE1, MTE2, 3
L12:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=32, src_stride=32, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x9, 2048
    mov x29, x31
    mul x31, x8, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L17
    set_flag MTE2, MTE1, 0
    jmp L16
L17:
    bne x31, 1, L18
    set_flag MTE2, MTE1, 1
    jmp L16
L18:
    bne x31, 2, L19
    set_flag MTE2, MTE1, 2
    jmp L16
L19:
    set_flag MTE2, MTE1, 3
L16:
    mov x28, x4
    add x4, x28, 1
    jmp L10
L10:
L11:
    li x28, 1
    bge x28, 0, L20
    li x28, 2
    div x8, x28, 1
    li x28, 2
    rem x9, x28, 1
    mov x28, x8
    add x10, x28, 0
    mov x28, x10
    rem x8, x28, 1
    mov x28, x10
    div x10, x28, 1
    mov x28, x10
    rem x11, x28, 1
    rem x31, x4, 4
    bne x31, 0, L23
    wait_flag MTE1, MTE2, 0
    jmp L22
L23:
    bne x31, 1, L24
    wait_flag MTE1, MTE2, 1
    jmp L22
L24:
    bne x31, 2, L25
    wait_flag MTE1, MTE2, 2
    jmp L22
L25:
    wait_flag MTE1, MTE2, 3
L22:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=32, src_stride=32, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x9, 2048
    mov x29, x31
    mul x31, x8, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L27
    set_flag MTE2, MTE1, 0
    jmp L26
L27:
    bne x31, 1, L28
    set_flag MTE2, MTE1, 1
    jmp L26
L28:
    bne x31, 2, L29
    set_flag MTE2, MTE1, 2
    jmp L26
L29:
    set_flag MTE2, MTE1, 3
L26:
    mov x28, x4
    add x4, x28, 1
    jmp L20
L20:
L21:
    li x8, 0
L30:
    bge x8, 1, L31
    mov x28, x8
    add x9, x28, 0
    mov x28, x9
    rem x10, x28, 1
    mov x28, x9
    div x9, x28, 1
    mov x28, x9
    rem x11, x28, 1
    mov x28, x8
    add x28, x28, 2
    bge x28, 0, L32
    mov x28, x8
    add x28, x28, 3
    div x9, x28, 1
    mov x28, x8
    add x28, x28, 3
    rem x12, x28, 1
    mov x28, x9
    add x13, x28, 0
    mov x28, x13
    rem x9, x28, 1
    mov x28, x13
    div x13, x28, 1
    mov x28, x13
    rem x14, x28, 1
    rem x31, x4, 4
    bne x31, 0, L35
    wait_flag MTE1, MTE2, 0
    jmp L34
L35:
    bne x31, 1, L36
    wait_flag MTE1, MTE2, 1
    jmp L34
L36:
    bne x31, 2, L37
    wait_flag MTE1, MTE2, 2
    jmp L34
L37:
    wait_flag MTE1, MTE2, 3
L34:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x14, 1024
    mov x29, x31
    mul x31, x12, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=32, src_stride=32, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x12, 2048
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L39
    set_flag MTE2, MTE1, 0
    jmp L38
L39:
    bne x31, 1, L40
    set_flag MTE2, MTE1, 1
    jmp L38
L40:
    bne x31, 2, L41
    set_flag MTE2, MTE1, 2
    jmp L38
L41:
    set_flag MTE2, MTE1, 3
L38:
    mov x28, x4
    add x4, x28, 1
    jmp L32
L32:
L33:
    wait_flag V, M, 0
    rem x31, x3, 4
    bne x31, 0, L43
    wait_flag MTE2, MTE1, 0
    jmp L42
L43:
    bne x31, 1, L44
    wait_flag MTE2, MTE1, 1
    jmp L42
L44:
    bne x31, 2, L45
    wait_flag MTE2, MTE1, 2
    jmp L42
L45:
    wait_flag MTE2, MTE1, 3
L42:
    rem x31, x5, 2
    bne x31, 0, L47
    wait_flag M, MTE1, 0
    jmp L46
L47:
    wait_flag M, MTE1, 1
L46:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2
    li x9, 0
L48:
    bge x9, 2, L49
    mul x31, x9, 1024
    mov x28, x31
    rem x31, x5, 2
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x9, 512
    mov x29, x31
    add x29, x29, 4096
    rem x31, x3, 4
    mul x31, x31, 2048
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=2, src_stride=2, transpose
    add x9, x9, 1
    jmp L48
L49:
    rem x31, x5, 2
    bne x31, 0, L51
    set_flag MTE1, M, 0
    jmp L50
L51:
    set_flag MTE1, M, 1
L50:
    rem x31, x5, 2
    bne x31, 0, L53
    wait_flag MTE1, M, 0
    jmp L52
L53:
    wait_flag MTE1, M, 1
L52:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 2048
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=16, n=32, k=32, init
    rem x31, x5, 2
    bne x31, 0, L55
    set_flag M, MTE1, 0
    jmp L54
L55:
    set_flag M, MTE1, 1
L54:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L57
    set_flag MTE1, MTE2, 0
    jmp L56
L57:
    bne x31, 1, L58
    set_flag MTE1, MTE2, 1
    jmp L56
L58:
    bne x31, 2, L59
    set_flag MTE1, MTE2, 2
    jmp L56
L59:
    set_flag MTE1, MTE2, 3
L56:
    mov x28, x3
    add x3, x28, 1
    set_flag M, V, 0
    wait_flag M, V, 0
    rem x31, x6, 2
    bne x31, 0, L61
    wait_flag MTE3, V, 0
    jmp L60
L61:
    wait_flag MTE3, V, 1
L60:
    li x28, 0
    rem x31, x6, 2
    mul x31, x31, 2048
    add x28, x28, x31
    mov_l0c_ub.f32.f32 ub[x28], l0c[0], len=2
    rem x31, x6, 2
    bne x31, 0, L63
    set_flag V, MTE3, 0
    jmp L62
L63:
    set_flag V, MTE3, 1
L62:
    rem x31, x6, 2
    bne x31, 0, L65
    wait_flag V, MTE3, 0
    jmp L64
L65:
    wait_flag V, MTE3, 1
L64:
    li x9, 0
L66:
    bge x9, 2, L67
    mul x31, x11, 2048
    mov x28, x31
    mul x31, x10, 128
    add x28, x28, x31
    mul x31, x9, 64
    add x28, x28, x31
    mul x31, x9, 1024
    mov x29, x31
    rem x31, x6, 2
    mul x31, x31, 2048
    add x29, x29, x31
    copy_ub_gm_pad C[x28], ub[x29], nburst=16, len=64, dst_gap=64
    add x9, x9, 1
    jmp L66
L67:
    rem x31, x6, 2
    bne x31, 0, L69
    set_flag MTE3, V, 0
    jmp L68
L69:
    set_flag MTE3, V, 1
L68:
    mov x28, x6
    add x6, x28, 1
    set_flag V, M, 0
    add x8, x8, 1
    jmp L30
L31:
    wait_flag MTE1, MTE2, 0
    wait_flag MTE1, MTE2, 1
    wait_flag MTE1, MTE2, 2
    wait_flag MTE1, MTE2, 3
    wait_flag M, MTE1, 0
    wait_flag M, MTE1, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    wait_flag V, M, 0
    end
# matmul 16x32x32 f16 -> f32, default schedule, compiled in 39.8 ms
