"""kernels.attention: torch's scaled_dot_product_attention, as flash attention on the cube and vector unit."""

import inspect as _inspect

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._elementwise import array as _array
from ._running import empty_report as _empty_report, raise_diagnostics as _raise_diagnostics, tuned as _tuned
from ._running import running_tuned as _running_tuned

ATTENTION_OVERRIDES = ("tile_q", "tile_kv", "preload")


def _positional_arguments(f):
    """How many positional arguments f requires (0 when Python cannot tell, as for some builtins)."""
    try:
        params = _inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _score_expr(score_mod, s, *index):
    """What score_mod makes of the score s (and its indices b, h, q_idx, kv_idx when it takes them), as
    an Expr (a plain number is a constant)."""
    got = score_mod(s, *index) if _positional_arguments(score_mod) == 5 else score_mod(s)
    if isinstance(got, _cubekit.Expr):
        if got.dtype != "f32":  # the scores and the softmax's statistics are f32
            raise _cubekit.Error(f"attention: score_mod returned an expression of {got.dtype}; the scores are f32, so it "
                                 "must return f32 (drop the cast, or cast back with cubekit.cast('f32', ...))")
        return got
    if _opt.is_real(got):
        return _cubekit.Expr(float(got))
    raise _cubekit.Error(f"attention: score_mod returned {type(got).__name__}; it must return an expression of the score "
                         "(an Expr, from Python's operators and cubekit's exp, select, ...)")


def score_mod_option(score_mod):
    """score_mod as AttentionOptions.score_mod takes it: a function of the score and its four indices
    (None stays None)."""
    if score_mod is None:
        return None
    return lambda s, b, h, q_idx, kv_idx: _score_expr(score_mod, s, b, h, q_idx, kv_idx)


# sched::kLargestScore: the largest |scale q.k| the masks stay apart from (a masked key scores its
# score - 1e30, a key the causal mask or a window hides -2e38).
_LARGEST_SCORE = 1e29


def _check_score_range(kernel, q, k, dtype, scale, reach=None):
    """Refuses a scale under which the scores could outgrow the masks: |scale q.k| is at most |scale|
    times the largest |q_i| times the largest |k_j| (Cauchy-Schwarz); `reach`, given a score_mod,
    what that bound becomes through it."""
    def largest_norm(a):
        x = _cubekit.bf16_to_float32(a) if dtype == "bf16" else a
        return float(_np.sqrt(_np.max(_np.sum(_np.square(x.astype(_np.float64)), axis=-1), initial=0.0)))
    scale = 1 / _np.sqrt(q.shape[3]) if scale is None else scale
    for name, a in (("q", q), ("k", k)):
        if not _np.isfinite(largest_norm(a)):
            raise _cubekit.Error(
                f"{kernel}: {name} holds inf or NaN: with a mask, causal, a window or a score_mod its scores are no numbers the "
                "masks can hide keys from (a masked key scores its score - 1e30); give finite q and k")
    bound = abs(scale) * largest_norm(q) * largest_norm(k)
    if reach is not None and bound < _LARGEST_SCORE:
        modified = reach(bound)
        if modified >= _LARGEST_SCORE:
            raise _cubekit.Error(
                f"{kernel}: score_mod can make scores of {modified:.3g} out of the scaled scores (at most {bound:.3g}: "
                f"|scale| x the largest |q_i| x the largest |k_j|), past {_LARGEST_SCORE:g}, where a masked key (its score "
                "- 1e30) or a key the causal mask or a window hides (-2e38) can outscore the keys a query sees; keep what "
                "score_mod returns within 1e29 of 0 (a key it leaves out: select(.., -inf))")
    if bound >= _LARGEST_SCORE:
        raise _cubekit.Error(
            f"{kernel}: scale {scale:g}: the scaled scores can reach {bound:.3g} (|scale| x the largest |q_i| x the largest "
            f"|k_j|), past {_LARGEST_SCORE:g}, where a masked key (its score - 1e30) or a key the causal mask or a window "
            "hides (-2e38) can outscore the keys a query sees; give a smaller scale, or scale q or k down")


def _input_dtype(kernel, q, k, v):
    """The kernel's dtype from q, k and v: all float16 ("f16"), or all bf16 bit patterns in uint16 ("bf16")."""
    names = {_np.dtype(_np.float16): "f16", _np.dtype(_np.uint16): "bf16"}
    if q.dtype == k.dtype == v.dtype and q.dtype in names:
        return names[q.dtype]
    raise _cubekit.Error(f"{kernel}: q, k and v are {q.dtype}, {k.dtype} and {v.dtype}; they must all be float16, or all "
                         "bf16 as numpy.uint16 bit patterns (cubekit.bf16_from_float32 makes them)")


