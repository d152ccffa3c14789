.kernel t
    li x1, 9223372036854775776
    copy_l1_ub ub[0], l1[x1]
    end
