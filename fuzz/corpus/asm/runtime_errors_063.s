.kernel t
.tensor A f16 [256] in
    copy_gm_l1_nd2nz.f16 l1[0], A[1], rows=1, cols=16, src_stride=16, dst_rows=16
    end
