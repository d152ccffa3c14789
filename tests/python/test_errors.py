"""Errors: bad inputs raise cubekit.Error with the C++ message; strided arrays are copied; nothing crashes."""
import json

import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels
from conftest import matmul_ref, run_cli, run_python

COPY_TEXT = """.kernel copy2d
.tensor X f16 [16, 16] in
.tensor Z f16 [16, 16] out
    copy_gm_ub ub[0], X[0], len=16
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Z[0], ub[0], len=16
    end
"""


@pytest.fixture(scope="module")
def copy_program():
    return ck.assemble(COPY_TEXT)


@pytest.fixture(scope="module")
def matmul_program(source_dir):
    return ck.load(str(source_dir / "examples" / "asm" / "matmul_f16.s"))


def cli_message(stderr):
    """The CLI prints `cubekit: [error: ]MESSAGE`; the bindings raise MESSAGE."""
    msg = stderr.strip()
    assert msg.startswith("cubekit: "), stderr
    msg = msg[len("cubekit: "):]
    return msg[len("error: "):] if msg.startswith("error: ") else msg


def test_error_types():
    assert issubclass(ck.Error, Exception)
    assert issubclass(ck.InternalError, ck.Error)


# ---- bad inputs to run() ----

def test_wrong_dtype(matmul_program):
    a = np.ones((128, 128), np.float16)
    with pytest.raises(ck.Error, match=r"^input 'A': the array is float32 but the tensor is f16; "
                                       r"convert it with \.astype\(numpy\.float16\)$"):
        ck.run(matmul_program, {"A": a.astype(np.float32), "B": a})


def test_wrong_shape(matmul_program):
    a = np.ones((128, 128), np.float16)
    with pytest.raises(ck.Error, match=r"^input 'B': the array has shape \(128, 64\) "
                                       r"but the tensor has shape \(128, 128\)$"):
        ck.run(matmul_program, {"A": a, "B": a[:, :64]})


def test_missing_input(matmul_program):
    with pytest.raises(ck.Error, match=r"^matmul_f16 reads tensor 'B' \(f16, shape \[128, 128\]\): give it in inputs$"):
        ck.run(matmul_program, {"A": np.ones((128, 128), np.float16)})


def test_unknown_and_output_tensors(matmul_program):
    a = np.ones((128, 128), np.float16)
    with pytest.raises(ck.Error, match=r"input 'Q' is not a tensor of matmul_f16 \(its tensors: A, B, C\)"):
        ck.run(matmul_program, {"A": a, "B": a, "Q": a})
    with pytest.raises(ck.Error, match=r"input 'C': C is an output of matmul_f16"):
        ck.run(matmul_program, {"A": a, "B": a, "C": np.ones((128, 128), np.float32)})


def test_input_for_a_workspace():
    b = ck.Builder("ws")
    b.tensor("W", "f32", [8], "workspace")
    b.emit("end")
    prog = b.finish()
    with pytest.raises(ck.Error, match=r"^input 'W': W is a workspace of ws; give only in and inout tensors$"):
        ck.run(prog, {"W": np.zeros(8, np.float32)})
    outputs, _ = ck.run(prog, {})
    assert outputs == {}  # a workspace is not returned either


def test_not_an_array(copy_program):
    with pytest.raises(ck.Error, match=r"input 'X': expected a numpy array, got list"):
        ck.run(copy_program, {"X": [[0.0] * 16] * 16})
    with pytest.raises(ck.Error, match=r"x: expected a numpy array, got list"):
        kernels.relu([1.0, 2.0])


def test_unknown_chip_has_the_cli_message(source_dir, matmul_program):
    with pytest.raises(ck.Error) as info:
        ck.chip("ascend999")
    assert str(info.value).startswith("unknown chip 'ascend999'")
    cli = run_cli("run", "--chip", "ascend999", source_dir / "examples" / "asm" / "matmul_f16.s", check=False)
    assert cli.returncode != 0 and cli_message(cli.stderr) == str(info.value)
    for call in (lambda: ck.run(matmul_program, chip="ascend999", timing_only=True),
                 lambda: kernels.relu(np.ones((2, 16), np.float16), chip="ascend999")):
        with pytest.raises(ck.Error, match=r"^unknown chip 'ascend999'"):
            call()
    with pytest.raises(ck.Error, match=r"chip: give a preset name, a JSON path, a dict or a ChipConfig, not int"):
        ck.run(matmul_program, chip=5)


