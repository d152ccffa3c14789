#! --chip ascend910b2
.kernel softmax
.block_dim 5
.tensor X f16 [5, 40] in
.tensor softmax f16 [5, 40] out
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
    vdup.f32 ub[384], 0.0, mask=8
    vdup.f32 ub[416], 0.0, mask=8
    vdup.f32 ub[448], 0.0, mask=48
    barrier V
    mul x31, x1, -1
    mov x28, x31
    add x28, x28, 4
    div x6, x28, 5
    mul x31, x6, -1
    mov x28, x31
    add x28, x28, -1
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
    mul x31, x31, 96
    add x28, x28, x31
    mul x31, x1, 80
    mov x29, x31
    copy_gm_ub_pad ub[x28], X[x29], len=80
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
    mov x28, x6
    add x28, x28, 1
    bge x7, x28, L7
    mov x28, x7
    mul x31, x6, -1
    add x28, x28, x31
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
    mul x31, x31, 96
    add x28, x28, x31
    mul x31, x1, 80
    mov x29, x31
    mul x31, x7, 400
    add x29, x29, x31
    add x29, x29, 400
    copy_gm_ub_pad ub[x28], X[x29], len=80
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
    li x28, 0
    rem x31, x3, 2
    mul x31, x31, 96
    add x28, x28, x31
    vcmax.f16 ub[384], ub[x28], src_rep=3, mask=40
    barrier V
    vconv.f32.f16 ub[416], ub[384], src_rep=4, mask=1
    li x28, 0
    rem x31, x3, 2
    mul x31, x31, 96
    add x28, x28, x31
    vconv.f32.f16 ub[448], ub[x28], src_rep=4, mask=48
    barrier V
    vbrcb.f32 ub[640], ub[416]
    barrier V
    vsub.f32 ub[448], ub[448], ub[640], src1_blk=0, dst_rep=6, src0_rep=6, src1_rep=1, mask=48
    barrier V
    vexp.f32 ub[448], ub[448], mask=48
    barrier V
    vcadd.f32 ub[384], ub[448], src_rep=6, mask=40
    barrier V
    vrec.f32 ub[384], ub[384], mask=1
    barrier V
    vbrcb.f32 ub[896], ub[384]
    barrier V
    vmul.f32 ub[448], ub[448], ub[896], src1_blk=0, dst_rep=6, src0_rep=6, src1_rep=1, mask=48
    rem x31, x5, 2
    bne x31, 0, L17
    wait_flag MTE3, V, 0
    jmp L16
L17:
    wait_flag MTE3, V, 1
L16:
    barrier V
    li x28, 192
    rem x31, x5, 2
    mul x31, x31, 96
    add x28, x28, x31
    vconv.f16.f32 ub[x28], ub[448], dst_rep=4, mask=48
    rem x31, x5, 2
    bne x31, 0, L19
    set_flag V, MTE3, 0
    jmp L18
L19:
    set_flag V, MTE3, 1
L18:
    rem x31, x5, 2
    bne x31, 0, L21
    wait_flag V, MTE3, 0
    jmp L20
L21:
    wait_flag V, MTE3, 1
L20:
    mul x31, x1, 80
    mov x28, x31
    mul x31, x7, 400
    add x28, x28, x31
    li x29, 192
    rem x31, x5, 2
    mul x31, x31, 96
    add x29, x29, x31
    copy_ub_gm_pad softmax[x28], ub[x29], len=80
    rem x31, x5, 2
    bne x31, 0, L23
    set_flag MTE3, V, 0
    jmp L22
L23:
    set_flag MTE3, V, 1
L22:
    mov x28, x5
    add x5, x28, 1
    rem x31, x3, 2
    bne x31, 0, L25
    set_flag V, MTE2, 0
    jmp L24
L25:
    set_flag V, MTE2, 1
L24:
    mov x28, x3
    add x3, x28, 1
    add x7, x7, 1
    jmp L6
L7:
    wait_flag V, MTE2, 0
    wait_flag V, MTE2, 1
    wait_flag MTE3, V, 0
    wait_flag MTE3, V, 1
    end
# softmax [5, 40] f16, default schedule, compiled in 1.2 ms
