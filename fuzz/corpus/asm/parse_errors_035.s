.kernel t
.tensor A f16 [4 4] in
    end
