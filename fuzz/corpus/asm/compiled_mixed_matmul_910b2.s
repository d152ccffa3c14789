#! --chip ascend910b2
.kernel D
.block_dim 4
.tensor A f16 [20, 20] in
.tensor B f16 [20, 24] in
.tensor bias f32 [24] in
.tensor D f32 [20, 24] out
.tensor D_workspace f32 [4, 2, 16, 16] workspace
.entry aic cube
.entry aiv vec
cube:
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
    set_flag FIX, M, 0
    mul x31, x1, -1
    mov x28, x31
    add x28, x28, 3
    div x6, x28, 4
    mul x31, x6, -1
    mov x28, x31
    add x28, x28, -1
    bge x28, 0, L0
    li x28, 0
    div x7, x28, 1
    li x28, 0
    rem x8, x28, 1
    mov x28, x1
    mul x31, x7, 4
    add x28, x28, x31
    add x9, x28, 0
    mov x28, x9
    add x7, x28, 0
    mov x28, x7
    rem x9, x28, 2
    mov x28, x7
    div x7, x28, 2
    mov x28, x7
    rem x10, x28, 2
    mov x28, x10
    bne x28, 1, L2
    mov x28, x9
    bne x28, 1, L4
    rem x31, x4, 4
    bne x31, 0, L7
    wait_flag MTE1, MTE2, 0
    jmp L6
L7:
    bne x31, 1, L8
    wait_flag MTE1, MTE2, 1
    jmp L6
L8:
    bne x31, 2, L9
    wait_flag MTE1, MTE2, 2
    jmp L6
L9:
    wait_flag MTE1, MTE2, 3
L6:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L11
    set_flag MTE2, MTE1, 0
    jmp L10
L11:
    bne x31, 1, L12
    set_flag MTE2, MTE1, 1
    jmp L10
L12:
    bne x31, 2, L13
    set_flag MTE2, MTE1, 2
    jmp L10
L13:
    set_flag MTE2, MTE1, 3
L10:
    mov x28, x4
    add x4, x28, 1
    jmp L5
L4:
    rem x31, x4, 4
    bne x31, 0, L15
    wait_flag MTE1, MTE2, 0
    jmp L14
L15:
    bne x31, 1, L16
    wait_flag MTE1, MTE2, 1
    jmp L14
L16:
    bne x31, 2, L17
    wait_flag MTE1, MTE2, 2
    jmp L14
L17:
    wait_flag MTE1, MTE2, 3
L14:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L19
    set_flag MTE2, MTE1, 0
    jmp L18
L19:
    bne x31, 1, L20
    set_flag MTE2, MTE1, 1
    jmp L18
L20:
    bne x31, 2, L21
    set_flag MTE2, MTE1, 2
    jmp L18
L21:
    set_flag MTE2, MTE1, 3
L18:
    mov x28, x4
    add x4, x28, 1
L5:
    jmp L23
L2:
    mov x28, x9
    bne x28, 1, L22
    rem x31, x4, 4
    bne x31, 0, L25
    wait_flag MTE1, MTE2, 0
    jmp L24
L25:
    bne x31, 1, L26
    wait_flag MTE1, MTE2, 1
    jmp L24
L26:
    bne x31, 2, L27
    wait_flag MTE1, MTE2, 2
    jmp L24
L27:
    wait_flag MTE1, MTE2, 3
L24:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L29
    set_flag MTE2, MTE1, 0
    jmp L28
L29:
    bne x31, 1, L30
    set_flag MTE2, MTE1, 1
    jmp L28
L30:
    bne x31, 2, L31
    set_flag MTE2, MTE1, 2
    jmp L28
L31:
    set_flag MTE2, MTE1, 3
L28:
    mov x28, x4
    add x4, x28, 1
    jmp L23
L22:
    rem x31, x4, 4
    bne x31, 0, L33
    wait_flag MTE1, MTE2, 0
    jmp L32
L33:
    bne x31, 1, L34
    wait_flag MTE1, MTE2, 1
    jmp L32
L34:
    bne x31, 2, L35
    wait_flag MTE1, MTE2, 2
    jmp L32
L35:
    wait_flag MTE1, MTE2, 3
L32:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L37
    set_flag MTE2, MTE1, 0
    jmp L36
L37:
    bne x31, 1, L38
    set_flag MTE2, MTE1, 1
    jmp L36
L38:
    bne x31, 2, L39
    set_flag MTE2, MTE1, 2
    jmp L36
L39:
    set_flag MTE2, MTE1, 3
L36:
    mov x28, x4
    add x4, x28, 1
L23:
L3:
    jmp L0
L0:
L1:
    mul x31, x6, -1
    mov x28, x31
    bge x28, 0, L40
    li x28, 1
    div x7, x28, 1
    li x28, 1
    rem x8, x28, 1
    mov x28, x1
    mul x31, x7, 4
    add x28, x28, x31
    add x9, x28, 0
    mov x28, x9
    add x7, x28, 0
    mov x28, x7
    rem x9, x28, 2
    mov x28, x7
    div x7, x28, 2
    mov x28, x7
    rem x10, x28, 2
    mov x28, x10
    bne x28, 1, L42
    mov x28, x9
    bne x28, 1, L44
    rem x31, x4, 4
    bne x31, 0, L47
    wait_flag MTE1, MTE2, 0
    jmp L46
L47:
    bne x31, 1, L48
    wait_flag MTE1, MTE2, 1
    jmp L46
L48:
    bne x31, 2, L49
    wait_flag MTE1, MTE2, 2
    jmp L46
L49:
    wait_flag MTE1, MTE2, 3
L46:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L51
    set_flag MTE2, MTE1, 0
    jmp L50
L51:
    bne x31, 1, L52
    set_flag MTE2, MTE1, 1
    jmp L50
L52:
    bne x31, 2, L53
    set_flag MTE2, MTE1, 2
    jmp L50
L53:
    set_flag MTE2, MTE1, 3
L50:
    mov x28, x4
    add x4, x28, 1
    jmp L45
L44:
    rem x31, x4, 4
    bne x31, 0, L55
    wait_flag MTE1, MTE2, 0
    jmp L54
L55:
    bne x31, 1, L56
    wait_flag MTE1, MTE2, 1
    jmp L54
L56:
    bne x31, 2, L57
    wait_flag MTE1, MTE2, 2
    jmp L54
L57:
    wait_flag MTE1, MTE2, 3
L54:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L59
    set_flag MTE2, MTE1, 0
    jmp L58
L59:
    bne x31, 1, L60
    set_flag MTE2, MTE1, 1
    jmp L58
L60:
    bne x31, 2, L61
    set_flag MTE2, MTE1, 2
    jmp L58
L61:
    set_flag MTE2, MTE1, 3
L58:
    mov x28, x4
    add x4, x28, 1
L45:
    jmp L63
L42:
    mov x28, x9
    bne x28, 1, L62
    rem x31, x4, 4
    bne x31, 0, L65
    wait_flag MTE1, MTE2, 0
    jmp L64
