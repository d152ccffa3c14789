.kernel rmsnorm
.tensor X f16 [6, 200] in
.tensor gamma f16 [200] in
.tensor rmsnorm f16 [6, 200] out
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
    set_flag V, MTE2, 2
    vdup.f32 ub[10400], 0.0, repeat=19
    vdup.f32 ub[15264], 0.0, mask=32
    vdup.f32 ub[15392], 0.0, mask=8
    vdup.f32 ub[15424], 0.0, repeat=6
    vdup.f32 ub[16960], 0.0, repeat=3
    vdup.f32 ub[17728], 0.0, mask=16
    barrier V
    wait_flag V, MTE2, 2
    copy_gm_ub_pad ub[4992], gamma[0], len=400
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    li x28, -1
    bge x28, 0, L0
    rem x31, x4, 2
    bne x31, 0, L3
    wait_flag V, MTE2, 0
    jmp L2
L3:
    wait_flag V, MTE2, 1
L2:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 2496
    add x28, x28, x31
    mul x31, x1, 2400
    mov x29, x31
    copy_gm_ub_pad ub[x28], X[x29], nburst=6, len=400
    rem x31, x4, 2
    bne x31, 0, L5
    set_flag MTE2, V, 0
    jmp L4
L5:
    set_flag MTE2, V, 1
L4:
    mov x28, x4
    add x4, x28, 1
    jmp L0
L0:
L1:
    li x7, 0
L6:
    bge x7, 1, L7
    mov x28, x7
    bge x28, 0, L8
    rem x31, x4, 2
    bne x31, 0, L11
    wait_flag V, MTE2, 0
    jmp L10
L11:
    wait_flag V, MTE2, 1
L10:
    li x28, 0
    rem x31, x4, 2
    mul x31, x31, 2496
    add x28, x28, x31
    mul x31, x1, 2400
    mov x29, x31
    mul x31, x7, 2400
    add x29, x29, x31
    add x29, x29, 2400
    copy_gm_ub_pad ub[x28], X[x29], nburst=6, len=400
    rem x31, x4, 2
    bne x31, 0, L13
    set_flag MTE2, V, 0
    jmp L12
L13:
    set_flag MTE2, V, 1
L12:
    mov x28, x4
    add x4, x28, 1
    jmp L8
L8:
L9:
    rem x31, x3, 2
    bne x31, 0, L15
    wait_flag MTE2, V, 0
    jmp L14
L15:
    wait_flag MTE2, V, 1
L14:
    barrier V
    li x28, 0
    rem x31, x3, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f32.f16 ub[10400], ub[x28], repeat=19, src_rep=4
    li x28, 2432
    rem x31, x3, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f32.f16 ub[15264], ub[x28], src_rep=4, mask=32
    barrier V
    li x8, 0
L16:
    bge x8, 6, L17
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15424
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10400
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 10400
    vmul.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L16
L17:
    barrier V
    li x8, 0
L18:
    bge x8, 6, L19
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15424
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10656
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 10656
    vmla.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L18
L19:
    barrier V
    li x8, 0
L20:
    bge x8, 6, L21
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15424
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10912
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 10912
    vmla.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L20
L21:
    barrier V
    li x8, 0
L22:
    bge x8, 6, L23
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15424
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11168
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11168
    vmla.f32 ub[x28], ub[x29], ub[x30], mask=8
    add x8, x8, 1
    jmp L22
L23:
    barrier V
    vcadd.f32 ub[15392], ub[15424], repeat=6
    barrier V
    vmuls.f32 ub[15392], ub[15392], 0.005, mask=6
    barrier V
    vadds.f32 ub[15392], ub[15392], 9.999999747378752e-06, mask=6
    barrier V
    vrsqrt.f32 ub[15392], ub[15392], mask=6
    barrier V
    vbrcb.f32 ub[15424], ub[15392]
    barrier V
    li x8, 0
L24:
    bge x8, 6, L25
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10400
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10400
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 15424
    vmul.f32 ub[x28], ub[x29], ub[x30], repeat=3, src1_blk=0, src1_rep=0
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11168
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11168
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 15424
    vmul.f32 ub[x28], ub[x29], ub[x30], src1_blk=0, src1_rep=0, mask=16
    add x8, x8, 1
    jmp L24
L25:
    vconv.f32.f16 ub[16960], ub[4992], repeat=3, src_rep=4
    vconv.f32.f16 ub[17728], ub[5376], src_rep=4, mask=16
    barrier V
    li x8, 0
L26:
    bge x8, 6, L27
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10400
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10400
    vmul.f32 ub[x28], ub[x29], ub[16960], repeat=3
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11168
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11168
    vmul.f32 ub[x28], ub[x29], ub[17728], mask=16
    add x8, x8, 1
    jmp L26
L27:
    rem x31, x5, 2
    bne x31, 0, L29
    wait_flag MTE3, V, 0
    jmp L28
L29:
    wait_flag MTE3, V, 1
L28:
    barrier V
    li x28, 5408
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[10400], repeat=19, dst_rep=4
    li x28, 7840
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[15264], dst_rep=4, mask=32
    rem x31, x5, 2
    bne x31, 0, L31
    set_flag V, MTE3, 0
    jmp L30
L31:
    set_flag V, MTE3, 1
L30:
    rem x31, x5, 2
    bne x31, 0, L33
    wait_flag V, MTE3, 0
    jmp L32
L33:
    wait_flag V, MTE3, 1
L32:
    mul x31, x1, 2400
    mov x28, x31
    mul x31, x7, 2400
    add x28, x28, x31
    li x29, 5408
    rem x31, x5, 2
    mul x31, x31, 2496
    add x29, x29, x31
    copy_ub_gm_pad rmsnorm[x28], ub[x29], nburst=6, len=400
    rem x31, x5, 2
    bne x31, 0, L35
    set_flag MTE3, V, 0
    jmp L34
L35:
    set_flag MTE3, V, 1
L34:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 2
    bne x31, 0, L37
    set_flag V, MTE2, 0
    jmp L36
L37:
    set_flag V, MTE2, 1
L36:
    mov x28, x3
    add x3, x28, 1
    add x7, x7, 1
    jmp L6
L7:
    set_flag V, MTE2, 2
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    wait_flag V, MTE2, 2
    end
# rmsnorm [6, 200] f16, default schedule, compiled in 48.6 ms
