.kernel t
    li x1, 0x
    end
