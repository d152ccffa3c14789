.kernel k
.tensor A f16 [16] in
.tensor C f32 [16] out
    end