L65:
    bne x31, 1, L66
    wait_flag MTE1, MTE2, 1
    jmp L64
L66:
    bne x31, 2, L67
    wait_flag MTE1, MTE2, 2
    jmp L64
L67:
    wait_flag MTE1, MTE2, 3
L64:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L69
    set_flag MTE2, MTE1, 0
    jmp L68
L69:
    bne x31, 1, L70
    set_flag MTE2, MTE1, 1
    jmp L68
L70:
    bne x31, 2, L71
    set_flag MTE2, MTE1, 2
    jmp L68
L71:
    set_flag MTE2, MTE1, 3
L68:
    mov x28, x4
    add x4, x28, 1
    jmp L63
L62:
    rem x31, x4, 4
    bne x31, 0, L73
    wait_flag MTE1, MTE2, 0
    jmp L72
L73:
    bne x31, 1, L74
    wait_flag MTE1, MTE2, 1
    jmp L72
L74:
    bne x31, 2, L75
    wait_flag MTE1, MTE2, 2
    jmp L72
L75:
    wait_flag MTE1, MTE2, 3
L72:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L77
    set_flag MTE2, MTE1, 0
    jmp L76
L77:
    bne x31, 1, L78
    set_flag MTE2, MTE1, 1
    jmp L76
L78:
    bne x31, 2, L79
    set_flag MTE2, MTE1, 2
    jmp L76
L79:
    set_flag MTE2, MTE1, 3
L76:
    mov x28, x4
    add x4, x28, 1
L63:
L43:
    jmp L40
L40:
L41:
    mul x31, x6, -1
    mov x28, x31
    add x28, x28, 1
    bge x28, 0, L80
    li x28, 2
    div x7, x28, 1
    li x28, 2
    rem x8, x28, 1
    mov x28, x1
    mul x31, x7, 4
    add x28, x28, x31
    add x9, x28, 0
    mov x28, x9
    add x7, x28, 0
    mov x28, x7
    rem x9, x28, 2
    mov x28, x7
    div x7, x28, 2
    mov x28, x7
    rem x10, x28, 2
    mov x28, x10
    bne x28, 1, L82
    mov x28, x9
    bne x28, 1, L84
    rem x31, x4, 4
    bne x31, 0, L87
    wait_flag MTE1, MTE2, 0
    jmp L86
L87:
    bne x31, 1, L88
    wait_flag MTE1, MTE2, 1
    jmp L86
L88:
    bne x31, 2, L89
    wait_flag MTE1, MTE2, 2
    jmp L86
L89:
    wait_flag MTE1, MTE2, 3
L86:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L91
    set_flag MTE2, MTE1, 0
    jmp L90
L91:
    bne x31, 1, L92
    set_flag MTE2, MTE1, 1
    jmp L90
L92:
    bne x31, 2, L93
    set_flag MTE2, MTE1, 2
    jmp L90
L93:
    set_flag MTE2, MTE1, 3
L90:
    mov x28, x4
    add x4, x28, 1
    jmp L85
L84:
    rem x31, x4, 4
    bne x31, 0, L95
    wait_flag MTE1, MTE2, 0
    jmp L94
L95:
    bne x31, 1, L96
    wait_flag MTE1, MTE2, 1
    jmp L94
L96:
    bne x31, 2, L97
    wait_flag MTE1, MTE2, 2
    jmp L94
L97:
    wait_flag MTE1, MTE2, 3
L94:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L99
    set_flag MTE2, MTE1, 0
    jmp L98
L99:
    bne x31, 1, L100
    set_flag MTE2, MTE1, 1
    jmp L98
L100:
    bne x31, 2, L101
    set_flag MTE2, MTE1, 2
    jmp L98
L101:
    set_flag MTE2, MTE1, 3
L98:
    mov x28, x4
    add x4, x28, 1
L85:
    jmp L103
L82:
    mov x28, x9
    bne x28, 1, L102
    rem x31, x4, 4
    bne x31, 0, L105
    wait_flag MTE1, MTE2, 0
    jmp L104
L105:
    bne x31, 1, L106
    wait_flag MTE1, MTE2, 1
    jmp L104
L106:
    bne x31, 2, L107
    wait_flag MTE1, MTE2, 2
    jmp L104
L107:
    wait_flag MTE1, MTE2, 3
L104:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L109
    set_flag MTE2, MTE1, 0
    jmp L108
L109:
    bne x31, 1, L110
    set_flag MTE2, MTE1, 1
    jmp L108
L110:
    bne x31, 2, L111
    set_flag MTE2, MTE1, 2
    jmp L108
L111:
    set_flag MTE2, MTE1, 3
L108:
    mov x28, x4
    add x4, x28, 1
    jmp L103
L102:
    rem x31, x4, 4
    bne x31, 0, L113
    wait_flag MTE1, MTE2, 0
    jmp L112
L113:
    bne x31, 1, L114
    wait_flag MTE1, MTE2, 1
    jmp L112
L114:
    bne x31, 2, L115
    wait_flag MTE1, MTE2, 2
    jmp L112
L115:
    wait_flag MTE1, MTE2, 3
L112:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x10, 640
    mov x29, x31
    mul x31, x8, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x8, 960
    mov x29, x31
    mul x31, x9, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L117
    set_flag MTE2, MTE1, 0
    jmp L116
L117:
    bne x31, 1, L118
    set_flag MTE2, MTE1, 1
    jmp L116
L118:
    bne x31, 2, L119
    set_flag MTE2, MTE1, 2
    jmp L116
L119:
    set_flag MTE2, MTE1, 3
L116:
    mov x28, x4
    add x4, x28, 1
L103:
L83:
    jmp L80
L80:
L81:
    li x7, 0
L120:
    mov x28, x6
    add x28, x28, 1
    bge x7, x28, L121
    mov x28, x1
    mul x31, x7, 4
    add x28, x28, x31
    add x8, x28, 0
    mov x28, x8
    add x9, x28, 0
    mov x28, x9
    rem x8, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x10, x28, 2
    mov x28, x10
    bne x28, 1, L122
    mov x28, x8
    bne x28, 1, L124
    mov x28, x7
    mul x31, x6, -1
    add x28, x28, x31
    add x28, x28, 2
    bge x28, 0, L126
    mov x28, x7
    add x28, x28, 3
    div x9, x28, 1
    mov x28, x7
    add x28, x28, 3
    rem x11, x28, 1
    mov x28, x1
    mul x31, x9, 4
    add x28, x28, x31
    add x12, x28, 0
    mov x28, x12
    add x9, x28, 0
    mov x28, x9
    rem x12, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x13, x28, 2
    mov x28, x13
    bne x28, 1, L128
    mov x28, x12
    bne x28, 1, L130
    rem x31, x4, 4
    bne x31, 0, L133
    wait_flag MTE1, MTE2, 0
    jmp L132
