.kernel t
top:
    jmp -top
    end