def test_bad_chip_config():
    d = ck.chip().to_dict()
    d["cores"] = 0
    with pytest.raises(ck.Error, match=r"<dict>: chip config field 'cores' must be in 1\.\.\d+, got 0"):
        ck.ChipConfig.from_dict(d)
    del d["cores"]
    with pytest.raises(ck.Error, match=r"chip config has no field 'cores'"):
        ck.ChipConfig.from_json(json.dumps(d))
    with pytest.raises(ck.Error, match=r"not valid JSON"):
        ck.ChipConfig.from_json("{cores: 3")
    d = ck.chip().to_dict()
    d["clock_mhz"] = float("nan")  # Python writes NaN, which JSON has not: say so, not "not valid JSON"
    with pytest.raises(ck.Error, match=r"<dict>: a value is NaN or infinite \(Out of range float values are not JSON "
                                       r"compliant\); a chip's figures are finite numbers"):
        ck.ChipConfig.from_dict(d)
    with pytest.raises(ck.Error, match=r"<dict>: a value is NaN or infinite"):
        ck.kernels.add(np.ones(4, np.float16), np.ones(4, np.float16), chip=d)


def test_bad_assembly_line_has_line_and_column(tmp_path):
    text = ".kernel k\n    li x1, 5\n    vadd.f16 ub[0], ub[0]\n    end\n"
    with pytest.raises(ck.Error) as info:
        ck.assemble(text, "bad.s")
    msg = str(info.value)
    assert msg.startswith("bad.s:3:5: error: vadd needs 3 positional operands (dst, src0, src1), got 2")
    assert "    vadd.f16 ub[0], ub[0]" in msg and msg.rstrip().endswith("^")
    # load() and the CLI give the very same message for the file.
    path = tmp_path / "bad.s"
    path.write_text(text)
    with pytest.raises(ck.Error) as info:
        ck.load(str(path))
    cli = run_cli("run", path, check=False)
    assert cli.returncode != 0
    assert cli_message(cli.stderr) == str(info.value).rstrip()
    with pytest.raises(ck.Error, match=r"^<python>:2:5: error: unknown instruction 'frob'"):
        ck.assemble(".kernel k\n    frob x1\n")


def test_builder_errors():
    b = ck.Builder("k")
    with pytest.raises(ck.Error, match=r"kernel 'k', instruction 0 \(li\): li: operand 'xd': there is no register x99"):
        b.emit("li", ck.x(99), ck.imm(1))
    with pytest.raises(ck.Error, match=r"unknown instruction 'frob'"):
        b.emit("frob")
    with pytest.raises(ck.Error, match=r"unknown dtype 'f64'"):
        b.tensor("A", "f64", [4])
    with pytest.raises(ck.Error, match=r"tensor role must be 'in', 'out', 'inout' or 'workspace', got 'both'"):
        b.tensor("A", "f16", [4], "both")
    with pytest.raises(ck.Error, match=r"block_dim must be 1\.\.65535, got 0"):
        b.block_dim(0)
    b.emit("jmp", ck.name("nowhere"))
    with pytest.raises(ck.Error, match=r"label 'nowhere' is never defined"):
        b.finish()


def test_file_errors(tmp_path, copy_program):
    with pytest.raises(ck.Error, match=r"cannot read program file"):
        ck.load(str(tmp_path / "missing.s"))
    with pytest.raises(ck.Error, match=r"cannot write"):
        copy_program.save(str(tmp_path / "no" / "such" / "dir.s"))
    with pytest.raises(ck.Error, match=r"cannot write the trace"):
        ck.run(copy_program, timing_only=True, trace=str(tmp_path / "no" / "dir" / "t.json"))