L133:
    bne x31, 1, L134
    wait_flag MTE1, MTE2, 1
    jmp L132
L134:
    bne x31, 2, L135
    wait_flag MTE1, MTE2, 2
    jmp L132
L135:
    wait_flag MTE1, MTE2, 3
L132:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L137
    set_flag MTE2, MTE1, 0
    jmp L136
L137:
    bne x31, 1, L138
    set_flag MTE2, MTE1, 1
    jmp L136
L138:
    bne x31, 2, L139
    set_flag MTE2, MTE1, 2
    jmp L136
L139:
    set_flag MTE2, MTE1, 3
L136:
    mov x28, x4
    add x4, x28, 1
    jmp L131
L130:
    rem x31, x4, 4
    bne x31, 0, L141
    wait_flag MTE1, MTE2, 0
    jmp L140
L141:
    bne x31, 1, L142
    wait_flag MTE1, MTE2, 1
    jmp L140
L142:
    bne x31, 2, L143
    wait_flag MTE1, MTE2, 2
    jmp L140
L143:
    wait_flag MTE1, MTE2, 3
L140:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L145
    set_flag MTE2, MTE1, 0
    jmp L144
L145:
    bne x31, 1, L146
    set_flag MTE2, MTE1, 1
    jmp L144
L146:
    bne x31, 2, L147
    set_flag MTE2, MTE1, 2
    jmp L144
L147:
    set_flag MTE2, MTE1, 3
L144:
    mov x28, x4
    add x4, x28, 1
L131:
    jmp L149
L128:
    mov x28, x12
    bne x28, 1, L148
    rem x31, x4, 4
    bne x31, 0, L151
    wait_flag MTE1, MTE2, 0
    jmp L150
L151:
    bne x31, 1, L152
    wait_flag MTE1, MTE2, 1
    jmp L150
L152:
    bne x31, 2, L153
    wait_flag MTE1, MTE2, 2
    jmp L150
L153:
    wait_flag MTE1, MTE2, 3
L150:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L155
    set_flag MTE2, MTE1, 0
    jmp L154
L155:
    bne x31, 1, L156
    set_flag MTE2, MTE1, 1
    jmp L154
L156:
    bne x31, 2, L157
    set_flag MTE2, MTE1, 2
    jmp L154
L157:
    set_flag MTE2, MTE1, 3
L154:
    mov x28, x4
    add x4, x28, 1
    jmp L149
L148:
    rem x31, x4, 4
    bne x31, 0, L159
    wait_flag MTE1, MTE2, 0
    jmp L158
L159:
    bne x31, 1, L160
    wait_flag MTE1, MTE2, 1
    jmp L158
L160:
    bne x31, 2, L161
    wait_flag MTE1, MTE2, 2
    jmp L158
L161:
    wait_flag MTE1, MTE2, 3
L158:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L163
    set_flag MTE2, MTE1, 0
    jmp L162
L163:
    bne x31, 1, L164
    set_flag MTE2, MTE1, 1
    jmp L162
L164:
    bne x31, 2, L165
    set_flag MTE2, MTE1, 2
    jmp L162
L165:
    set_flag MTE2, MTE1, 3
L162:
    mov x28, x4
    add x4, x28, 1
L149:
L129:
    jmp L126
L126:
L127:
    wait_flag FIX, M, 0
    rem x31, x3, 4
    bne x31, 0, L167
    wait_flag MTE2, MTE1, 0
    jmp L166
L167:
    bne x31, 1, L168
    wait_flag MTE2, MTE1, 1
    jmp L166
L168:
    bne x31, 2, L169
    wait_flag MTE2, MTE1, 2
    jmp L166
L169:
    wait_flag MTE2, MTE1, 3
L166:
    rem x31, x5, 2
    bne x31, 0, L171
    wait_flag M, MTE1, 0
    jmp L170
L171:
    wait_flag M, MTE1, 1
L170:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 4096
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=2, transpose
    rem x31, x5, 2
    bne x31, 0, L173
    set_flag MTE1, M, 0
    jmp L172
L173:
    set_flag MTE1, M, 1
L172:
    rem x31, x5, 2
    bne x31, 0, L175
    wait_flag MTE1, M, 0
    jmp L174
L175:
    wait_flag MTE1, M, 1
L174:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=4, n=8, k=20, init
    rem x31, x5, 2
    bne x31, 0, L177
    set_flag M, MTE1, 0
    jmp L176
L177:
    set_flag M, MTE1, 1
L176:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L179
    set_flag MTE1, MTE2, 0
    jmp L178
L179:
    bne x31, 1, L180
    set_flag MTE1, MTE2, 1
    jmp L178
L180:
    bne x31, 2, L181
    set_flag MTE1, MTE2, 2
    jmp L178
L181:
    set_flag MTE1, MTE2, 3
L178:
    mov x28, x3
    add x3, x28, 1
    set_flag M, FIX, 0
    mov x28, x7
    rem x9, x28, 2
    wait_cross FIX, id=1
    wait_flag M, FIX, 0
    mul x31, x1, 2048
    mov x28, x31
    mul x31, x9, 1024
    add x28, x28, x31
    fixpipe.f32.f32 D_workspace[x28], l0c[0], m=4, n=16, src_stride=16, dst_stride=16
    set_flag FIX, M, 0
    set_cross FIX, mode=2, id=0
    jmp L125
L124:
    mov x28, x7
    mul x31, x6, -1
    add x28, x28, x31
    add x28, x28, 2
    bge x28, 0, L182
    mov x28, x7
    add x28, x28, 3
    div x9, x28, 1
    mov x28, x7
    add x28, x28, 3
    rem x11, x28, 1
    mov x28, x1
    mul x31, x9, 4
    add x28, x28, x31
    add x12, x28, 0
    mov x28, x12
    add x9, x28, 0
    mov x28, x9
    rem x12, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x13, x28, 2
    mov x28, x13
    bne x28, 1, L184
    mov x28, x12
    bne x28, 1, L186
    rem x31, x4, 4
    bne x31, 0, L189
    wait_flag MTE1, MTE2, 0
    jmp L188
L189:
    bne x31, 1, L190
    wait_flag MTE1, MTE2, 1
    jmp L188
L190:
    bne x31, 2, L191
    wait_flag MTE1, MTE2, 2
    jmp L188
L191:
    wait_flag MTE1, MTE2, 3
L188:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L193
    set_flag MTE2, MTE1, 0
    jmp L192
L193:
    bne x31, 1, L194
    set_flag MTE2, MTE1, 1
    jmp L192
L194:
    bne x31, 2, L195
    set_flag MTE2, MTE1, 2
    jmp L192
L195:
    set_flag MTE2, MTE1, 3
L192:
    mov x28, x4
    add x4, x28, 1
    jmp L187
L186:
    rem x31, x4, 4
    bne x31, 0, L197
    wait_flag MTE1, MTE2, 0
    jmp L196
L197:
    bne x31, 1, L198
    wait_flag MTE1, MTE2, 1
    jmp L196
