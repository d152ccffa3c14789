.kernel t
.block_dim 70000
    end
