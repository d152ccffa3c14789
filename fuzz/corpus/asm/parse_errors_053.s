.kernel t
    vaddd.f16 ub[0], ub[0], ub[0]
    end
