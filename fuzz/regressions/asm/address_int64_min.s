.kernel t
.tensor A f32 [64] inout
    li x1, -9223372036854775808
    copy_gm_ub ub[0], A[0], len=8
    copy_ub_gm A[x1], ub[0], len=8
    vadd.f32 ub[x1], ub[0], ub[0], repeat=1
    end
