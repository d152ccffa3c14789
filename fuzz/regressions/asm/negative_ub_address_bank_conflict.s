.kernel t
    li x1, -64
    vadd.f16 ub[x1], ub[0], ub[256]
    end
