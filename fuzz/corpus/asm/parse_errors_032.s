.kernel t
.tensor UB f16 [4] in
    end
