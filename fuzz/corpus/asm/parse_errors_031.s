.kernel t
.tensor A f16 [4] in
.tensor A f32 [8] out
    end
