.kernel t
    jmp out
    end
out:
