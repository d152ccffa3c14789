.kernel
    end