# ---- DSL errors ----

def test_dsl_definition_errors():
    r, c = ck.Var("r"), ck.Var("c")
    a = ck.Input("A", "f32", [4, 8])
    with pytest.raises(ck.Error, match=r"A has 2 dimensions but is called with 1 indices"):
        a[r]
    with pytest.raises(ck.Error, match=r"every dimension must be at least 1"):
        ck.Input("B", "f16", [-1, 4])
    with pytest.raises(ck.Error, match=r"RDom k: extent must be at least 1, got 0"):
        ck.RDom(0, 0, "k")
    f = ck.Func("F")
    with pytest.raises(ck.Error, match=r"str is not an expression"):
        f[r, c] = "one"
    with pytest.raises(ck.Error, match=r"a bool is not an expression"):
        f[r, c] = True
    f[r, c] = a[r, c] * 2.0
    with pytest.raises(ck.Error, match=r"F is defined twice"):
        f[r, c] = a[r, c]
    with pytest.raises(ck.Error, match=r"the operands are f32 and f16; cast one to the other.s type"):
        a[r, c] + ck.cast("f16", a[r, c])
    with pytest.raises(ck.Error, match=r"an Expr has no truth value.*use select"):
        bool(a[r, c] < 1)
    with pytest.raises(ck.Error, match=r"the argument uses no reduction variable"):
        ck.sum(a[r, c])
    with pytest.raises(ck.Error, match=r"the condition must be a comparison"):
        ck.select(a[r, c], 1.0, 2.0)
    g = ck.Func("G")
    with pytest.raises(ck.Error, match=r"G is used before it is defined"):
        g[r, c] + 1
    with pytest.raises(ck.Error, match=r"G has no definition"):
        ck.compile(g)
    with pytest.raises(ck.Error, match=r"int is not a loop variable"):
        f.reorder(1, 2)
    with pytest.raises(ck.Error, match=r"// divides integers \(indices\); on f32 use /"):
        a[r, c] // 2
    with pytest.raises(ck.Error, match=r"RDom r has 2 dimensions: use one of them"):
        ck.sum(a[ck.RDom([(0, 4), (0, 8)], "r"), c])
    with pytest.raises(ck.Error, match=r"constant_exterior\(A, 1e\+40\): the value is beyond the largest finite f32"):
        ck.constant_exterior(a, 1e40)


def test_schedule_errors():
    x = ck.Input("X", "f32", [8, 64])
    r, c = ck.Var("r"), ck.Var("c")
    f = ck.Func("F")
    f[r, c] = x[r, c] * 2.0
    f.tile_rows(2)
    with pytest.raises(ck.Error, match=r"F\.tile_rows\(2\): F is elementwise .*tile_rows\(\) applies to Funcs with "
                                       r"per-row or per-column values"):
        ck.compile(f)
    g = ck.Func("G")
    g[r, c] = x[r, c] * 2.0
    g.stage(x, ck.Level.L1, r)
    with pytest.raises(ck.Error, match=r"G\.stage\(X, L1, r\): G runs on the vector unit"):
        g.run({"X": np.ones((8, 64), np.float32)})
    # A cube schedule with no loop left outside the cube to stage at.
    a, b = ck.Input("A", "f16", [32, 64]), ck.Input("B", "f16", [64, 32])
    m, n, k = ck.Var("m"), ck.Var("n"), ck.RDom(0, 64, "k")
    mm = ck.Func("C")
    mm[m, n] = ck.sum(ck.cast("f32", a[m, k]) * ck.cast("f32", b[k, n]))
    mm.stage(a, ck.Level.L1, n).stage(b, ck.Level.L1, n)
    mm.stage(a, ck.Level.L0A, n).stage(b, ck.Level.L0B, n).cube(m, n, k)
    with pytest.raises(ck.Error, match=r"C\.stage\(A, L1, n\): every loop is on the cube"):
        ck.compile(mm)


