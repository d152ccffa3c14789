.kernel t extra
    end
