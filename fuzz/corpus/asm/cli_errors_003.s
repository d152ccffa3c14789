.kernel t

    vaddd.f16 ub[0], ub[256], ub[512]
    end
