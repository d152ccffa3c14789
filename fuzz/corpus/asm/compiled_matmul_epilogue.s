.kernel D
.tensor A f16 [2, 32, 32] in
.tensor B f16 [2, 32, 48] in
.tensor bias f32 [48] in
.tensor D f16 [2, 32, 48] out
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
    set_flag V, MTE2, 0
    set_flag V, MTE2, 1
    li x28, 0
    add x7, x28, 0
    set_flag MTE3, V, 0
    set_flag MTE3, V, 1
    set_flag V, M, 0
    vdup.f32 ub[12672], 0.0, repeat=24
    barrier V
    li x28, -2
    bge x28, 0, L0
    li x28, 0
    div x9, x28, 1
    li x28, 0
    rem x10, x28, 1
    mov x28, x9
    rem x11, x28, 2
    mov x28, x11
    rem x9, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x12, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x13, x28, 2
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
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x13, 2048
    mov x29, x31
    mul x31, x12, 2048
    add x29, x29, x31
    mul x31, x10, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    li x28, 8192
    rem x31, x4, 4
    mul x31, x31, 3072
    add x28, x28, x31
    mul x31, x13, 3072
    mov x29, x31
    mul x31, x10, 3072
    add x29, x29, x31
    mul x31, x9, 96
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=48, src_stride=48, dst_rows=32
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
    li x28, -1
    bge x28, 0, L10
    li x28, 1
    div x9, x28, 1
    li x28, 1
    rem x10, x28, 1
    mov x28, x9
    rem x11, x28, 2
    mov x28, x11
    rem x9, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x12, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x13, x28, 2
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
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x13, 2048
    mov x29, x31
    mul x31, x12, 2048
    add x29, x29, x31
    mul x31, x10, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    li x28, 8192
    rem x31, x4, 4
    mul x31, x31, 3072
    add x28, x28, x31
    mul x31, x13, 3072
    mov x29, x31
    mul x31, x10, 3072
    add x29, x29, x31
    mul x31, x9, 96
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=48, src_stride=48, dst_rows=32
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
    li x28, 0
    bge x28, 0, L20
    li x28, 2
    div x9, x28, 1
    li x28, 2
    rem x10, x28, 1
    mov x28, x9
    rem x11, x28, 2
    mov x28, x11
    rem x9, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x12, x28, 1
    mov x28, x11
    div x11, x28, 1
    mov x28, x11
    rem x13, x28, 2
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
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x13, 2048
    mov x29, x31
    mul x31, x12, 2048
    add x29, x29, x31
    mul x31, x10, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    li x28, 8192
    rem x31, x4, 4
    mul x31, x31, 3072
    add x28, x28, x31
    mul x31, x13, 3072
    mov x29, x31
    mul x31, x10, 3072
    add x29, x29, x31
    mul x31, x9, 96
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=48, src_stride=48, dst_rows=32
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
    li x9, 0
L30:
    bge x9, 2, L31
    mov x28, x9
    rem x10, x28, 2
    mov x28, x10
    rem x11, x28, 1
    mov x28, x10
    div x10, x28, 1
    mov x28, x10
    rem x12, x28, 1
    mov x28, x10
    div x10, x28, 1
    mov x28, x10
    rem x13, x28, 2
    mov x28, x9
    add x28, x28, 1
    bge x28, 0, L32
    mov x28, x9
    add x28, x28, 3
    div x10, x28, 1
    mov x28, x9
    add x28, x28, 3
    rem x14, x28, 1
    mov x28, x10
    rem x15, x28, 2
    mov x28, x15
    rem x10, x28, 1
    mov x28, x15
    div x15, x28, 1
    mov x28, x15
    rem x16, x28, 1
    mov x28, x15
    div x15, x28, 1
    mov x28, x15
    rem x17, x28, 2
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
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x17, 2048
    mov x29, x31
    mul x31, x16, 2048
    add x29, x29, x31
    mul x31, x14, 64
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=32, cols=32, src_stride=32, dst_rows=32
    li x28, 8192
    rem x31, x4, 4
    mul x31, x31, 3072
    add x28, x28, x31
    mul x31, x17, 3072
    mov x29, x31
    mul x31, x14, 3072
    add x29, x29, x31
    mul x31, x10, 96
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=32, cols=48, src_stride=48, dst_rows=32
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
    li x10, 0
L48:
    bge x10, 2, L49
    mul x31, x10, 1024
    mov x28, x31
    rem x31, x5, 2
    mul x31, x31, 2048
    add x28, x28, x31
    mul x31, x10, 512
    mov x29, x31
    rem x31, x3, 4
    mul x31, x31, 2048
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2, src_stride=2
    add x10, x10, 1
    jmp L48
L49:
    li x10, 0
L50:
    bge x10, 2, L51
    mul x31, x10, 1536
    mov x28, x31
    rem x31, x5, 2
    mul x31, x31, 3072
    add x28, x28, x31
    mul x31, x10, 512
    mov x29, x31
    add x29, x29, 8192
    rem x31, x3, 4
    mul x31, x31, 3072
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=3, src_stride=2, transpose
    add x10, x10, 1
    jmp L50
L51:
    rem x31, x5, 2
    bne x31, 0, L53
    set_flag MTE1, M, 0
    jmp L52
