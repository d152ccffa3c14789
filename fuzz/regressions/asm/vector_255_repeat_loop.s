.kernel t
    vdup.f32 ub[0], 1.0, repeat=255
loop:
    vadd.f32 ub[0], ub[0], ub[0], repeat=255
    vexp.f32 ub[0], ub[0], repeat=255
    jmp loop
