.kernel t
    li x1, 0
top:
    vadd.f16 ub[262144], ub[0], ub[256]
    add x1, x1, 1
    blt x1, 4, top
    end
