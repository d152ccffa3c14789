.kernel t
    li x1, 1
    bne x1, 0, done
    end
