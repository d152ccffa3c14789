.kernel t
    li x1, 7
    rem x3, x1, 0
    end
