.kernel t
    add x1, , 1
    end
