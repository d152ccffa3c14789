.kernel t
    vdup.f16 ub[0], 1.2.3
    end
