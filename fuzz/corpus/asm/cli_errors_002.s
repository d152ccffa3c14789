.kernel t
top:
    add x1, x1, 1
    jmp top
    end
