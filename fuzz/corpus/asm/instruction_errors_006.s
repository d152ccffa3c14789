.kernel t
    copy_gm_ub ub[0], X[0]
.tensor X f16 [16] in
    end