def test_kernel_errors_have_the_cli_message():
    a = np.ones((16, 16), np.float16)
    with pytest.raises(ck.Error) as info:
        kernels.matmul(a, a, l1_copies=9)
    cli = run_cli("kernel", "matmul", "--m", 16, "--n", 16, "--k", 16, "--l1-copies", 9, check=False)
    assert cli.returncode != 0 and cli_message(cli.stderr) == str(info.value)
    assert str(info.value) == ("matmul: l1_copies 9 is more than the 4 copies ascend910 can keep apart (4 event ids per "
                               "pipe pair, one per copy): give 1..4 (--l1-copies; Python l1_copies=)")


H16, F32, ROWS16 = np.ones((16, 16), np.float16), np.ones((16, 16), np.float32), np.ones((4, 16), np.float16)


@pytest.mark.parametrize("call,message", [
    (lambda: kernels.matmul(F32, F32), r"matmul: a and b are float32; the cube multiplies float16, bf16 .* or int8: convert"),
    (lambda: kernels.matmul(np.ones((16, 32), np.float16), H16),
     r"matmul: a \(16, 32\) has k = 32 but b \(16, 16\) has k = 16"),
    (lambda: kernels.matmul(np.ones((16, 32), np.int8), np.ones((32, 16), np.int8)), r"matmul: an int8 b is given as \(n, k\) with transpose_b=True \(the cube reads an int8 B stored "
     r"transposed\); got b \(32, 16\) with transpose_b=False"),
    (lambda: kernels.matmul(np.ones((32, 16), np.int8), np.ones((16, 32), np.int8), transpose_a=True, transpose_b=True),
     r"store A as \(m, k\), not transposed"),
    (lambda: kernels.matmul(H16[0], H16[0]), r"must both be 2-D"),
    (lambda: kernels.matmul(H16, H16, foo=1), r"unknown option 'foo'"),
    (lambda: kernels.matmul(H16, H16, epilogue=["tanh"]), r"unknown epilogue 'tanh'; use bias, scale, relu or gelu"),
    (lambda: kernels.matmul(H16, H16, tm=-1), r"tm must be at least 1"),
    (lambda: kernels.add(ROWS16, ROWS16[:, :8]), r"add: x \(4, 16\) and y \(4, 8\) do not broadcast"),
    (lambda: kernels.add(ROWS16, ROWS16.astype(np.int32)), r"add: y is int32; the vector kernels take float16 or float32"),
    (lambda: kernels.relu(ROWS16.astype(np.int32)), r"relu: x is int32; the vector kernels take float16 or float32"),
    (lambda: kernels.cast(ROWS16, "f64"), r"unknown dtype 'f64'"),
    (lambda: kernels.softmax(np.array(1.0, np.float16)), r"softmax: x is 0-d \(a single number\); give at least 1 dimension"),
    (lambda: kernels.relu(ROWS16, schedule="fast"), r"schedule must be 'default' or 'naive', got 'fast'"),
    (lambda: kernels.softmax(ROWS16, tile_rows=-1), r"tile_rows must be at least 1"),
], ids=["f32-matmul", "k-mismatch", "s8-layout", "s8-a-layout", "1-d", "option", "epilogue", "tm", "add-shape", "add-dtype", "int",
        "cast-to", "softmax-1d", "schedule", "tile_rows"])
def test_kernel_errors(call, message):
    with pytest.raises(ck.Error, match=message):
        call()


# ---- strided arrays are copied, and give the same results ----

def strided_variants(a):
    """The same values as the 2-D array `a` in non-contiguous layouts."""
    big = np.zeros((a.shape[0] * 2, a.shape[1], 2), a.dtype)
    big[::2, :, 1] = a
    out = {
        "fortran": np.asfortranarray(a),            # column-major
        "sliced": big[::2, :, 1],                   # every other row, every other element
        "flipped": np.flip(np.flip(a, 0).copy(), 0),  # negative strides
    }
    for name, v in out.items():
        assert not v.flags.c_contiguous and np.array_equal(v, a), name
    return out


