.kernel t
    li x1, -9223372036854775809
    end
