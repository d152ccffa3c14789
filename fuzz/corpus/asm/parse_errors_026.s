.kernel t
.block_dim 0
    end