L198:
    bne x31, 2, L199
    wait_flag MTE1, MTE2, 2
    jmp L196
L199:
    wait_flag MTE1, MTE2, 3
L196:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L201
    set_flag MTE2, MTE1, 0
    jmp L200
L201:
    bne x31, 1, L202
    set_flag MTE2, MTE1, 1
    jmp L200
L202:
    bne x31, 2, L203
    set_flag MTE2, MTE1, 2
    jmp L200
L203:
    set_flag MTE2, MTE1, 3
L200:
    mov x28, x4
    add x4, x28, 1
L187:
    jmp L205
L184:
    mov x28, x12
    bne x28, 1, L204
    rem x31, x4, 4
    bne x31, 0, L207
    wait_flag MTE1, MTE2, 0
    jmp L206
L207:
    bne x31, 1, L208
    wait_flag MTE1, MTE2, 1
    jmp L206
L208:
    bne x31, 2, L209
    wait_flag MTE1, MTE2, 2
    jmp L206
L209:
    wait_flag MTE1, MTE2, 3
L206:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L211
    set_flag MTE2, MTE1, 0
    jmp L210
L211:
    bne x31, 1, L212
    set_flag MTE2, MTE1, 1
    jmp L210
L212:
    bne x31, 2, L213
    set_flag MTE2, MTE1, 2
    jmp L210
L213:
    set_flag MTE2, MTE1, 3
L210:
    mov x28, x4
    add x4, x28, 1
    jmp L205
L204:
    rem x31, x4, 4
    bne x31, 0, L215
    wait_flag MTE1, MTE2, 0
    jmp L214
L215:
    bne x31, 1, L216
    wait_flag MTE1, MTE2, 1
    jmp L214
L216:
    bne x31, 2, L217
    wait_flag MTE1, MTE2, 2
    jmp L214
L217:
    wait_flag MTE1, MTE2, 3
L214:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L219
    set_flag MTE2, MTE1, 0
    jmp L218
L219:
    bne x31, 1, L220
    set_flag MTE2, MTE1, 1
    jmp L218
L220:
    bne x31, 2, L221
    set_flag MTE2, MTE1, 2
    jmp L218
L221:
    set_flag MTE2, MTE1, 3
L218:
    mov x28, x4
    add x4, x28, 1
L205:
L185:
    jmp L182
L182:
L183:
    wait_flag FIX, M, 0
    rem x31, x3, 4
    bne x31, 0, L223
    wait_flag MTE2, MTE1, 0
    jmp L222
L223:
    bne x31, 1, L224
    wait_flag MTE2, MTE1, 1
    jmp L222
L224:
    bne x31, 2, L225
    wait_flag MTE2, MTE1, 2
    jmp L222
L225:
    wait_flag MTE2, MTE1, 3
L222:
    rem x31, x5, 2
    bne x31, 0, L227
    wait_flag M, MTE1, 0
    jmp L226
L227:
    wait_flag M, MTE1, 1
L226:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 4096
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=2, transpose
    rem x31, x5, 2
    bne x31, 0, L229
    set_flag MTE1, M, 0
    jmp L228
L229:
    set_flag MTE1, M, 1
L228:
    rem x31, x5, 2
    bne x31, 0, L231
    wait_flag MTE1, M, 0
    jmp L230
L231:
    wait_flag MTE1, M, 1
L230:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=4, n=16, k=20, init
    rem x31, x5, 2
    bne x31, 0, L233
    set_flag M, MTE1, 0
    jmp L232
L233:
    set_flag M, MTE1, 1
L232:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L235
    set_flag MTE1, MTE2, 0
    jmp L234
L235:
    bne x31, 1, L236
    set_flag MTE1, MTE2, 1
    jmp L234
L236:
    bne x31, 2, L237
    set_flag MTE1, MTE2, 2
    jmp L234
L237:
    set_flag MTE1, MTE2, 3
L234:
    mov x28, x3
    add x3, x28, 1
    set_flag M, FIX, 0
    mov x28, x7
    rem x9, x28, 2
    wait_cross FIX, id=1
    wait_flag M, FIX, 0
    mul x31, x1, 2048
    mov x28, x31
    mul x31, x9, 1024
    add x28, x28, x31
    fixpipe.f32.f32 D_workspace[x28], l0c[0], m=4, n=16, src_stride=16, dst_stride=16
    set_flag FIX, M, 0
    set_cross FIX, mode=2, id=0
L125:
    jmp L239
L122:
    mov x28, x8
    bne x28, 1, L238
    mov x28, x7
    mul x31, x6, -1
    add x28, x28, x31
    add x28, x28, 2
    bge x28, 0, L240
    mov x28, x7
    add x28, x28, 3
    div x9, x28, 1
    mov x28, x7
    add x28, x28, 3
    rem x11, x28, 1
    mov x28, x1
    mul x31, x9, 4
    add x28, x28, x31
    add x12, x28, 0
    mov x28, x12
    add x9, x28, 0
    mov x28, x9
    rem x12, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x13, x28, 2
    mov x28, x13
    bne x28, 1, L242
    mov x28, x12
    bne x28, 1, L244
    rem x31, x4, 4
    bne x31, 0, L247
    wait_flag MTE1, MTE2, 0
    jmp L246
L247:
    bne x31, 1, L248
    wait_flag MTE1, MTE2, 1
    jmp L246
L248:
    bne x31, 2, L249
    wait_flag MTE1, MTE2, 2
    jmp L246
L249:
    wait_flag MTE1, MTE2, 3
L246:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L251
    set_flag MTE2, MTE1, 0
    jmp L250
L251:
    bne x31, 1, L252
    set_flag MTE2, MTE1, 1
    jmp L250
L252:
    bne x31, 2, L253
    set_flag MTE2, MTE1, 2
    jmp L250
L253:
    set_flag MTE2, MTE1, 3
L250:
    mov x28, x4
    add x4, x28, 1
    jmp L245
L244:
    rem x31, x4, 4
    bne x31, 0, L255
    wait_flag MTE1, MTE2, 0
    jmp L254
L255:
    bne x31, 1, L256
    wait_flag MTE1, MTE2, 1
    jmp L254
L256:
    bne x31, 2, L257
    wait_flag MTE1, MTE2, 2
    jmp L254
L257:
    wait_flag MTE1, MTE2, 3
L254:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L259
    set_flag MTE2, MTE1, 0
    jmp L258
L259:
    bne x31, 1, L260
    set_flag MTE2, MTE1, 1
    jmp L258
L260:
    bne x31, 2, L261
    set_flag MTE2, MTE1, 2
    jmp L258
L261:
    set_flag MTE2, MTE1, 3
L258:
    mov x28, x4
    add x4, x28, 1
L245:
    jmp L263
L242:
    mov x28, x12
    bne x28, 1, L262
    rem x31, x4, 4
    bne x31, 0, L265
    wait_flag MTE1, MTE2, 0
    jmp L264
