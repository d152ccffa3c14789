.kernel t
.block_dim four
    end
