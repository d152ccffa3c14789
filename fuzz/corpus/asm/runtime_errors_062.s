.kernel t
    load2d.f16 l0a[256], l1[0]
    end
