.kernel t
.block_dim 2
    block_idx x1
    mul x1, x1, 262144
    vadd.f16 ub[x1], ub[0], ub[256]
    end