L265:
    bne x31, 1, L266
    wait_flag MTE1, MTE2, 1
    jmp L264
L266:
    bne x31, 2, L267
    wait_flag MTE1, MTE2, 2
    jmp L264
L267:
    wait_flag MTE1, MTE2, 3
L264:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L269
    set_flag MTE2, MTE1, 0
    jmp L268
L269:
    bne x31, 1, L270
    set_flag MTE2, MTE1, 1
    jmp L268
L270:
    bne x31, 2, L271
    set_flag MTE2, MTE1, 2
    jmp L268
L271:
    set_flag MTE2, MTE1, 3
L268:
    mov x28, x4
    add x4, x28, 1
    jmp L263
L262:
    rem x31, x4, 4
    bne x31, 0, L273
    wait_flag MTE1, MTE2, 0
    jmp L272
L273:
    bne x31, 1, L274
    wait_flag MTE1, MTE2, 1
    jmp L272
L274:
    bne x31, 2, L275
    wait_flag MTE1, MTE2, 2
    jmp L272
L275:
    wait_flag MTE1, MTE2, 3
L272:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L277
    set_flag MTE2, MTE1, 0
    jmp L276
L277:
    bne x31, 1, L278
    set_flag MTE2, MTE1, 1
    jmp L276
L278:
    bne x31, 2, L279
    set_flag MTE2, MTE1, 2
    jmp L276
L279:
    set_flag MTE2, MTE1, 3
L276:
    mov x28, x4
    add x4, x28, 1
L263:
L243:
    jmp L240
L240:
L241:
    wait_flag FIX, M, 0
    rem x31, x3, 4
    bne x31, 0, L281
    wait_flag MTE2, MTE1, 0
    jmp L280
L281:
    bne x31, 1, L282
    wait_flag MTE2, MTE1, 1
    jmp L280
L282:
    bne x31, 2, L283
    wait_flag MTE2, MTE1, 2
    jmp L280
L283:
    wait_flag MTE2, MTE1, 3
L280:
    rem x31, x5, 2
    bne x31, 0, L285
    wait_flag M, MTE1, 0
    jmp L284
L285:
    wait_flag M, MTE1, 1
L284:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 4096
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=2, transpose
    rem x31, x5, 2
    bne x31, 0, L287
    set_flag MTE1, M, 0
    jmp L286
L287:
    set_flag MTE1, M, 1
L286:
    rem x31, x5, 2
    bne x31, 0, L289
    wait_flag MTE1, M, 0
    jmp L288
L289:
    wait_flag MTE1, M, 1
L288:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=16, n=8, k=20, init
    rem x31, x5, 2
    bne x31, 0, L291
    set_flag M, MTE1, 0
    jmp L290
L291:
    set_flag M, MTE1, 1
L290:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L293
    set_flag MTE1, MTE2, 0
    jmp L292
L293:
    bne x31, 1, L294
    set_flag MTE1, MTE2, 1
    jmp L292
L294:
    bne x31, 2, L295
    set_flag MTE1, MTE2, 2
    jmp L292
L295:
    set_flag MTE1, MTE2, 3
L292:
    mov x28, x3
    add x3, x28, 1
    set_flag M, FIX, 0
    mov x28, x7
    rem x9, x28, 2
    wait_cross FIX, id=1
    wait_flag M, FIX, 0
    mul x31, x1, 2048
    mov x28, x31
    mul x31, x9, 1024
    add x28, x28, x31
    fixpipe.f32.f32 D_workspace[x28], l0c[0], m=16, n=16, src_stride=16, dst_stride=16
    set_flag FIX, M, 0
    set_cross FIX, mode=2, id=0
    jmp L239
L238:
    mov x28, x7
    mul x31, x6, -1
    add x28, x28, x31
    add x28, x28, 2
    bge x28, 0, L296
    mov x28, x7
    add x28, x28, 3
    div x9, x28, 1
    mov x28, x7
    add x28, x28, 3
    rem x11, x28, 1
    mov x28, x1
    mul x31, x9, 4
    add x28, x28, x31
    add x12, x28, 0
    mov x28, x12
    add x9, x28, 0
    mov x28, x9
    rem x12, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x13, x28, 2
    mov x28, x13
    bne x28, 1, L298
    mov x28, x12
    bne x28, 1, L300
    rem x31, x4, 4
    bne x31, 0, L303
    wait_flag MTE1, MTE2, 0
    jmp L302
L303:
    bne x31, 1, L304
    wait_flag MTE1, MTE2, 1
    jmp L302
L304:
    bne x31, 2, L305
    wait_flag MTE1, MTE2, 2
    jmp L302
L305:
    wait_flag MTE1, MTE2, 3
L302:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L307
    set_flag MTE2, MTE1, 0
    jmp L306
L307:
    bne x31, 1, L308
    set_flag MTE2, MTE1, 1
    jmp L306
L308:
    bne x31, 2, L309
    set_flag MTE2, MTE1, 2
    jmp L306
L309:
    set_flag MTE2, MTE1, 3
L306:
    mov x28, x4
    add x4, x28, 1
    jmp L301
L300:
    rem x31, x4, 4
    bne x31, 0, L311
    wait_flag MTE1, MTE2, 0
    jmp L310
L311:
    bne x31, 1, L312
    wait_flag MTE1, MTE2, 1
    jmp L310
L312:
    bne x31, 2, L313
    wait_flag MTE1, MTE2, 2
    jmp L310
L313:
    wait_flag MTE1, MTE2, 3
L310:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=4, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L315
    set_flag MTE2, MTE1, 0
    jmp L314
L315:
    bne x31, 1, L316
    set_flag MTE2, MTE1, 1
    jmp L314
L316:
    bne x31, 2, L317
    set_flag MTE2, MTE1, 2
    jmp L314
L317:
    set_flag MTE2, MTE1, 3
L314:
    mov x28, x4
    add x4, x28, 1
L301:
    jmp L319
L298:
    mov x28, x12
    bne x28, 1, L318
    rem x31, x4, 4
    bne x31, 0, L321
    wait_flag MTE1, MTE2, 0
    jmp L320
L321:
    bne x31, 1, L322
    wait_flag MTE1, MTE2, 1
    jmp L320
L322:
    bne x31, 2, L323
    wait_flag MTE1, MTE2, 2
    jmp L320
L323:
    wait_flag MTE1, MTE2, 3
L320:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=8, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L325
    set_flag MTE2, MTE1, 0
    jmp L324
L325:
    bne x31, 1, L326
    set_flag MTE2, MTE1, 1
    jmp L324
L326:
    bne x31, 2, L327
    set_flag MTE2, MTE1, 2
    jmp L324
L327:
    set_flag MTE2, MTE1, 3
L324:
    mov x28, x4
    add x4, x28, 1
    jmp L319
L318:
    rem x31, x4, 4
    bne x31, 0, L329
    wait_flag MTE1, MTE2, 0
    jmp L328
