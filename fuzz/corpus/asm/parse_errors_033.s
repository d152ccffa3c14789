.kernel t
.tensor A f64 [4] in
    end
