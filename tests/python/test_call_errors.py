"""Calls the bindings do not take: a cubekit.Error (and TypeError) that names the function, what it
takes and what it got, arrays by dtype and shape; pybind11 printed every element of every array."""
import numpy as np
import pytest

import cubekit as ck

A = np.ones((64, 64), np.float16)


def _scaled():
    x = ck.Input("X", "f16", [64, 64])
    r, c = ck.Var("r"), ck.Var("c")
    f = ck.Func("F")
    f[r, c] = x[r, c] * 2
    return f, r


def test_an_unknown_keyword_is_named_with_the_ones_taken():
    f, _ = _scaled()
    with pytest.raises(ck.ArgumentsError) as info:
        f.run({"X": A}, bounds=[64, 64])
    assert str(info.value) == ("F.run: unknown keyword 'bounds'; it takes also, chip, inputs, raise_on_diagnostics, "
                               "schedule, timing_only, trace (see help)")
    assert isinstance(info.value, ck.Error) and isinstance(info.value, TypeError)


def test_arguments_of_the_wrong_kind_show_arrays_by_dtype_and_shape():
    f, r = _scaled()
    with pytest.raises(ck.Error) as info:
        ck.reference(f, A)
    message = str(info.value)
    assert message == ("reference: these arguments do not match what it takes: got (Func F, numpy float16 array of "
                       "shape (64, 64)); it takes (func: Func, inputs: dict) -> numpy.ndarray")
    with pytest.raises(ck.Error, match=r"^F\.bound: these arguments do not match what it takes: got \(Var r, 'a', 3\); "
                                       r"it takes \(self: Func, var: Var, min: int, extent: int\) -> Func$"):
        f.bound(r, "a", 3)


def test_the_calls_that_fit_still_run():
    f, _ = _scaled()
    out, _ = f.run({"X": A})
    np.testing.assert_array_equal(out, A * 2)
    np.testing.assert_array_equal(ck.reference(f, {"X": A}), A * 2)


def test_bf16_bits_must_be_integers():
    """forcecast read float values as bit patterns: 1.0 became 0x0001, a denormal 9e-41."""
    with pytest.raises(ck.Error, match=r"^bf16_to_float32: bits must be bf16 bit patterns, an array of integers "
                                       r"\(numpy\.uint16, as bf16_from_float32 gives\), got a float16 array; for float "
                                       r"values to bf16, use bf16_from_float32$"):
        ck.bf16_to_float32(np.ones(3, np.float16))


def test_bf16_bits_must_fit_in_16_bits():
    with pytest.raises(ck.Error, match=r"^bf16_to_float32: bits must be 16-bit patterns, 0\.\.65535; element 1 of the "
                                       r"int64 array is 65536$"):
        ck.bf16_to_float32(np.array([16256, 65536], np.int64))
    # Integers in range of any integer type are bits.
    np.testing.assert_array_equal(ck.bf16_to_float32(np.array([16256, 16384], np.int64)), [1.0, 2.0])