# torch's scaled_dot_product_attention arguments this spells otherwise, and what to write.
_TORCH_NAMES = {
    "is_causal": "write causal=",
    "enable_gqa": "grouped-query attention needs no switch here: give k and v fewer heads than q, dividing them",
    "dropout_p": "attention here has no dropout (it is inference's); leave it out",
}


def _options(q_shape, k_shape, causal, dtype, scale, softcap, alibi, window, score_mod, return_lse, mask, overrides):
    """The kernel's AttentionOptions; with a mask, `mask` is its array (its shape is what counts)."""
    o = _cubekit.AttentionOptions()
    o.batch, o.heads, o.seq_q, o.dim = q_shape
    o.kv_heads, o.seq_kv = k_shape[1], k_shape[2]
    o.causal, o.dtype = causal, dtype
    o.scale = 0.0 if scale is None else scale
    o.softcap = 0.0 if softcap is None else softcap
    o.alibi = _opt.boolean("attention", "alibi", alibi)
    o.window = _opt.integer("attention", "window", window)
    if score_mod is not None:
        o.score_mod = score_mod_option(score_mod)
    o.lse = return_lse
    if mask is not None:
        o.mask = list(mask.shape)
    for key, value in overrides.items():
        setattr(o, key, value)
    return o


def _mask_without_queries(kernel, mask, full):
    """A mask's stand-in for the options of a run without queries (a batch, head or query extent of
    0): its shape checked against `full`, (batch, heads, L, S), a 0 where `full` has one made a 1."""
    aligned = (1,) * (4 - mask.ndim) + mask.shape
    for d, (m, t) in enumerate(zip(aligned, full)):
        if (t == 0 and m > 1) or (t != 0 and m not in (1, t)) or (d == 3 and m != t):  # the keys' extent is S's
            raise _cubekit.Error(f"{kernel}: attn_mask of shape {mask.shape} does not broadcast to (batch, heads, L, S) = "
                                 f"{tuple(full)}: dim {d} is {m}; give it extent {t}" + (" or 1" if t != 1 and d < 3 else ""))
    return _np.zeros(tuple(1 if t == 0 else m for m, t in zip(aligned, full)), _np.float32)


