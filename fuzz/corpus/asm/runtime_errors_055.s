.kernel t
    vadd.f16 ub[262112], ub[0], ub[256]
    end
