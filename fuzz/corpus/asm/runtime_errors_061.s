.kernel t
    vadd.f16 ub[16], ub[0], ub[256]
    end
