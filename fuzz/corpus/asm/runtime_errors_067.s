.kernel t
    li x1, 7
    li x2, 0
    div x3, x1, x2
    end