L329:
    bne x31, 1, L330
    wait_flag MTE1, MTE2, 1
    jmp L328
L330:
    bne x31, 2, L331
    wait_flag MTE1, MTE2, 2
    jmp L328
L331:
    wait_flag MTE1, MTE2, 3
L328:
    li x28, 0
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x13, 640
    mov x29, x31
    mul x31, x11, 40
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], A[x29], rows=16, cols=20, src_stride=20, dst_rows=16
    li x28, 4096
    rem x31, x4, 4
    mul x31, x31, 1024
    add x28, x28, x31
    mul x31, x11, 960
    mov x29, x31
    mul x31, x12, 32
    add x29, x29, x31
    copy_gm_l1_nd2nz.f16 l1[x28], B[x29], rows=20, cols=16, src_stride=24, dst_rows=32
    rem x31, x4, 4
    bne x31, 0, L333
    set_flag MTE2, MTE1, 0
    jmp L332
L333:
    bne x31, 1, L334
    set_flag MTE2, MTE1, 1
    jmp L332
L334:
    bne x31, 2, L335
    set_flag MTE2, MTE1, 2
    jmp L332
L335:
    set_flag MTE2, MTE1, 3
L332:
    mov x28, x4
    add x4, x28, 1
L319:
L299:
    jmp L296
L296:
L297:
    wait_flag FIX, M, 0
    rem x31, x3, 4
    bne x31, 0, L337
    wait_flag MTE2, MTE1, 0
    jmp L336
L337:
    bne x31, 1, L338
    wait_flag MTE2, MTE1, 1
    jmp L336
L338:
    bne x31, 2, L339
    wait_flag MTE2, MTE1, 2
    jmp L336
L339:
    wait_flag MTE2, MTE1, 3
L336:
    rem x31, x5, 2
    bne x31, 0, L341
    wait_flag M, MTE1, 0
    jmp L340
L341:
    wait_flag M, MTE1, 1
L340:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0a[x28], l1[x29], repeat=2
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 4096
    rem x31, x3, 4
    mul x31, x31, 1024
    add x29, x29, x31
    load2d.f16 l0b[x28], l1[x29], repeat=2, transpose
    rem x31, x5, 2
    bne x31, 0, L343
    set_flag MTE1, M, 0
    jmp L342
L343:
    set_flag MTE1, M, 1
L342:
    rem x31, x5, 2
    bne x31, 0, L345
    wait_flag MTE1, M, 0
    jmp L344
L345:
    wait_flag MTE1, M, 1
L344:
    li x28, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x28, x28, x31
    li x29, 0
    rem x31, x5, 2
    mul x31, x31, 1024
    add x29, x29, x31
    mmad.f16 l0c[0], l0a[x28], l0b[x29], m=16, n=16, k=20, init
    rem x31, x5, 2
    bne x31, 0, L347
    set_flag M, MTE1, 0
    jmp L346
L347:
    set_flag M, MTE1, 1
L346:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 4
    bne x31, 0, L349
    set_flag MTE1, MTE2, 0
    jmp L348
L349:
    bne x31, 1, L350
    set_flag MTE1, MTE2, 1
    jmp L348
L350:
    bne x31, 2, L351
    set_flag MTE1, MTE2, 2
    jmp L348
L351:
    set_flag MTE1, MTE2, 3
L348:
    mov x28, x3
    add x3, x28, 1
    set_flag M, FIX, 0
    mov x28, x7
    rem x9, x28, 2
    wait_cross FIX, id=1
    wait_flag M, FIX, 0
    mul x31, x1, 2048
    mov x28, x31
    mul x31, x9, 1024
    add x28, x28, x31
    fixpipe.f32.f32 D_workspace[x28], l0c[0], m=16, n=16, src_stride=16, dst_stride=16
    set_flag FIX, M, 0
    set_cross FIX, mode=2, id=0
L239:
L123:
    add x7, x7, 1
    jmp L120
L121:
    wait_cross FIX, id=1
    wait_cross FIX, id=1
    wait_flag MTE1, MTE2, 0
    wait_flag MTE1, MTE2, 1
    wait_flag MTE1, MTE2, 2
    wait_flag MTE1, MTE2, 3
    wait_flag M, MTE1, 0
    wait_flag M, MTE1, 1
    wait_flag FIX, M, 0
    end
vec:
    block_idx x1
    block_num x2
    subblock_idx x3
    li x28, 0
    add x4, x28, 0
    set_flag V, MTE2, 0
    set_flag V, MTE2, 1
    li x28, 0
    add x5, x28, 0
    set_flag MTE3, V, 0
    set_flag MTE3, V, 1
    set_flag V, MTE2, 2
    set_flag V, MTE2, 3
    vdup.f32 ub[2112], 0.0, repeat=2
    vdup.f32 ub[2656], 0.0, mask=8
    set_cross MTE2, mode=2, id=1
    set_cross MTE2, mode=2, id=1
    mul x31, x1, -1
    mov x28, x31
    add x28, x28, 3
    div x6, x28, 4
    li x7, 0
L352:
    mov x28, x6
    add x28, x28, 1
    bge x7, x28, L353
    mov x28, x1
    mul x31, x7, 4
    add x28, x28, x31
    add x8, x28, 0
    mov x28, x8
    add x9, x28, 0
    mov x28, x9
    rem x8, x28, 2
    mov x28, x9
    div x9, x28, 2
    mov x28, x9
    rem x10, x28, 2
    mov x28, x10
    bne x28, 1, L354
    mov x28, x8
    bne x28, 1, L356
    mov x28, x7
    rem x9, x28, 2
    wait_cross MTE2, id=0
    mov x28, x3
    bne x28, 0, L358
    wait_flag V, MTE2, 2
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2624], bias[x28], len=32
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    rem x31, x5, 2
    bne x31, 0, L361
    wait_flag MTE3, V, 0
    jmp L360
L361:
    wait_flag MTE3, V, 1
L360:
    rem x31, x4, 2
    bne x31, 0, L363
    wait_flag V, MTE2, 0
    jmp L362
L363:
    wait_flag V, MTE2, 1
L362:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    copy_gm_ub ub[x28], D_workspace[x29], nburst=2, len=2
    rem x31, x4, 2
    bne x31, 0, L365
    set_flag MTE2, V, 0
    jmp L364
L365:
    set_flag MTE2, V, 1
L364:
    rem x31, x4, 2
    bne x31, 0, L367
    wait_flag MTE2, V, 0
    jmp L366
L367:
    wait_flag MTE2, V, 1
L366:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2624], repeat=2, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L369
    set_flag V, MTE2, 0
    jmp L368
L369:
    set_flag V, MTE2, 1
L368:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, mask=32
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L371
    set_flag V, MTE3, 0
    jmp L370
L371:
    set_flag V, MTE3, 1
L370:
    rem x31, x5, 2
    bne x31, 0, L373
    wait_flag V, MTE3, 0
    jmp L372
