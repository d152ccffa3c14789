.kernel t
    add x1 x2, 1
    end