def attention(q, k, v, *, attn_mask=None, causal=False, scale=None, softcap=None, score_mod=None, alibi=False,
              window=0, return_lse=False,
              chip="ascend910", timing_only=False,
              trace=None, raise_on_diagnostics=False, **overrides):
    """O = softmax(scale * Q Kᵀ) V, as torch.nn.functional.scaled_dot_product_attention computes it.

    q: (batch, heads, L, E) or (heads, L, E), float16, or bf16 as numpy.uint16 bit patterns
    (cubekit.bf16_from_float32; O is then bf16 bits too); k and v: (batch, kv_heads, S, E) of q's
    type, kv_heads dividing heads (grouped-query attention: query head h reads K/V head
    h // (heads // kv_heads), torch's enable_gqa=True). causal=True: query i sees keys 0..i (torch's
    is_causal, the mask's top left on the diagonal). attn_mask: torch's, broadcastable to (batch, heads,
    L, S) with its last dim S: boolean (True: the key takes part) or float (added to the scaled
    scores; computed in float32; below -1e30, -inf included, it counts as -1e30, a False). A row
    whose every key is masked averages V over its keys (under causal=True, over the keys 0..i it
    sees), where torch returns NaN (or 0, with its safe softmax). scale: None is 1 / sqrt(E); any finite
    number but 0 (a negative one as torch's); with a mask, causal, a window or a score_mod, and no
    softcap (which bounds the scores), one that keeps |scale| x the largest |q_i| x the largest |k_j|
    below 1e29 (a masked key scores its score - 1e30: larger scores would outweigh the masks; refused
    with a message). softcap: None, or c > 0 capping each
    scaled score s to c tanh(s / c) before the mask (flash-attn's softcap, Gemma 2's attention logit
    softcapping). score_mod: None, or a function of the scaled score as an Expr returning what it
    becomes, elementwise: score_mod(score), or FlexAttention's score_mod(score, b, h, q_idx, kv_idx)
    with the score's batch, head, query and key as s32 Exprs (cast them to f32 to mix them with the
    score; their arithmetic is exact up to 2^24): built with Python's operators
    and cubekit's exp, log, sqrt, abs, min, max, select, e.g. lambda s: ck.select(s > 5, 5.0, s).
    It is called once, to build the kernel's Funcs; the Halide reference computes the same Funcs.
    Its constants below -1e30 (FlexAttention's -inf for a masked key) count as -1e30, as a mask's
    do. Not with softcap. alibi: ALiBi's bias, each scaled score plus slope_h kv_idx with the slopes
    2^(-8 (h + 1) / heads) (the paper's slope_h (kv_idx - q_idx) less its row's constant, which the
    softmax cancels, as BLOOM's and MPT's add it; return_lse's logsumexp is of these scores), after
    softcap or score_mod, computed on the chip. window: 0 (none), or with causal=True a sliding window of
    that many keys, query i seeing keys i - window + 1 .. i (Mistral's): only the key tiles it reaches
    are read. E is a multiple of
    16 up to 128. The kernel is flash attention (Func.flash): the statistics in float32, P cast to
    q's type for the second product. overrides: tile_q, tile_kv (the flash() tiles), preload (the key
    tiles the cube computes the scores ahead of the softmax on a split chip; 4 by default). Returns (O,
    report), O shaped as q; with return_lse=True (O, lse, report), lse the float32 logsumexp of the
    scaled scores per query, shaped as q without its head dim (what torch's flash kernels return
    beside O: log(sum_j exp(scale * q_i . k_j)), the masked keys left out; a row whose every key is masked
    has lse -1e30 where torch has -inf).
    """
    kernel = "attention"
    _, chip, timing_only, trace, strict = _opt.common(kernel, "default", chip, timing_only, trace, raise_on_diagnostics)
    causal = _opt.boolean(kernel, "causal", causal)
    return_lse = _opt.boolean(kernel, "return_lse", return_lse)
    checked = {}
    for key, value in overrides.items():
        if key in _TORCH_NAMES:
            raise _cubekit.Error(f"{kernel}: {key}= is torch's; {_TORCH_NAMES[key]}")
        if key not in ATTENTION_OVERRIDES:
            raise _cubekit.Error(f"{kernel}: unknown option '{key}'; the options are those of attention's signature (causal=, "
                                 f"scale=, attn_mask=, ...) and the schedule overrides {', '.join(ATTENTION_OVERRIDES)}")
        checked[key] = _opt.integer(kernel, key, value, meaning=" (0: the schedule's choice)")
        if checked[key] < 0:  # C++'s message names the CLI's flags
            _opt.fail(kernel, key, value, "a positive integer (0: the schedule's choice)")
    q, k, v = _array(q, "q"), _array(k, "k"), _array(v, "v")
    mask = None
    if attn_mask is not None:
        if not isinstance(attn_mask, _np.ndarray):
            _opt.fail(kernel, "attn_mask", attn_mask, "a numpy array broadcasting to (batch, heads, L, S), boolean or float")
        mask = _array(attn_mask, "attn_mask")
        if mask.dtype == _np.bool_:
            mask = _np.where(mask, 0.0, -1e30).astype(_np.float32)  # what the kernel adds for a key left out
        elif mask.dtype.kind == "f":
            # Below -1e30 (-inf, finfo.min) is a key left out as a False is: under the causal mask's
            # hidden keys (-2e38), which would otherwise take the softmax of a row whose visible
            # keys are all masked. NaN stays NaN.
            mask = _np.maximum(mask.astype(_np.float32), _np.float32(-1e30))
        else:
            raise _cubekit.Error(f"{kernel}: attn_mask is {mask.dtype}; it must be boolean (True: the key takes part) or float "
                                 "(added to the scaled scores)")
        if not 1 <= mask.ndim <= 4:
            raise _cubekit.Error(f"{kernel}: attn_mask is {mask.ndim}-D; it broadcasts to (batch, heads, L, S) with 1 to 4 dims")
    given = {"q": q.shape, "k": k.shape}  # as the user gave them, for the messages
    squeeze = q.ndim == 3
    if squeeze:
        q, k, v = q[None], k[None] if k.ndim == 3 else k, v[None] if v.ndim == 3 else v
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise _cubekit.Error(f"{kernel}: q, k and v must be (batch, heads, sequence, head dim), or without the batch; "
                             f"got {q.ndim}-D, {k.ndim}-D and {v.ndim}-D")
    dtype = _input_dtype(kernel, q, k, v)
    if k.shape != v.shape:
        raise _cubekit.Error(f"{kernel}: k is {k.shape} and v is {v.shape}; they must have the same shape")
    if q.shape[0] != k.shape[0] or q.shape[3] != k.shape[3]:
        raise _cubekit.Error(f"{kernel}: q is {given['q']} and k {given['k']}: their batch and head dim must be the same"
                             + (" (a 3-D q is one batch)" if squeeze else ""))
    if k.shape[1] == 0 and q.shape[1] != 0:  # (the options' 0 K/V heads mean "as many as q's")
        raise _cubekit.Error(f"{kernel}: k and v have no heads (shape {given['k']}); give them q's {q.shape[1]} heads, or "
                             "fewer that divide them (grouped-query attention)")
    if scale is not None:
        scale = _opt.real(kernel, "scale", scale)
        if scale == 0:  # the options read 0 as "1 / sqrt(E)"
            raise _cubekit.Error(f"{kernel}: scale 0 would weigh every key alike (the mean of V); give a nonzero scale, or "
                                 f"None for 1 / sqrt(E)")
    if softcap is not None:
        softcap = _opt.real(kernel, "softcap", softcap)
        if not softcap > 0:
            raise _cubekit.Error(f"{kernel}: softcap must be positive (None: no capping), got {softcap}")
    if score_mod is not None and not callable(score_mod):
        _opt.fail(kernel, "score_mod", score_mod, "a function of the score's Expr (or None)")
    if score_mod is not None and _positional_arguments(score_mod) not in (0, 1, 5):
        raise _cubekit.Error(
            f"{kernel}: score_mod takes {_positional_arguments(score_mod)} arguments; it takes the score alone, or as "
            "FlexAttention's the score and its indices b, h, q_idx, kv_idx")
    if k.shape[2] == 0:
        raise _cubekit.Error(f"{kernel}: k and v have no keys (shape {k.shape}): a softmax over no keys is undefined")
    options = (causal, dtype, scale, softcap, alibi, window, score_mod, return_lse, mask, checked)
    # A softcap bounds the scores it caps (|c tanh(s / c)| < c <= 1e4): any scale leaves them apart from the masks.
    if (causal or mask is not None or window or score_mod is not None) and softcap is None:
        # A score_mod may scale the scores up: the reach of what it makes of them (interval arithmetic).
        shape = tuple(e or 1 for e in q.shape[:3]) + q.shape[3:]
        reach = (lambda bound: _cubekit.attention_score_reach(_options(shape, k.shape, *options[:8], None, options[9]),
                                                              chip, bound)) if score_mod is not None else None
        _check_score_range(kernel, q, k, dtype, scale, reach)
    if 0 in q.shape[:3]:  # no queries: an empty result, nothing launched, its options checked as a run's
        one = (q.shape[0] or 1, q.shape[1] or k.shape[1] or 1, q.shape[2] or 1, q.shape[3])
        if mask is not None:  # checked against q's own extents; its 0s where q has them are 1s against `one`
            options = options[:8] + (_mask_without_queries(kernel, mask, q.shape[:3] + (k.shape[2],)),) + options[9:]
        _cubekit.attention_func(_options(one, k.shape, *options), chip)
        out = _np.zeros(q.shape, q.dtype)
        report = _empty_report(kernel, q.shape, chip, timing_only)
        if return_lse:
            lse = _np.zeros(q.shape[:3], _np.float32)
            return (out[0] if squeeze else out), (lse[0] if squeeze else lse), report
        return (out[0] if squeeze else out), report
    if mask is not None:
        mask = mask.reshape((1,) * (4 - mask.ndim) + mask.shape)  # as the kernel's input: its leading dims of 1
    func, inputs, lse_func, tuned = _cubekit.attention_func(_options(q.shape, k.shape, *options), chip)
    named = {i.name: a for i, a in zip(inputs, (q, k, v, mask))}
    also = [lse_func] if lse_func is not None else []
    out, report = _running_tuned(tuned, lambda: func.run(named, chip=chip, timing_only=timing_only, trace=trace, also=also))
    report["launched"] = True
    _tuned((out, report), tuned)
    outputs = {func.name: out}
    lse = report.pop("also")[lse_func.name] if lse_func is not None else None
    if lse_func is not None:
        outputs[lse_func.name] = lse
    if strict:
        _raise_diagnostics(func.name, outputs, report)
    out = out[0] if squeeze and out is not None and out.ndim == 4 else out
    if not return_lse:
        return out, report
    return out, (lse[0] if squeeze and lse is not None and lse.ndim == 3 else lse), report
