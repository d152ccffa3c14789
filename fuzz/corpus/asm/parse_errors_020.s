.kernel t
x1:
    jmp x1
    end
