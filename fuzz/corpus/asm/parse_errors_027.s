.kernel t
.block_dim -2
    end
