.kernel t
    add x1, x2,
    end
