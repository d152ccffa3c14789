.kernel t
.tensor A f16 [16] in
    li x1, 9223372036854775000
    copy_gm_ub ub[0], A[x1 + 2000000], len=1
    vadd.f16 ub[x1 + 2000000], ub[0], ub[0], repeat=2
    end