L53:
    set_flag MTE1, M, 1
L52:
    rem x31, x5, 2
    bne x31, 0, L55
    wait_flag MTE1, M, 0
    jmp L54
L55:
    wait_flag MTE1, M, 1
L54:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 2048
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 3072
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=32, n=48, k=32, init
    rem x31, x5, 2
    bne x31, 0, L57
    set_flag M, MTE1, 0
    jmp L56
L57:
    set_flag M, MTE1, 1
L56:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L59
    set_flag MTE1, MTE2, 0
    jmp L58
L59:
    bne x31, 1, L60
    set_flag MTE1, MTE2, 1
    jmp L58
L60:
    bne x31, 2, L61
    set_flag MTE1, MTE2, 2
    jmp L58
L61:
    set_flag MTE1, MTE2, 3
L58:
    mov x28, x3
    add x3, x28, 1
    set_flag M, V, 0
    wait_flag M, V, 0
    rem x31, x7, 2
    bne x31, 0, L63
    wait_flag MTE3, V, 0
    jmp L62
L63:
    wait_flag MTE3, V, 1
L62:
    rem x31, x6, 2
    bne x31, 0, L65
    wait_flag V, MTE2, 0
    jmp L64
L65:
    wait_flag V, MTE2, 1
L64:
    li x28, 12288
    rem x31, x6, 2
    mul x31, x31, 192
    add x28, x28, x31
    mul x31, x11, 192
    mov x29, x31
    copy_gm_ub_pad ub[x28], bias[x29], len=192
    rem x31, x6, 2
    bne x31, 0, L67
    set_flag MTE2, V, 0
    jmp L66
L67:
    set_flag MTE2, V, 1
L66:
    mov_l0c_ub.f32.f32 ub[6144], l0c[0], len=6
    rem x31, x6, 2
    bne x31, 0, L69
    wait_flag MTE2, V, 0
    jmp L68
L69:
    wait_flag MTE2, V, 1
L68:
    barrier V
    li x10, 0
L70:
    bge x10, 3, L71
    mul x31, x10, 2048
    mov x28, x31
    add x28, x28, 12672
    mul x31, x10, 2048
    mov x29, x31
    add x29, x29, 6144
    mul x31, x10, 64
    mov x30, x31
    add x30, x30, 12288
    rem x31, x6, 2
    mul x31, x31, 192
    add x30, x30, x31
    vadd.f32 ub[x28], ub[x29], ub[x30], repeat=4, dst_blk=2, src0_blk=2, src1_blk=0, dst_rep=16, src0_rep=16, src1_rep=0
    mul x31, x10, 2048
    mov x28, x31
    add x28, x28, 12704
    mul x31, x10, 2048
    mov x29, x31
    add x29, x29, 6176
    mul x31, x10, 64
    mov x30, x31
    add x30, x30, 12320
    rem x31, x6, 2
    mul x31, x31, 192
    add x30, x30, x31
    vadd.f32 ub[x28], ub[x29], ub[x30], repeat=4, dst_blk=2, src0_blk=2, src1_blk=0, dst_rep=16, src0_rep=16, src1_rep=0
    add x10, x10, 1
    jmp L70
L71:
    rem x31, x6, 2
    bne x31, 0, L73
    set_flag V, MTE2, 0
    jmp L72
L73:
    set_flag V, MTE2, 1
L72:
    barrier V
    vmaxs.f32 ub[12672], ub[12672], 0.0, repeat=24
    barrier V
    li x28, 0
    rem x31, x7, 2
    mul x31, x31, 3072
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[12672], repeat=24, dst_rep=4
    mov x28, x6
    add x6, x28, 1
    rem x31, x7, 2
    bne x31, 0, L75
    set_flag V, MTE3, 0
    jmp L74
L75:
    set_flag V, MTE3, 1
L74:
    rem x31, x7, 2
    bne x31, 0, L77
    wait_flag V, MTE3, 0
    jmp L76
L77:
    wait_flag V, MTE3, 1
L76:
    li x10, 0
L78:
    bge x10, 3, L79
    mul x31, x13, 3072
    mov x28, x31
    mul x31, x12, 3072
    add x28, x28, x31
    mul x31, x11, 96
    add x28, x28, x31
    mul x31, x10, 32
    add x28, x28, x31
    mul x31, x10, 1024
    mov x29, x31
    rem x31, x7, 2
    mul x31, x31, 3072
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=32, len=32, dst_gap=64
    add x10, x10, 1
    jmp L78
L79:
    rem x31, x7, 2
    bne x31, 0, L81
    set_flag MTE3, V, 0
    jmp L80
L81:
    set_flag MTE3, V, 1
L80:
    mov x28, x7
    add x7, x28, 1
    set_flag V, M, 0
    add x9, x9, 1
    jmp L30
L31:
    wait_flag MTE1, MTE2, 0
    wait_flag MTE1, MTE2, 1
    wait_flag MTE1, MTE2, 2
    wait_flag MTE1, MTE2, 3
    wait_flag M, MTE1, 0
    wait_flag M, MTE1, 1
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    wait_flag V, M, 0
    end
# matmul 2 x 32x48x32 f16 -> f16, epilogue bias,relu, default schedule, compiled in 59.6 ms
