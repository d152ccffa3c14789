.kernel cast
.tensor X f32 [3, 100] in
.tensor cast f16 [3, 100] out
    block_idx x1
    block_num x2
    li x28, 0
    add x3, x28, 0
    li x28, 0
    add x4, x28, 0
    set_flag V, MTE2, 0
    set_flag V, MTE2, 1
    li x28, 0
    add x5, x28, 0
    set_flag MTE3, V, 0
    set_flag MTE3, V, 1
    li x28, -1
    bge x28, 0, L0
    mov x28, x1
    bne x28, 0, L2
    rem x31, x4, 2
    bne x31, 0, L5
    wait_flag V, MTE2, 0
    jmp L4
L5:
    wait_flag V, MTE2, 1
L4:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    copy_gm_ub_pad ub[x28], X[x29], len=1200
    rem x31, x4, 2
    bne x31, 0, L7
    set_flag MTE2, V, 0
    jmp L6
L7:
    set_flag MTE2, V, 1
L6:
    mov x28, x4
    add x4, x28, 1
    jmp L3
L2:
    rem x31, x4, 2
    bne x31, 0, L9
    wait_flag V, MTE2, 0
    jmp L8
L9:
    wait_flag V, MTE2, 1
L8:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    copy_gm_ub_pad ub[x28], X[x29], len=1536
    rem x31, x4, 2
    bne x31, 0, L11
    set_flag MTE2, V, 0
    jmp L10
L11:
    set_flag MTE2, V, 1
L10:
    mov x28, x4
    add x4, x28, 1
L3:
    jmp L0
L0:
L1:
    li x6, 0
L12:
    bge x6, 1, L13
    mov x28, x1
    add x28, x28, x6
    bne x28, 0, L14
    mov x28, x6
    bge x28, 0, L16
    mov x28, x1
    add x28, x28, x6
    add x28, x28, 1
    bne x28, 0, L18
    rem x31, x4, 2
    bne x31, 0, L21
    wait_flag V, MTE2, 0
    jmp L20
L21:
    wait_flag V, MTE2, 1
L20:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    mul x31, x6, 1536
    add x29, x29, x31
    add x29, x29, 1536
    copy_gm_ub_pad ub[x28], X[x29], len=1200
    rem x31, x4, 2
    bne x31, 0, L23
    set_flag MTE2, V, 0
    jmp L22
L23:
    set_flag MTE2, V, 1
L22:
    mov x28, x4
    add x4, x28, 1
    jmp L19
L18:
    rem x31, x4, 2
    bne x31, 0, L25
    wait_flag V, MTE2, 0
    jmp L24
L25:
    wait_flag V, MTE2, 1
L24:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    mul x31, x6, 1536
    add x29, x29, x31
    add x29, x29, 1536
    copy_gm_ub_pad ub[x28], X[x29], len=1536
    rem x31, x4, 2
    bne x31, 0, L27
    set_flag MTE2, V, 0
    jmp L26
L27:
    set_flag MTE2, V, 1
L26:
    mov x28, x4
    add x4, x28, 1
L19:
    jmp L16
L16:
L17:
    rem x31, x3, 2
    bne x31, 0, L29
    wait_flag MTE2, V, 0
    jmp L28
L29:
    wait_flag MTE2, V, 1
L28:
    rem x31, x5, 2
    bne x31, 0, L31
    wait_flag MTE3, V, 0
    jmp L30
L31:
    wait_flag MTE3, V, 1
L30:
    li x28, 3072
    rem x31, x5, 2
    mul x31, x31, 768
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 2
    mul x31, x31, 1536
    add x29, x29, x31
    vconv.f16.f32 ub[x28], ub[x29], repeat=4, dst_rep=4
    li x28, 3584
    rem x31, x5, 2
    mul x31, x31, 768
    add x28, x28, x31
    li x29, 1024
    rem x31, x3, 2
    mul x31, x31, 1536
    add x29, x29, x31
    vconv.f16.f32 ub[x28], ub[x29], dst_rep=4, mask=44
    rem x31, x5, 2
    bne x31, 0, L33
    set_flag V, MTE3, 0
    jmp L32
L33:
    set_flag V, MTE3, 1
