.kernel t
    li x1, 5
    vÃ¤dd x1
