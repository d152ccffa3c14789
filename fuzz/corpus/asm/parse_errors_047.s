.kernel t
    vadd.f16 ub[x1 + x2], ub[256], ub[512]
    end