def test_strided_arrays_in_run(rng, matmul_program):
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    expected, _ = ck.run(matmul_program, {"A": a, "B": b})
    for name, sa in strided_variants(a).items():
        keep = sa.copy(order="K")
        out, _ = ck.run(matmul_program, {"A": sa, "B": b.T.copy().T})
        np.testing.assert_array_equal(out["C"], expected["C"], err_msg=name)
        np.testing.assert_array_equal(sa, keep)  # not modified
    np.testing.assert_allclose(expected["C"], matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    # A read-only, zero-stride broadcast.
    row = rng.uniform(-1, 1, 128).astype(np.float16)
    out, _ = ck.run(matmul_program, {"A": np.broadcast_to(row, (128, 128)), "B": b})
    np.testing.assert_array_equal(out["C"], ck.run(matmul_program, {"A": np.tile(row, (128, 1)), "B": b})[0]["C"])


def test_strided_arrays_in_kernels_and_dsl(rng):
    a = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 48)).astype(np.float16)
    c, _ = kernels.matmul(a, b)
    for name, sa in strided_variants(a).items():
        np.testing.assert_array_equal(kernels.matmul(sa, np.asfortranarray(b))[0], c, err_msg=name)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    gamma = rng.standard_normal(128).astype(np.float32)[::2]  # strided 1-D
    beta = rng.standard_normal(64).astype(np.float32)
    expected, _ = kernels.layernorm(x, np.ascontiguousarray(gamma), beta)
    for name, sx in strided_variants(x).items():
        np.testing.assert_array_equal(kernels.layernorm(sx, gamma, beta)[0], expected, err_msg=name)
        np.testing.assert_array_equal(kernels.add(sx, x.T.copy().T)[0], x + x, err_msg=name)
    # Func.run and reference() copy too.
    X = ck.Input("X", "f32", [8, 64])
    r, cv = ck.Var("r"), ck.Var("c")
    f = ck.Func("F")
    f[r, cv] = X[r, cv] * 3.0
    sx = strided_variants(x)["sliced"]
    np.testing.assert_array_equal(f.run({"X": sx})[0], x * 3)
    np.testing.assert_array_equal(ck.reference(f, {"X": np.asfortranarray(x)}), x * 3)


# ---- nothing a Python caller passes crashes the interpreter ----

