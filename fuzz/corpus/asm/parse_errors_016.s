.kernel t
    42
    end
