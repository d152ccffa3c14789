.kernel t
    li x1, 12ab
    end