FUZZ = r"""
import numpy as np, cubekit as ck
from cubekit import kernels as K
weird = [None, -1, 0, 2**31, 2**63, -2**63, 1e308, float("nan"), float("inf"), "", "x" * 300, "\0", "é", b"f16",
         [], [[]], [-1], [2**40], (), {}, {"a": 1}, object(), np.float16(1), np.ones(0), np.ones((2, 0)),
         np.array([object()]), np.ones((3, 3), np.float64)[::2], ck.Var("v"), ck.RDom(0, 4, "k"), ck.Func("u"),
         ck.chip()]
p = ck.assemble(".kernel k\n.tensor X f16 [16] inout\nend\n")
f16, x16 = np.ones((16, 16), np.float16), np.ones(16, np.float16)
targets = [
    lambda a: ck.chip(a), lambda a: ck.ChipConfig.from_json(a), lambda a: ck.ChipConfig.from_dict(a),
    lambda a: ck.assemble(a), lambda a: ck.load(a), lambda a: ck.run(p, {"X": a}), lambda a: ck.run(p, a),
    lambda a: ck.run(p, {"X": x16}, chip=a), lambda a: ck.run(p, {"X": x16}, blocks=a),
    lambda a: ck.run(p, {"X": x16}, trace=a), lambda a: ck.run(p, {a: x16}),
    lambda a: ck.Builder(a).finish(), lambda a: ck.Builder("k").tensor("A", a, [4]),
    lambda a: ck.Builder("k").tensor("A", "f16", a), lambda a: ck.Builder("k").tensor(a, "f16", [4]),
    lambda a: ck.Builder("k").emit(a), lambda a: ck.Builder("k").emit("li", ck.x(1), a),
    lambda a: ck.Builder("k").label(a), lambda a: ck.Builder("k").block_dim(a),
    lambda a: ck.x(a), lambda a: ck.imm(a), lambda a: ck.num(a), lambda a: ck.mem("ub", a), lambda a: ck.mem(a, 0),
    lambda a: ck.mask_count(a), lambda a: ck.mask_bits(a, a), lambda a: ck.mask_counter(a),
    lambda a: ck.kw(a, ck.imm(1)),
    lambda a: ck.flag(a), lambda a: ck.name(a),
    lambda a: ck.Var(a), lambda a: ck.RDom(0, a, "k"), lambda a: ck.RDom(a, 4), lambda a: ck.Input("A", "f16", a),
    lambda a: ck.Input("A", a, [4]), lambda a: ck.Input(a, "f16", [4]), lambda a: ck.Expr(a), lambda a: ck.Func(a),
    lambda a: ck.cast(a, 1.0), lambda a: ck.cast("f16", a), lambda a: ck.exp(a), lambda a: ck.min(a, 1.0),
    lambda a: ck.sum(a), lambda a: ck.maximum(a), lambda a: ck.select(a, 1.0, 2.0), lambda a: ck.Expr(1.0) + a,
    lambda a: a * ck.Expr(1.0), lambda a: ck.Expr(1.0) < a, lambda a: ck.Input("A", "f16", [4])[a],
    lambda a: ck.Func("F").__setitem__(a, 1.0), lambda a: ck.Func("F").__setitem__(ck.Var("i"), a),
    lambda a: ck.Func("F")[a],
    lambda a: ck.Func("F").split(ck.Var(), ck.Var(), ck.Var(), a),
    lambda a: ck.Func("F").split(a, ck.Var(), ck.Var(), 2), lambda a: ck.Func("F").tile(a, a, a, a, a, a, 2, 2),
    lambda a: ck.Func("F").reorder(a), lambda a: ck.Func("F").cores(a),
    lambda a: ck.Func("F").cores([ck.Var()], a), lambda a: ck.Func("F").stage(a, ck.Level.L1, ck.Var()),
    lambda a: ck.Func("F").cube(a, a, a), lambda a: ck.Func("F").store_in(a), lambda a: ck.Func("F").tile_rows(a),
    lambda a: ck.Func("F").multi_buffer(ck.Level.L1, a), lambda a: ck.Func("F").bound(ck.Var(), 0, a),
    lambda a: ck.Func("F").epilogue_of(a), lambda a: ck.compile(a), lambda a: ck.reference(ck.Func("F"), a),
    lambda a: ck.reference(a, {}),
    lambda a: K.relu(a), lambda a: K.matmul(a, a), lambda a: K.matmul(f16, f16, epilogue=a),
    lambda a: K.matmul(f16, f16, epilogue=["bias"], bias=a), lambda a: K.matmul(f16, f16, out=a),
    lambda a: K.matmul(f16, f16, chip=a), lambda a: K.cast(np.ones((2, 16), np.float16), a),
    lambda a: K.matmul(f16, f16, tm=a), lambda a: K.matmul(f16, f16, scale=a, epilogue=["scale"]),
    lambda a: K.layernorm(np.ones((2, 16), np.float16), np.ones(16, np.float16), np.ones(16, np.float16), eps=a),
    lambda a: K.softmax(np.ones((2, 16), np.float16), tile_rows=a), lambda a: K.add(np.ones((2, 16), np.float16), a),
]
calls = errors = 0
for t in targets:
    for a in weird:
        calls += 1
        try:
            t(a)
        except Exception:
            errors += 1
print("calls", calls, "errors", errors)
"""


def test_no_python_input_crashes_the_interpreter(tmp_path):
    """Every binding, called with ~30 ill-typed or extreme values each, raises (or works) but never crashes."""
    r = run_python(FUZZ.replace("import numpy", f"import os; os.chdir({str(tmp_path)!r})\nimport numpy", 1),
                   timeout=300, memory_limit=8 << 30)
    assert r.returncode == 0, f"the interpreter died ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    calls, errors = map(int, r.stdout.split()[1::2])
    assert calls > 2000 and errors > calls // 2


