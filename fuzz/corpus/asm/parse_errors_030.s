.kernel t
.tensor [4] in
    end
