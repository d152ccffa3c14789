.kernel t
    set_fmatrix h=2, w=2
    load3d.f16 l0a[0], l1[0], c1=1, kh=3, kw=3, m_len=16, k_len=16
    end