# ==== edge cases of the bindings: odd Python values, names, sizes and depths ====

def _f32_input():
    return ck.Input("A", "f32", [4, 64])[ck.Var("r"), ck.Var("c")]


def test_var_supports_every_expr_operator():
    r, k = ck.Var("r"), ck.RDom(0, 4, "k")
    for e, text in [(-r, "-r"), (r / 2, "(r / 2)"), (2 / r, "(2 / r)"), (r < 2, "(r < 2)"), (r >= k, "(r >= k)"),
                    (r == 1, "(r == 1)")]:
        assert str(e) == text


def test_expr_builtin_abs_and_unary_plus():
    x = _f32_input()
    assert str(abs(x)) == "abs(A(r, c))"
    assert str(+x) == "A(r, c)"


def test_large_python_int_in_an_expression():
    with pytest.raises(ck.Error, match="int"):
        _f32_input() + 2 ** 40


def test_numpy_scalars_in_expressions():
    x = _f32_input()
    assert str(x * np.float32(0.5)) == "(A(r, c) * 0.5)"
    assert str(x + np.int64(2)) == "(A(r, c) + 2)"


def test_builder_emit_with_a_plain_value():
    with pytest.raises(ck.Error, match="operand"):
        ck.Builder("k").emit("li", ck.x(1), 5)


def test_dtype_that_is_no_type():
    with pytest.raises(ck.Error, match="unknown dtype"):
        ck.Input("A", 5, [4])


def test_run_rejects_negative_blocks_and_threads(copy_program):
    x = np.ones((16, 16), np.float16)
    with pytest.raises(ck.Error, match="blocks"):
        ck.run(copy_program, {"X": x}, blocks=-1)
    with pytest.raises(ck.Error, match="threads"):
        ck.run(copy_program, {"X": x}, threads=-1)


def test_big_endian_array(copy_program):
    x = np.arange(256, dtype=np.float16).reshape(16, 16)
    try:
        out, _ = ck.run(copy_program, {"X": x.astype(">f2")})
    except ck.Error as e:
        assert "byte order" in str(e) or "endian" in str(e), str(e)
    else:
        np.testing.assert_array_equal(out["Z"], x)


def test_func_run_and_compile_take_a_chip_dict():
    x = ck.Input("X", "f32", [4, 64])
    r, c = ck.Var("r"), ck.Var("c")
    f = ck.Func("F")
    f[r, c] = x[r, c] * 2.0
    d = ck.chip().to_dict()
    d["cores"] = 2
    assert ck.compile(f, chip=d).block_dim <= 2
    out, report = f.run({"X": np.ones((4, 64), np.float32)}, chip=d)
    assert report["cores"] <= 2 and np.all(out == 2)


def test_kernels_take_a_chip_dict():
    d = ck.chip().to_dict()
    d["cores"] = 2
    _, report = kernels.relu(np.ones((8, 64), np.float16), chip=d)
    assert report["cores"] <= 2


def test_long_chip_name():
    with pytest.raises(ck.Error, match="unknown chip"):
        ck.chip("ascend" * 60)


def test_matmul_bias_epilogue_without_bias():
    a = np.ones((16, 16), np.float16)
    with pytest.raises(ck.Error, match="no bias array was given"):
        kernels.matmul(a, a, epilogue=["bias"])


def test_matmul_epilogue_as_a_string(rng):
    a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    c, _ = kernels.matmul(a, b, epilogue="relu")
    np.testing.assert_allclose(c, np.maximum(matmul_ref(a, b), 0), rtol=1e-5, atol=1e-5)


def test_matmul_bias_without_the_epilogue_is_not_ignored(rng):
    a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    bias = np.full(16, 100.0, np.float32)
    try:
        c, _ = kernels.matmul(a, b, bias=bias)
    except ck.Error:
        return  # refusing is right too
    np.testing.assert_allclose(c, matmul_ref(a, b) + bias, rtol=1e-5, atol=1e-5)


