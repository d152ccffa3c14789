.kernel t
    mmad.s8 l0c[0], l0a[0], l0b[0], m=16, n=16, k=32, init
    end
