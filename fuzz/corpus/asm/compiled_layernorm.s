.kernel layernorm
.tensor X f16 [6, 200] in
.tensor gamma f16 [200] in
.tensor beta f16 [200] in
.tensor layernorm f16 [6, 200] out
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
    vdup.f32 ub[10816], 0.0, repeat=19
    vdup.f32 ub[15680], 0.0, mask=32
    vdup.f32 ub[15808], 0.0, mask=8
    vdup.f32 ub[15840], 0.0, repeat=6
    vdup.f32 ub[17376], 0.0, repeat=6
    vdup.f32 ub[18912], 0.0, repeat=3
    vdup.f32 ub[19680], 0.0, mask=16
    barrier V
    wait_flag V, MTE2, 2
    copy_gm_ub_pad ub[4992], gamma[0], len=400
    copy_gm_ub_pad ub[5408], beta[0], len=400
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
    vconv.f32.f16 ub[10816], ub[x28], repeat=19, src_rep=4
    li x28, 2432
    rem x31, x3, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f32.f16 ub[15680], ub[x28], src_rep=4, mask=32
    barrier V
    li x8, 0
L16:
    bge x8, 6, L17
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15840
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11072
    vadd.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L16
L17:
    barrier V
    li x8, 0
L18:
    bge x8, 6, L19
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15840
    mul x31, x8, 256
    mov x29, x31
    add x29, x29, 15840
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11328
    vadd.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L18
L19:
    barrier V
    li x8, 0
L20:
    bge x8, 6, L21
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 15840
    mul x31, x8, 256
    mov x29, x31
    add x29, x29, 15840
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11584
    vadd.f32 ub[x28], ub[x29], ub[x30], mask=8
    add x8, x8, 1
    jmp L20
L21:
    barrier V
    vcadd.f32 ub[15808], ub[15840], repeat=6
    barrier V
    vmuls.f32 ub[15808], ub[15808], 0.005, mask=6
    barrier V
    vbrcb.f32 ub[15840], ub[15808]
    barrier V
    li x8, 0
L22:
    bge x8, 6, L23
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10816
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 15840
    vsub.f32 ub[x28], ub[x29], ub[x30], repeat=3, src1_blk=0, src1_rep=0
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11584
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11584
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 15840
    vsub.f32 ub[x28], ub[x29], ub[x30], src1_blk=0, src1_rep=0, mask=16
    add x8, x8, 1
    jmp L22
L23:
    barrier V
    li x8, 0
L24:
    bge x8, 6, L25
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 17376
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 10816
    vmul.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L24
L25:
    barrier V
    li x8, 0
L26:
    bge x8, 6, L27
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 17376
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11072
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11072
    vmla.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L26
L27:
    barrier V
    li x8, 0
L28:
    bge x8, 6, L29
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 17376
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11328
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11328
    vmla.f32 ub[x28], ub[x29], ub[x30]
    add x8, x8, 1
    jmp L28
L29:
    barrier V
    li x8, 0
L30:
    bge x8, 6, L31
    mul x31, x8, 256
    mov x28, x31
    add x28, x28, 17376
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11584
    mul x31, x8, 832
    mov x30, x31
    add x30, x30, 11584
    vmla.f32 ub[x28], ub[x29], ub[x30], mask=8
    add x8, x8, 1
    jmp L30
L31:
    barrier V
    vcadd.f32 ub[15808], ub[17376], repeat=6
    barrier V
    vmuls.f32 ub[15808], ub[15808], 0.005, mask=6
    barrier V
    vadds.f32 ub[15808], ub[15808], 9.999999747378752e-06, mask=6
    barrier V
    vrsqrt.f32 ub[15808], ub[15808], mask=6
    barrier V
    vbrcb.f32 ub[17376], ub[15808]
    barrier V
    li x8, 0
L32:
    bge x8, 6, L33
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10816
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 17376
    vmul.f32 ub[x28], ub[x29], ub[x30], repeat=3, src1_blk=0, src1_rep=0
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11584
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11584
    mul x31, x8, 32
    mov x30, x31
    add x30, x30, 17376
    vmul.f32 ub[x28], ub[x29], ub[x30], src1_blk=0, src1_rep=0, mask=16
    add x8, x8, 1
    jmp L32
L33:
    vconv.f32.f16 ub[18912], ub[4992], repeat=3, src_rep=4
    vconv.f32.f16 ub[19680], ub[5376], src_rep=4, mask=16
    barrier V
    li x8, 0
L34:
    bge x8, 6, L35
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10816
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    vmul.f32 ub[x28], ub[x29], ub[18912], repeat=3
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11584
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11584
    vmul.f32 ub[x28], ub[x29], ub[19680], mask=16
    add x8, x8, 1
    jmp L34
L35:
    barrier V
    vconv.f32.f16 ub[18912], ub[5408], repeat=3, src_rep=4
    vconv.f32.f16 ub[19680], ub[5792], src_rep=4, mask=16
    barrier V
    li x8, 0
L36:
    bge x8, 6, L37
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 10816
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 10816
    vadd.f32 ub[x28], ub[x29], ub[18912], repeat=3
    mul x31, x8, 832
    mov x28, x31
    add x28, x28, 11584
    mul x31, x8, 832
    mov x29, x31
    add x29, x29, 11584
    vadd.f32 ub[x28], ub[x29], ub[19680], mask=16
    add x8, x8, 1
    jmp L36
L37:
    rem x31, x5, 2
    bne x31, 0, L39
    wait_flag MTE3, V, 0
    jmp L38
L39:
    wait_flag MTE3, V, 1
L38:
    barrier V
    li x28, 5824
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[10816], repeat=19, dst_rep=4
    li x28, 8256
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[15680], dst_rep=4, mask=32
    rem x31, x5, 2
    bne x31, 0, L41
    set_flag V, MTE3, 0
    jmp L40
L41:
    set_flag V, MTE3, 1
L40:
    rem x31, x5, 2
    bne x31, 0, L43
    wait_flag V, MTE3, 0
    jmp L42
L43:
    wait_flag V, MTE3, 1
L42:
    mul x31, x1, 2400
    mov x28, x31
    mul x31, x7, 2400
    add x28, x28, x31
    li x29, 5824
    rem x31, x5, 2
    mul x31, x31, 2496
    add x29, x29, x31
    copy_ub_gm_pad layernorm[x28], ub[x29], nburst=6, len=400
    rem x31, x5, 2
    bne x31, 0, L45
    set_flag MTE3, V, 0
    jmp L44
L45:
    set_flag MTE3, V, 1
L44:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 2
    bne x31, 0, L47
    set_flag V, MTE2, 0
    jmp L46
L47:
    set_flag V, MTE2, 1
L46:
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
# layernorm [6, 200] f16, default schedule, compiled in 21.9 ms