def test_kernels_timing_only():
    a = np.ones((64, 64), np.float16)
    _, report = kernels.matmul(a, a, timing_only=True)
    assert report["timing_only"] is True


def test_non_ascii_assembly_error_keeps_its_message():
    with pytest.raises(ck.Error) as info:
        ck.assemble(".kernel k\n    li x1, 5\n    vädd x1\n")
    assert str(info.value).startswith("<python>:3:")


def test_comparison_dtype_is_bool():
    x = _f32_input()
    assert (x < 1.0).dtype == "bool"


@pytest.mark.parametrize("make", [
    lambda: ck.Builder("has space"), lambda: ck.Builder("k").tensor("A B", "f16", [16], "inout"),
    lambda: ck.Builder("k").label("my loop"), lambda: ck.Input("my input", "f16", [16]), lambda: ck.Func("my func"),
    lambda: ck.Func("2x")])
def test_names_the_assembly_cannot_read_back_are_refused(make):
    with pytest.raises(ck.Error, match=r"name '.*' cannot be written in assembly text: use a letter or '_' first"):
        make()


def test_names_survive_save_and_load(tmp_path):
    b = ck.Builder("k_v1.2")
    b.tensor("A_b.c", "f16", [16], "inout")
    b.label("_start")
    b.emit("end")
    p = b.finish()
    p.save(str(tmp_path / "p.s"))
    assert ck.load(str(tmp_path / "p.s")).text() == p.text()


def test_huge_input_is_a_user_error():
    r = run_python("""
        import cubekit as ck
        try:
            ck.Input("A", "f32", [2 ** 40])
        except ck.Error as e:
            print("cubekit.Error:", e)
    """, memory_limit=640 << 20, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("cubekit.Error: input tensor 'A' would need more than 17179869184 bytes"), r.stdout


DEEP = """
    import numpy as np, cubekit as ck
    A = ck.Input("A", "f32", [4, 64]); r, c = ck.Var("r"), ck.Var("c")
    e = A[r, c]
    try:
        for _ in range({terms}):
            e = e + 1.0
        F = ck.Func("F"); F[r, c] = e
        F.cores([r])
        out, report = F.run({{"A": np.zeros((4, 64), np.float32)}})
        ref = ck.reference(F, {{"A": np.zeros((4, 64), np.float32)}})
        print("ran", out[0, 0], ref[0, 0], len(report["diagnostics"]))
    except ck.Error as err:
        print("error:", err)
    print("alive")
"""


def test_deep_expression_is_refused_where_it_is_built():
    # 50000 terms used to overflow the stack of the passes (and of the tree's destructor).
    r = run_python(DEEP.format(terms=50000), timeout=120, stack_limit=8 << 20)  # the usual default stack
    assert r.returncode == 0 and "alive" in r.stdout, f"exit code {r.returncode}: {r.stderr[-1000:]}"
    assert r.stdout.startswith("error: an expression is more than 1000 operations deep (at '+')"), r.stdout


def test_expression_just_under_the_depth_limit_compiles_and_runs():
    r = run_python(DEEP.format(terms=998), timeout=120, stack_limit=8 << 20)
    assert r.returncode == 0 and "alive" in r.stdout, f"exit code {r.returncode}: {r.stderr[-1000:]}"
    assert r.stdout.startswith("ran 998.0 998.0 0"), r.stdout


def test_operators_the_dsl_lacks_say_so():
    X, i = ck.Input("X", "f32", [4]), ck.Var("i")
    for build, words in ((lambda: (X[i] > 0) & (X[i] < 1), "no logical and, or or not of conditions: nest selects"),
                         (lambda: ~(X[i] > 0), "no logical and, or or not"),
                         (lambda: i % 3, "the DSL has no %: write i - (i // n) * n"),
                         (lambda: X[i] ** 2, "the DSL has no **: multiply (x * x)")):
        with pytest.raises(ck.Error, match=words.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
            build()

