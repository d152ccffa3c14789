.kernel t
    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=4095, init
    end