L373:
    wait_flag V, MTE3, 1
L372:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=2, len=32, src_gap=1, dst_gap=64
    rem x31, x5, 2
    bne x31, 0, L375
    set_flag MTE3, V, 0
    jmp L374
L375:
    set_flag MTE3, V, 1
L374:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 2
    jmp L359
L358:
    wait_flag V, MTE2, 2
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2624], bias[x28], len=32
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    rem x31, x5, 2
    bne x31, 0, L377
    wait_flag MTE3, V, 0
    jmp L376
L377:
    wait_flag MTE3, V, 1
L376:
    rem x31, x4, 2
    bne x31, 0, L379
    wait_flag V, MTE2, 0
    jmp L378
L379:
    wait_flag V, MTE2, 1
L378:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    add x29, x29, 128
    copy_gm_ub ub[x28], D_workspace[x29], nburst=2, len=2
    rem x31, x4, 2
    bne x31, 0, L381
    set_flag MTE2, V, 0
    jmp L380
L381:
    set_flag MTE2, V, 1
L380:
    rem x31, x4, 2
    bne x31, 0, L383
    wait_flag MTE2, V, 0
    jmp L382
L383:
    wait_flag MTE2, V, 1
L382:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2624], repeat=2, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L385
    set_flag V, MTE2, 0
    jmp L384
L385:
    set_flag V, MTE2, 1
L384:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, mask=32
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L387
    set_flag V, MTE3, 0
    jmp L386
L387:
    set_flag V, MTE3, 1
L386:
    rem x31, x5, 2
    bne x31, 0, L389
    wait_flag V, MTE3, 0
    jmp L388
L389:
    wait_flag V, MTE3, 1
L388:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    add x28, x28, 192
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=2, len=32, src_gap=1, dst_gap=64
    rem x31, x5, 2
    bne x31, 0, L391
    set_flag MTE3, V, 0
    jmp L390
L391:
    set_flag MTE3, V, 1
L390:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 2
L359:
    set_cross MTE2, mode=2, id=1
    jmp L357
L356:
    mov x28, x7
    rem x9, x28, 2
    wait_cross MTE2, id=0
    mov x28, x3
    bne x28, 0, L392
    wait_flag V, MTE2, 3
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2048], bias[x28], len=64
    set_flag MTE2, V, 3
    wait_flag MTE2, V, 3
    rem x31, x5, 2
    bne x31, 0, L395
    wait_flag MTE3, V, 0
    jmp L394
L395:
    wait_flag MTE3, V, 1
L394:
    rem x31, x4, 2
    bne x31, 0, L397
    wait_flag V, MTE2, 0
    jmp L396
L397:
    wait_flag V, MTE2, 1
L396:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    copy_gm_ub ub[x28], D_workspace[x29], nburst=2, len=2
    rem x31, x4, 2
    bne x31, 0, L399
    set_flag MTE2, V, 0
    jmp L398
L399:
    set_flag MTE2, V, 1
L398:
    rem x31, x4, 2
    bne x31, 0, L401
    wait_flag MTE2, V, 0
    jmp L400
L401:
    wait_flag MTE2, V, 1
L400:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2048], repeat=2, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L403
    set_flag V, MTE2, 0
    jmp L402
L403:
    set_flag V, MTE2, 1
L402:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, mask=32
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L405
    set_flag V, MTE3, 0
    jmp L404
L405:
    set_flag V, MTE3, 1
L404:
    rem x31, x5, 2
    bne x31, 0, L407
    wait_flag V, MTE3, 0
    jmp L406
L407:
    wait_flag V, MTE3, 1
L406:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=2, len=64, dst_gap=32
    rem x31, x5, 2
    bne x31, 0, L409
    set_flag MTE3, V, 0
    jmp L408
L409:
    set_flag MTE3, V, 1
L408:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 3
    jmp L393
L392:
    wait_flag V, MTE2, 3
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2048], bias[x28], len=64
    set_flag MTE2, V, 3
    wait_flag MTE2, V, 3
    rem x31, x5, 2
    bne x31, 0, L411
    wait_flag MTE3, V, 0
    jmp L410
L411:
    wait_flag MTE3, V, 1
L410:
    rem x31, x4, 2
    bne x31, 0, L413
    wait_flag V, MTE2, 0
    jmp L412
L413:
    wait_flag V, MTE2, 1
L412:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    add x29, x29, 128
    copy_gm_ub ub[x28], D_workspace[x29], nburst=2, len=2
    rem x31, x4, 2
    bne x31, 0, L415
    set_flag MTE2, V, 0
    jmp L414
L415:
    set_flag MTE2, V, 1
L414:
    rem x31, x4, 2
    bne x31, 0, L417
    wait_flag MTE2, V, 0
    jmp L416
L417:
    wait_flag MTE2, V, 1
L416:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2048], repeat=2, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L419
    set_flag V, MTE2, 0
    jmp L418
L419:
    set_flag V, MTE2, 1
L418:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, mask=32
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L421
    set_flag V, MTE3, 0
    jmp L420
L421:
    set_flag V, MTE3, 1
L420:
    rem x31, x5, 2
    bne x31, 0, L423
    wait_flag V, MTE3, 0
    jmp L422
L423:
    wait_flag V, MTE3, 1
L422:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    add x28, x28, 192
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=2, len=64, dst_gap=32
    rem x31, x5, 2
    bne x31, 0, L425
    set_flag MTE3, V, 0
    jmp L424
L425:
    set_flag MTE3, V, 1
L424:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 3
L393:
    set_cross MTE2, mode=2, id=1
L357:
    jmp L427
L354:
    mov x28, x8
    bne x28, 1, L426
    mov x28, x7
    rem x9, x28, 2
    wait_cross MTE2, id=0
    mov x28, x3
    bne x28, 0, L428
    wait_flag V, MTE2, 2
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2624], bias[x28], len=32
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    rem x31, x5, 2
    bne x31, 0, L431
    wait_flag MTE3, V, 0
    jmp L430
L431:
    wait_flag MTE3, V, 1
L430:
    rem x31, x4, 2
    bne x31, 0, L433
    wait_flag V, MTE2, 0
    jmp L432
L433:
    wait_flag V, MTE2, 1
L432:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    copy_gm_ub ub[x28], D_workspace[x29], nburst=8, len=2
    rem x31, x4, 2
    bne x31, 0, L435
    set_flag MTE2, V, 0
    jmp L434
L435:
    set_flag MTE2, V, 1
L434:
    rem x31, x4, 2
    bne x31, 0, L437
    wait_flag MTE2, V, 0
    jmp L436
L437:
    wait_flag MTE2, V, 1
L436:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2624], repeat=8, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L439
    set_flag V, MTE2, 0
    jmp L438
L439:
    set_flag V, MTE2, 1
L438:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, repeat=2
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L441
    set_flag V, MTE3, 0
    jmp L440
L441:
    set_flag V, MTE3, 1
