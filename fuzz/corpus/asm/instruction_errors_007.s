.kernel k
.tensor A f16 [16] in
    end
