.kernel t
top:
    li x1, 1
top:
    end
