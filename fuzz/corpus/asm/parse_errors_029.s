.kernel t
.block_dim 2
.block_dim 4
    end
