.kernel t
.tensor A f16 4 in
    end
