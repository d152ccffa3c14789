.kernel t
    load3d.f16 l0a[0], l1[0], c1=1, kh=1, kw=1, m_len=16, k_len=16
    end