L32:
    rem x31, x5, 2
    bne x31, 0, L35
    wait_flag V, MTE3, 0
    jmp L34
L35:
    wait_flag V, MTE3, 1
L34:
    mul x31, x1, 768
    mov x28, x31
    mul x31, x6, 768
    add x28, x28, x31
    li x29, 3072
    rem x31, x5, 2
    mul x31, x31, 768
    add x29, x29, x31
    copy_ub_gm_pad cast[x28], ub[x29], len=600
    rem x31, x5, 2
    bne x31, 0, L37
    set_flag MTE3, V, 0
    jmp L36
L37:
    set_flag MTE3, V, 1
L36:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 2
    bne x31, 0, L39
    set_flag V, MTE2, 0
    jmp L38
L39:
    set_flag V, MTE2, 1
L38:
    mov x28, x3
    add x3, x28, 1
    jmp L15
L14:
    mov x28, x6
    bge x28, 0, L40
    mov x28, x1
    add x28, x28, x6
    add x28, x28, 1
    bne x28, 0, L42
    rem x31, x4, 2
    bne x31, 0, L45
    wait_flag V, MTE2, 0
    jmp L44
L45:
    wait_flag V, MTE2, 1
L44:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    mul x31, x6, 1536
    add x29, x29, x31
    add x29, x29, 1536
    copy_gm_ub_pad ub[x28], X[x29], len=1200
    rem x31, x4, 2
    bne x31, 0, L47
    set_flag MTE2, V, 0
    jmp L46
L47:
    set_flag MTE2, V, 1
L46:
    mov x28, x4
    add x4, x28, 1
    jmp L43
L42:
    rem x31, x4, 2
    bne x31, 0, L49
    wait_flag V, MTE2, 0
    jmp L48
L49:
    wait_flag V, MTE2, 1
L48:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 1536
    add x28, x28, x31
    mul x31, x1, 1536
    mov x29, x31
    mul x31, x6, 1536
    add x29, x29, x31
    add x29, x29, 1536
    copy_gm_ub_pad ub[x28], X[x29], len=1536
    rem x31, x4, 2
    bne x31, 0, L51
    set_flag MTE2, V, 0
    jmp L50
L51:
    set_flag MTE2, V, 1
L50:
    mov x28, x4
    add x4, x28, 1
L43:
    jmp L40
L40:
L41:
    rem x31, x3, 2
    bne x31, 0, L53
    wait_flag MTE2, V, 0
    jmp L52
L53:
    wait_flag MTE2, V, 1
L52:
    rem x31, x5, 2
    bne x31, 0, L55
    wait_flag MTE3, V, 0
    jmp L54
L55:
    wait_flag MTE3, V, 1
L54:
    li x28, 3072
    rem x31, x5, 2
    mul x31, x31, 768
    add x28, x28, x31
    li x29, 0
    rem x31, x3, 2
    mul x31, x31, 1536
    add x29, x29, x31
    vconv.f16.f32 ub[x28], ub[x29], repeat=6, dst_rep=4
    rem x31, x5, 2
    bne x31, 0, L57
    set_flag V, MTE3, 0
    jmp L56
L57:
    set_flag V, MTE3, 1
L56:
    rem x31, x5, 2
    bne x31, 0, L59
    wait_flag V, MTE3, 0
    jmp L58
L59:
    wait_flag V, MTE3, 1
L58:
    mul x31, x1, 768
    mov x28, x31
    mul x31, x6, 768
    add x28, x28, x31
    li x29, 3072
    rem x31, x5, 2
    mul x31, x31, 768
    add x29, x29, x31
    copy_ub_gm_pad cast[x28], ub[x29], len=768
    rem x31, x5, 2
    bne x31, 0, L61
    set_flag MTE3, V, 0
    jmp L60
L61:
    set_flag MTE3, V, 1
L60:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 2
    bne x31, 0, L63
    set_flag V, MTE2, 0
    jmp L62
L63:
    set_flag V, MTE2, 1
L62:
    mov x28, x3
    add x3, x28, 1
L15:
    add x6, x6, 1
    jmp L12
L13:
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    end
# cast [3, 100] f32, default schedule, compiled in 3.3 ms
