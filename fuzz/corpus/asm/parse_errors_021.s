.kernel t
.blockdim 4
    end
