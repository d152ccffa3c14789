.kernel C
.tensor A s8 [16, 64] in
.tensor B s8 [16, 64] in
.tensor C s32 [16, 16] out
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
    copy_gm_l1_nd2nz.s8 l1[x28], A[x29], rows=16, cols=64, src_stride=64, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.s8 l1[x28], B[x29], rows=16, cols=64, src_stride=64, dst_rows=16
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
    copy_gm_l1_nd2nz.s8 l1[x28], A[x29], rows=16, cols=64, src_stride=64, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.s8 l1[x28], B[x29], rows=16, cols=64, src_stride=64, dst_rows=16
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
    copy_gm_l1_nd2nz.s8 l1[x28], A[x29], rows=16, cols=64, src_stride=64, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 1024
    mov x29, x31
    mul x31, x9, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.s8 l1[x28], B[x29], rows=16, cols=64, src_stride=64, dst_rows=16
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
    copy_gm_l1_nd2nz.s8 l1[x28], A[x29], rows=16, cols=64, src_stride=64, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x9, 1024
    mov x29, x31
    mul x31, x12, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.s8 l1[x28], B[x29], rows=16, cols=64, src_stride=64, dst_rows=16
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
    load2d.s8 l0a[x28], l1[x29], repeat=2
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 4096
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.s8 l0b[x28], l1[x29], repeat=2
    rem x31, x5, 2
    bne x31, 0, L49
    set_flag MTE1, M, 0
    jmp L48
L49:
    set_flag MTE1, M, 1
L48:
    rem x31, x5, 2
    bne x31, 0, L51
    wait_flag MTE1, M, 0
    jmp L50
L51:
    wait_flag MTE1, M, 1
L50:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x29, x29, x31
    mmad.s8 l0c[0], l0a[x28], l0b[x29], m=16, n=16, k=64, init
    rem x31, x5, 2
    bne x31, 0, L53
    set_flag M, MTE1, 0
    jmp L52
L53:
    set_flag M, MTE1, 1
L52:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L55
    set_flag MTE1, MTE2, 0
    jmp L54
L55:
    bne x31, 1, L56
    set_flag MTE1, MTE2, 1
    jmp L54
L56:
    bne x31, 2, L57
    set_flag MTE1, MTE2, 2
    jmp L54
L57:
    set_flag MTE1, MTE2, 3
L54:
    mov x28, x3
    add x3, x28, 1
    set_flag M, V, 0
    wait_flag M, V, 0
    rem x31, x6, 2
    bne x31, 0, L59
    wait_flag MTE3, V, 0
    jmp L58
L59:
    wait_flag MTE3, V, 1
L58:
    li x28, 0
    rem x31, x6, 2
    mul x31, x31, 1024
    add x28, x28, x31
    mov_l0c_ub.s32.s32 ub[x28], l0c[0]
    rem x31, x6, 2
    bne x31, 0, L61
    set_flag V, MTE3, 0
    jmp L60
L61:
    set_flag V, MTE3, 1
L60:
    rem x31, x6, 2
    bne x31, 0, L63
    wait_flag V, MTE3, 0
    jmp L62
L63:
    wait_flag V, MTE3, 1
L62:
    mul x31, x11, 1024
    mov x28, x31
    mul x31, x10, 64
    add x28, x28, x31
    li x29, 0
    rem x31, x6, 2
    mul x31, x31, 1024
    add x29, x29, x31
    copy_ub_gm_pad C[x28], ub[x29], nburst=16, len=64
    rem x31, x6, 2
    bne x31, 0, L65
    set_flag MTE3, V, 0
    jmp L64
L65:
    set_flag MTE3, V, 1
L64:
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
# matmul 16x16x64 s8 -> s32, B transposed, default schedule, compiled in 51.6 ms
