.kernel t
    , x1
    end
