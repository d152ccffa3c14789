.kernel t
.tensor A f16 [4, 0] in
    end
