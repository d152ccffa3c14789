#include "kernels/tuned.h"

#include "emulator/error.h"

#include <nlohmann/json.hpp>

namespace cubekit::kernels {

namespace {

// Reads each parameter into its field; a name not in `fields` is a user error.
template <class Fields>
void apply(const char* kernel, const tune::Params& p, const Fields& fields) {
  for (const auto& [name, value] : p) {
    bool found = false;
    for (const auto& [field, set] : fields)
      if (field == name) set(value), found = true;
    if (!found) user_error("tuning database: {} has no schedule parameter '{}'; tune this problem again", kernel, name);
  }
}

// The key's text; strings the user gave (epilogue names) may be any bytes: invalid UTF-8 is
// replaced, never thrown (the kernel rejects such a name right after the lookup).
std::string key_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

template <class Options>
std::optional<tune::Tuned> take(Options& o, const ChipConfig& chip, const char* kernel, const std::string& key) {
  if (!o.use_tuned || has_overrides(o)) return std::nullopt;
  std::optional<tune::Tuned> t = tune::find_tuned(chip, kernel, key);
  if (t) apply_params(o, t->best.params);
  return t;
}

}  // namespace

std::string problem_key(const MatmulOptions& o) {
  nlohmann::json j = {{"m", o.m}, {"n", o.n}, {"k", o.k}, {"batch", o.batch}, {"in", dtype_name(o.in)},
                      {"out", dtype_name(o.out)}, {"transpose_a", o.transpose_a}, {"transpose_b", o.transpose_b},
                      {"epilogue", o.epilogue}};
  return key_text(j);
}

std::string problem_key(const Conv2dOptions& o) {
  nlohmann::json j = {{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"k", o.k}, {"kh", o.kh}, {"kw", o.kw},
                      {"stride", {o.stride, o.sw()}}, {"pad", {o.pad, o.pw()}}, {"dilation", {o.dilation, o.dw()}},
                      {"groups", o.groups}, {"in", dtype_name(o.in)}, {"out", dtype_name(o.out)},
                      {"epilogue", o.epilogue}, {"subsampled", o.subsampled}};
  return key_text(j);
}

std::string problem_key(const AttentionOptions& o) {
  // A mask's leading 1s broadcast (torch's (1, 1, L, S) is (L, S)): one problem, one key.
  std::vector<int64_t> mask = o.mask;
  while (mask.size() > 2 && mask.front() == 1) mask.erase(mask.begin());
  if (o.score_mod)
    user_error("tune: attention with a score_mod cannot be tuned: the tuning database keys a problem by its options, and a "
               "score_mod is code (softcap can: it is a number)");
  nlohmann::json j = {{"batch", o.batch}, {"heads", o.heads}, {"kv_heads", o.kv_heads ? o.kv_heads : o.heads},
                      {"seq_q", o.seq_q}, {"seq_kv", o.seq_kv ? o.seq_kv : o.seq_q}, {"dim", o.dim},
                      {"causal", o.causal}, {"dtype", dtype_name(o.dtype)}, {"lse", o.lse}, {"mask", mask}};
  if (o.softcap) j["softcap"] = o.softcap;  // (absent when 0: the keys of problems tuned before it stay valid)
  if (o.alibi) j["alibi"] = true;
  if (o.window) j["window"] = o.window;
  return key_text(j);
}

std::string problem_key(const std::string& name, const VectorOptions& o) {
  nlohmann::json j = {{"op", name}, {"shape", o.shape}, {"dtype", dtype_name(o.dtype)}, {"y_shape", o.y_shape},
                      // Y's type when it differs from X's: unset and X's own are one problem (Python gives it
                      // always, the command line and tune only when asked; Python's lookups missed).
                      {"y_dtype", o.y_dtype && *o.y_dtype != o.dtype ? dtype_name(*o.y_dtype) : ""},
                      {"scalar", o.scalar.has_value()},
                      {"scalar_first", o.scalar_first}};
  if (name == "cast") j["to"] = dtype_name(o.to);
  return key_text(j);
}

void apply_params(MatmulOptions& o, const tune::Params& p) {
  using F = std::pair<const char*, std::function<void(int64_t)>>;
  apply("matmul", p, std::vector<F>{{"tm", [&](int64_t v) { o.tm = v; }}, {"tn", [&](int64_t v) { o.tn = v; }},
                                    {"tk_l0", [&](int64_t v) { o.tk_l0 = v; }}, {"tk_l1", [&](int64_t v) { o.tk_l1 = v; }},
                                    {"l1_copies", [&](int64_t v) { o.l1_copies = int(v); }},
                                    {"group", [&](int64_t v) { o.core_group = v; }},
                                    {"stagger", [&](int64_t v) { o.stagger = v != 0; }}});
}

void apply_params(Conv2dOptions& o, const tune::Params& p) {
  using F = std::pair<const char*, std::function<void(int64_t)>>;
  apply("conv2d", p, std::vector<F>{{"rows", [&](int64_t v) { o.rows = v; }}, {"tn", [&](int64_t v) { o.tn = v; }},
                                    {"channels", [&](int64_t v) { o.channels = v; }},
                                    {"l1_copies", [&](int64_t v) { o.l1_copies = int(v); }},
                                    {"images", [&](int64_t v) { o.images = v; }}});
}

void apply_params(AttentionOptions& o, const tune::Params& p) {
  using F = std::pair<const char*, std::function<void(int64_t)>>;
  apply("attention", p, std::vector<F>{{"tile_q", [&](int64_t v) { o.tile_q = v; }},
                                       {"tile_kv", [&](int64_t v) { o.tile_kv = v; }},
                                       {"preload", [&](int64_t v) { o.preload = v; }}});
}

void apply_params(VectorOptions& o, const tune::Params& p) {
  using F = std::pair<const char*, std::function<void(int64_t)>>;
  apply("the vector kernel", p, std::vector<F>{{"tile_rows", [&](int64_t v) { o.tile_rows = v; }},
                                               {"copies", [&](int64_t v) { o.copies = int(v); }}});
}

bool has_overrides(const MatmulOptions& o) {
  return o.schedule != MatmulOptions::Schedule::Default || o.tm || o.tn || o.tk_l0 || o.tk_l1 || o.core_group ||
         o.l1_copies || o.double_buffer || o.use_cores || o.stagger;
}
bool has_overrides(const Conv2dOptions& o) {
  return o.schedule != Conv2dOptions::Schedule::Default || o.rows || o.tn || o.channels || o.l1_copies || o.images ||
         o.double_buffer || o.use_cores;
}
bool has_overrides(const AttentionOptions& o) { return o.tile_q || o.tile_kv || o.preload; }
bool has_overrides(const VectorOptions& o) {
  return o.schedule != VectorOptions::Schedule::Default || o.tile_rows || o.double_buffer || o.use_cores || o.copies;
}

std::optional<tune::Tuned> take_tuned(MatmulOptions& o, const ChipConfig& chip) {
  return take(o, chip, "matmul", problem_key(o));
}
std::optional<tune::Tuned> take_tuned(Conv2dOptions& o, const ChipConfig& chip) {
  return take(o, chip, "conv2d", problem_key(o));
}
std::optional<tune::Tuned> take_tuned(AttentionOptions& o, const ChipConfig& chip) {
  if (o.score_mod) return std::nullopt;  // the key cannot tell one modifier from another
  return take(o, chip, "attention", problem_key(o));
}
std::optional<tune::Tuned> take_tuned(const std::string& name, VectorOptions& o, const ChipConfig& chip) {
  return take(o, chip, name.c_str(), problem_key(name, o));
}

}  // namespace cubekit::kernels
