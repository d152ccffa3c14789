.kernel softmax
.tensor X f16 [6, 200] in
.tensor softmax f16 [6, 200] out
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
    vdup.f32 ub[9984], 0.0, mask=8
    vdup.f32 ub[10016], 0.0, mask=48
    vdup.f32 ub[10208], 0.0, repeat=19
    vdup.f32 ub[15072], 0.0, mask=32
    vdup.f32 ub[15200], 0.0
    vdup.f32 ub[15456], 0.0, repeat=6
    barrier V
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
    li x6, 0
L6:
    bge x6, 1, L7
    mov x28, x6
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
    mul x31, x6, 2400
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
    vdup.f16 ub[10016], 0.0, mask=96
    barrier V
    li x7, 0
L16:
    bge x7, 6, L17
    mul x31, x7, 32
    mov x28, x31
    add x28, x28, 10016
    mul x31, x7, 416
    mov x29, x31
    rem x31, x3, 2
    mul x31, x31, 2496
    add x29, x29, x31
    vcmax.f16 ub[x28], ub[x29]
    mul x31, x7, 32
    mov x28, x31
    add x28, x28, 10018
    mul x31, x7, 416
    mov x29, x31
    add x29, x29, 256
    rem x31, x3, 2
    mul x31, x31, 2496
    add x29, x29, x31
    vcmax.f16 ub[x28], ub[x29], mask=72
    add x7, x7, 1
    jmp L16
L17:
    barrier V
    vcmax.f16 ub[9984], ub[10016], repeat=6, src_rep=1, mask=2
    barrier V
    vconv.f32.f16 ub[10016], ub[9984], src_rep=4, mask=6
    li x28, 0
    rem x31, x3, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f32.f16 ub[10208], ub[x28], repeat=19, src_rep=4
    li x28, 2432
    rem x31, x3, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f32.f16 ub[15072], ub[x28], src_rep=4, mask=32
    barrier V
    vbrcb.f32 ub[15200], ub[10016]
    barrier V
    li x7, 0
L18:
    bge x7, 6, L19
    mul x31, x7, 832
    mov x28, x31
    add x28, x28, 10208
    mul x31, x7, 832
    mov x29, x31
    add x29, x29, 10208
    mul x31, x7, 32
    mov x30, x31
    add x30, x30, 15200
    vsub.f32 ub[x28], ub[x29], ub[x30], repeat=3, src1_blk=0, src1_rep=0
    mul x31, x7, 832
    mov x28, x31
    add x28, x28, 10976
    mul x31, x7, 832
    mov x29, x31
    add x29, x29, 10976
    mul x31, x7, 32
    mov x30, x31
    add x30, x30, 15200
    vsub.f32 ub[x28], ub[x29], ub[x30], src1_blk=0, src1_rep=0, mask=16
    add x7, x7, 1
    jmp L18
L19:
    barrier V
    vexp.f32 ub[10208], ub[10208], repeat=19
    vexp.f32 ub[15072], ub[15072], mask=32
    barrier V
    li x7, 0
L20:
    bge x7, 6, L21
    mul x31, x7, 256
    mov x28, x31
    add x28, x28, 15456
    mul x31, x7, 832
    mov x29, x31
    add x29, x29, 10208
    mul x31, x7, 832
    mov x30, x31
    add x30, x30, 10464
    vadd.f32 ub[x28], ub[x29], ub[x30]
    add x7, x7, 1
    jmp L20
L21:
    barrier V
    li x7, 0
L22:
    bge x7, 6, L23
    mul x31, x7, 256
    mov x28, x31
    add x28, x28, 15456
    mul x31, x7, 256
    mov x29, x31
    add x29, x29, 15456
    mul x31, x7, 832
    mov x30, x31
    add x30, x30, 10720
    vadd.f32 ub[x28], ub[x29], ub[x30]
    add x7, x7, 1
    jmp L22
L23:
    barrier V
    li x7, 0
L24:
    bge x7, 6, L25
    mul x31, x7, 256
    mov x28, x31
    add x28, x28, 15456
    mul x31, x7, 256
    mov x29, x31
    add x29, x29, 15456
    mul x31, x7, 832
    mov x30, x31
    add x30, x30, 10976
    vadd.f32 ub[x28], ub[x29], ub[x30], mask=8
    add x7, x7, 1
    jmp L24
L25:
    barrier V
    vcadd.f32 ub[9984], ub[15456], repeat=6
    barrier V
    vrec.f32 ub[9984], ub[9984], mask=6
    barrier V
    vbrcb.f32 ub[15456], ub[9984]
    barrier V
    li x7, 0
L26:
    bge x7, 6, L27
    mul x31, x7, 832
    mov x28, x31
    add x28, x28, 10208
    mul x31, x7, 832
    mov x29, x31
    add x29, x29, 10208
    mul x31, x7, 32
    mov x30, x31
    add x30, x30, 15456
    vmul.f32 ub[x28], ub[x29], ub[x30], repeat=3, src1_blk=0, src1_rep=0
    mul x31, x7, 832
    mov x28, x31
    add x28, x28, 10976
    mul x31, x7, 832
    mov x29, x31
    add x29, x29, 10976
    mul x31, x7, 32
    mov x30, x31
    add x30, x30, 15456
    vmul.f32 ub[x28], ub[x29], ub[x30], src1_blk=0, src1_rep=0, mask=16
    add x7, x7, 1
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
    li x28, 4992
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[10208], repeat=19, dst_rep=4
    li x28, 7424
    rem x31, x5, 2
    mul x31, x31, 2496
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[15072], dst_rep=4, mask=32
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
    mul x31, x6, 2400
    add x28, x28, x31
    li x29, 4992
    rem x31, x5, 2
    mul x31, x31, 2496
    add x29, x29, x31
    copy_ub_gm_pad softmax[x28], ub[x29], nburst=6, len=400
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
    add x6, x6, 1
    jmp L6
L7:
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    end
# softmax [6, 200] f16, default schedule, compiled in 24.2 ms
