.kernel t
.tensor A f16 [-3] in
    end