L440:
    rem x31, x5, 2
    bne x31, 0, L443
    wait_flag V, MTE3, 0
    jmp L442
L443:
    wait_flag V, MTE3, 1
L442:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=8, len=32, src_gap=1, dst_gap=64
    rem x31, x5, 2
    bne x31, 0, L445
    set_flag MTE3, V, 0
    jmp L444
L445:
    set_flag MTE3, V, 1
L444:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 2
    jmp L429
L428:
    wait_flag V, MTE2, 2
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2624], bias[x28], len=32
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    rem x31, x5, 2
    bne x31, 0, L447
    wait_flag MTE3, V, 0
    jmp L446
L447:
    wait_flag MTE3, V, 1
L446:
    rem x31, x4, 2
    bne x31, 0, L449
    wait_flag V, MTE2, 0
    jmp L448
L449:
    wait_flag V, MTE2, 1
L448:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    add x29, x29, 512
    copy_gm_ub ub[x28], D_workspace[x29], nburst=8, len=2
    rem x31, x4, 2
    bne x31, 0, L451
    set_flag MTE2, V, 0
    jmp L450
L451:
    set_flag MTE2, V, 1
L450:
    rem x31, x4, 2
    bne x31, 0, L453
    wait_flag MTE2, V, 0
    jmp L452
L453:
    wait_flag MTE2, V, 1
L452:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2624], repeat=8, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L455
    set_flag V, MTE2, 0
    jmp L454
L455:
    set_flag V, MTE2, 1
L454:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, repeat=2
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L457
    set_flag V, MTE3, 0
    jmp L456
L457:
    set_flag V, MTE3, 1
L456:
    rem x31, x5, 2
    bne x31, 0, L459
    wait_flag V, MTE3, 0
    jmp L458
L459:
    wait_flag V, MTE3, 1
L458:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    add x28, x28, 768
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=8, len=32, src_gap=1, dst_gap=64
    rem x31, x5, 2
    bne x31, 0, L461
    set_flag MTE3, V, 0
    jmp L460
L461:
    set_flag MTE3, V, 1
L460:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 2
L429:
    set_cross MTE2, mode=2, id=1
    jmp L427
L426:
    mov x28, x7
    rem x9, x28, 2
    wait_cross MTE2, id=0
    mov x28, x3
    bne x28, 0, L462
    wait_flag V, MTE2, 3
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2048], bias[x28], len=64
    set_flag MTE2, V, 3
    wait_flag MTE2, V, 3
    rem x31, x5, 2
    bne x31, 0, L465
    wait_flag MTE3, V, 0
    jmp L464
L465:
    wait_flag MTE3, V, 1
L464:
    rem x31, x4, 2
    bne x31, 0, L467
    wait_flag V, MTE2, 0
    jmp L466
L467:
    wait_flag V, MTE2, 1
L466:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    copy_gm_ub ub[x28], D_workspace[x29], nburst=8, len=2
    rem x31, x4, 2
    bne x31, 0, L469
    set_flag MTE2, V, 0
    jmp L468
L469:
    set_flag MTE2, V, 1
L468:
    rem x31, x4, 2
    bne x31, 0, L471
    wait_flag MTE2, V, 0
    jmp L470
L471:
    wait_flag MTE2, V, 1
L470:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2048], repeat=8, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L473
    set_flag V, MTE2, 0
    jmp L472
L473:
    set_flag V, MTE2, 1
L472:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, repeat=2
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L475
    set_flag V, MTE3, 0
    jmp L474
L475:
    set_flag V, MTE3, 1
L474:
    rem x31, x5, 2
    bne x31, 0, L477
    wait_flag V, MTE3, 0
    jmp L476
L477:
    wait_flag V, MTE3, 1
L476:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=8, len=64, dst_gap=32
    rem x31, x5, 2
    bne x31, 0, L479
    set_flag MTE3, V, 0
    jmp L478
L479:
    set_flag MTE3, V, 1
L478:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 3
    jmp L463
L462:
    wait_flag V, MTE2, 3
    mul x31, x8, 64
    mov x28, x31
    copy_gm_ub_pad ub[2048], bias[x28], len=64
    set_flag MTE2, V, 3
    wait_flag MTE2, V, 3
    rem x31, x5, 2
    bne x31, 0, L481
    wait_flag MTE3, V, 0
    jmp L480
L481:
    wait_flag MTE3, V, 1
L480:
    rem x31, x4, 2
    bne x31, 0, L483
    wait_flag V, MTE2, 0
    jmp L482
L483:
    wait_flag V, MTE2, 1
L482:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    mul x31, x1, 2048
    mov x29, x31
    mul x31, x9, 1024
    add x29, x29, x31
    add x29, x29, 512
    copy_gm_ub ub[x28], D_workspace[x29], nburst=8, len=2
    rem x31, x4, 2
    bne x31, 0, L485
    set_flag MTE2, V, 0
    jmp L484
L485:
    set_flag MTE2, V, 1
L484:
    rem x31, x4, 2
    bne x31, 0, L487
    wait_flag MTE2, V, 0
    jmp L486
L487:
    wait_flag MTE2, V, 1
L486:
    barrier V
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 512
    add x28, x28, x31
    vadd.f32 ub[2112], ub[x28], ub[2048], repeat=8, dst_rep=2, src0_rep=2, src1_rep=0, mask=16
    rem x31, x4, 2
    bne x31, 0, L489
    set_flag V, MTE2, 0
    jmp L488
L489:
    set_flag V, MTE2, 1
L488:
    barrier V
    li x28, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x28, x28, x31
    vmaxs.f32 ub[x28], ub[2112], 0.0, repeat=2
    mov x28, x4
    add x4, x28, 1
    rem x31, x5, 2
    bne x31, 0, L491
    set_flag V, MTE3, 0
    jmp L490
L491:
    set_flag V, MTE3, 1
L490:
    rem x31, x5, 2
    bne x31, 0, L493
    wait_flag V, MTE3, 0
    jmp L492
L493:
    wait_flag V, MTE3, 1
L492:
    mul x31, x10, 1536
    mov x28, x31
    mul x31, x8, 64
    add x28, x28, x31
    add x28, x28, 768
    li x29, 1024
    rem x31, x5, 2
    mul x31, x31, 512
    add x29, x29, x31
    copy_ub_gm_pad D[x28], ub[x29], nburst=8, len=64, dst_gap=32
    rem x31, x5, 2
    bne x31, 0, L495
    set_flag MTE3, V, 0
    jmp L494
L495:
    set_flag MTE3, V, 1
L494:
    mov x28, x5
    add x5, x28, 1
    set_flag V, MTE2, 3
L463:
    set_cross MTE2, mode=2, id=1
L427:
L355:
    add x7, x7, 1
    jmp L352
L353:
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    wait_flag V, MTE2, 2
    wait_flag V, MTE2, 3
    end
# matmul 20x24x20 f16 -> f32, epilogue bias,relu, default schedule, compiled in 13.6 ms
