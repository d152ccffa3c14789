.kernel 7
    end
