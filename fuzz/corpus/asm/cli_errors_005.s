.kernel t
.tensor A f16 [100000000000, 100000000000] in
    end
