// The kernels' side of the tuner (tune/): each kernel's problem as a key of the tuning database
// (its shape, types and options, without the schedule), the schedule parameters a tuned entry
// sets (the options' own overrides), and the lookup the kernels make before they schedule.
//
// A kernel uses a tuned schedule when its options ask for the default schedule, set no override
// and leave `use_tuned` on, and the process's database (tune::database_path) has one for the
// problem on this chip; its result then carries `tuned`, which the CLI and Python report.
#pragma once

#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"
#include "tune/database.h"

#include <optional>
#include <string>

namespace cubekit::kernels {

// Canonical JSON of the problem (sorted keys; defaults resolved: kv_heads, seq_kv, strides).
std::string problem_key(const MatmulOptions& o);
std::string problem_key(const Conv2dOptions& o);
std::string problem_key(const AttentionOptions& o);
std::string problem_key(const std::string& vector_kernel, const VectorOptions& o);

// Sets the options' overrides from tuned parameters; a name the kernel does not have is a user error.
//   matmul: tm tn tk_l0 tk_l1 l1_copies group stagger       conv2d: rows tn channels l1_copies images
//   attention: tile_q tile_kv                               vector kernels: tile_rows copies
void apply_params(MatmulOptions& o, const tune::Params& p);
void apply_params(Conv2dOptions& o, const tune::Params& p);
void apply_params(AttentionOptions& o, const tune::Params& p);
void apply_params(VectorOptions& o, const tune::Params& p);

// Whether the options choose their schedule themselves (naive, or any override set): then no
// tuned schedule is taken.
bool has_overrides(const MatmulOptions& o);
bool has_overrides(const Conv2dOptions& o);
bool has_overrides(const AttentionOptions& o);
bool has_overrides(const VectorOptions& o);

// Runs `build` (a kernel defined with `tuned`'s schedule applied); a user error it raises says the
// schedule came from the tuning database, and what to do: a stale or edited entry read as the
// user's own mistake ("7 output channels per tile is not a multiple of 16").
template <class Build>
auto with_tuned(const std::optional<tune::Tuned>& tuned, Build build) -> decltype(build()) {
  if (!tuned) return build();
  try {
    return build();
  } catch (const UserError& e) {
    user_error("{} (this kernel's schedule, {}, came from the tuning database: if it is at fault, tune the problem again, "
               "or leave the database out: --no-tuned, use_tuned = false in C++)", e.what(), tune::params_text(tuned->best.params));
  }
}

// The lookup: when the options leave the schedule to the kernel, the database's entry for the
// problem, its parameters applied to `o`.
std::optional<tune::Tuned> take_tuned(MatmulOptions& o, const ChipConfig& chip);
std::optional<tune::Tuned> take_tuned(Conv2dOptions& o, const ChipConfig& chip);
std::optional<tune::Tuned> take_tuned(AttentionOptions& o, const ChipConfig& chip);
std::optional<tune::Tuned> take_tuned(const std::string& vector_kernel, VectorOptions& o, const ChipConfig& chip);

}  // namespace cubekit::kernels
