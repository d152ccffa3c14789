// The schedule calls, for a Func's own schedule and for Schedule values alike (func.h's
// Scheduling). They record the call as written; schedules/ checks and interprets the list when
// the Func is compiled.
#include "dsl/func.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <type_traits>

namespace cubekit::dsl {

namespace {

std::string names(const std::vector<LoopVar>& vars) {
  std::string s;
  for (const LoopVar& v : vars) s += (s.empty() ? "" : ", ") + v.impl->name;
  return s;
}

// A Level made from a number (Python's Level(9), a cast in C++) that names no buffer: refused
// where the call is made, since every later message would name it.
void check_level(Level level, std::string_view call) {
  if (uint8_t(level) > uint8_t(Level::UB))
    user_error("{}: Level({}) is not a buffer level; the levels are Level.GM, L1, L0A, L0B, L0C and UB (0 to 5)", call,
               int(level));
}

}  // namespace

template <class Self>
std::string Scheduling<Self>::subject() const {
  if constexpr (std::is_same_v<Self, Func>) return static_cast<const Self*>(this)->name() + ".";
  else return "";
}

std::string Schedule::str() const {
  std::string s;
  for (const Directive& d : list_) s += "." + d.text;
  return s;
}

template <class Self>
Self& Scheduling<Self>::split(const LoopVar& old, const LoopVar& outer, const LoopVar& inner, int64_t factor) {
  return add({Directive::Kind::Split, {old.impl, outer.impl, inner.impl}, factor, 0, Level::GM, nullptr,
             fmt::format("split({}, {}, {}, {})", old.impl->name, outer.impl->name, inner.impl->name, factor)});
}

template <class Self>
Self& Scheduling<Self>::tile(const Var& x, const Var& y, const Var& xo, const Var& yo, const Var& xi, const Var& yi, int64_t fx,
                                 int64_t fy) {
  split(x, xo, xi, fx);
  split(y, yo, yi, fy);
  return reorder({xi, yi, xo, yo});
}

template <class Self>
Self& Scheduling<Self>::reorder(std::vector<LoopVar> vars) {
  Directive d{Directive::Kind::Reorder, {}, 0, 0, Level::GM, nullptr, fmt::format("reorder({})", names(vars))};
  for (const LoopVar& v : vars) d.vars.push_back(v.impl);
  return add(std::move(d));
}

template <class Self>
Self& Scheduling<Self>::cores(std::vector<LoopVar> vars, int64_t group) {
  std::string text = group == 1 ? fmt::format("cores({})", names(vars)) : fmt::format("cores({}, {})", names(vars), group);
  Directive d{Directive::Kind::Cores, {}, group, 0, Level::GM, nullptr, text};
  for (const LoopVar& v : vars) d.vars.push_back(v.impl);
  return add(std::move(d));
}

template <class Self>
Self& Scheduling<Self>::stage(const Input& input, Level level, const LoopVar& at) {
  check_level(level, subject() + fmt::format("stage({}, ..., {})", input.name(), at.impl->name));
  return add({Directive::Kind::Stage, {at.impl}, 0, 0, level, input.impl,
             fmt::format("stage({}, {}, {})", input.name(), level_name(level), at.impl->name)});
}

template <class Self>
Self& Scheduling<Self>::cube(const Var& mi, const Var& ni, const LoopVar& ki) {
  return add({Directive::Kind::Cube, {mi.impl, ni.impl, ki.impl}, 0, 0, Level::GM, nullptr,
             fmt::format("cube({}, {}, {})", mi.name(), ni.name(), ki.impl->name)});
}

template <class Self>
Self& Scheduling<Self>::store_in(Level level) {
  check_level(level, subject() + "store_in");
  return add({Directive::Kind::StoreIn, {}, 0, 0, level, nullptr, fmt::format("store_in({})", level_name(level))});
}

template <class Self>
Self& Scheduling<Self>::double_buffer() {
  return add({Directive::Kind::DoubleBuffer, {}, 0, 0, Level::GM, nullptr, "double_buffer()"});
}

template <class Self>
Self& Scheduling<Self>::multi_buffer(Level level, int copies) {
  check_level(level, subject() + "multi_buffer");
  return add({Directive::Kind::MultiBuffer, {}, copies, 0, level, nullptr,
             fmt::format("multi_buffer({}, {})", level_name(level), copies)});
}

template <class Self>
Self& Scheduling<Self>::tile_rows(int64_t rows) {
  return add({Directive::Kind::TileRows, {}, rows, 0, Level::GM, nullptr, fmt::format("tile_rows({})", rows)});
}

template <class Self>
Self& Scheduling<Self>::epilogue_of(const Func& producer) {
  // Said here, before the directive is added: a Func holding itself in its schedule would never
  // be freed (compile says the same of a Schedule that names its Func).
  if constexpr (std::is_same_v<Self, Func>)
    if (producer.impl == static_cast<Self*>(this)->impl)
      user_error("{}.epilogue_of({}): a Func is not its own epilogue; epilogue_of() names the contraction (a matmul or a "
                 "convolution) whose tiles {} reads", producer.name(), producer.name(), producer.name());
  Directive d{Directive::Kind::EpilogueOf, {}, 0, 0, Level::GM, nullptr, fmt::format("epilogue_of({})", producer.name())};
  d.func = producer.impl;
  if constexpr (std::is_same_v<Self, Func>) producer.impl->named_by.push_back(static_cast<Self*>(this)->impl);
  return add(std::move(d));
}

template <class Self>
Self& Scheduling<Self>::store_with(const Func& producer) {
  Directive d{Directive::Kind::StoreWith, {}, 0, 0, Level::GM, nullptr, fmt::format("store_with({})", producer.name())};
  d.func = producer.impl;
  if constexpr (std::is_same_v<Self, Func>) producer.impl->named_by.push_back(static_cast<Self*>(this)->impl);
  return add(std::move(d));
}

template <class Self>
Self& Scheduling<Self>::stagger() { return add({Directive::Kind::Stagger, {}, 0, 0, Level::GM, nullptr, "stagger()"}); }


template <class Self>
Self& Scheduling<Self>::flash(int64_t tile_q, int64_t tile_kv, int64_t preload) {
  Directive d{Directive::Kind::Flash, {}, tile_q, tile_kv, Level::GM, nullptr,
              preload ? fmt::format("flash({}, {}, {})", tile_q, tile_kv, preload) : fmt::format("flash({}, {})", tile_q, tile_kv)};
  d.ahead = preload;
  return add(std::move(d));
}

template class Scheduling<Schedule>;
template class Scheduling<Func>;

}  // namespace cubekit::dsl
