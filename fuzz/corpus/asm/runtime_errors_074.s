.kernel t
    set_flag MTE2, V, 7
    wait_flag MTE2, V, 7
    end
