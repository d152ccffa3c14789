.kernel t
.tensor Q s8 [256] in
    copy_gm_l1_nd2nz.f16 l1[0], Q[0], rows=1, cols=16, src_stride=16, dst_rows=16
    end
