.kernel t
    li x1, 5 ; a comment
    end
