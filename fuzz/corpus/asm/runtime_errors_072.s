.kernel t
    li x1, 1
