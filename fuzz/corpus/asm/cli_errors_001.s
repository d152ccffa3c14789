.kernel t
.tensor A f16 [16] in
    copy_gm_ub ub[0], A[0], len=2
    end
