.kernel t
.tensor C f32 [64] out
    copy_ub_gm_pad C[0], ub[0], nburst=2, len=8, dst_gap=2, atomic=f32
    end
