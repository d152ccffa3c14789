.kernel t
    vadd.f16 ub[0], ub[256], ub[512], mask=0xff:low
    end
