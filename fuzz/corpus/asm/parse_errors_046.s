.kernel t
    vadd.f16 ub[], ub[256], ub[512]
    end
