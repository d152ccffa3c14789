.kernel t
.tensor A f16 [N] in
    end
