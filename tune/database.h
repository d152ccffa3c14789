// The tuning database: what `cubekit tune` found for each (chip, kernel, problem), in SQLite.
//
// A problem is a kernel's shape, types and options without its schedule, as canonical JSON (sorted
// keys); a chip is the hash of its whole configuration (chip_to_json), so a changed config never
// takes another's schedules. Each candidate tried is kept with its cycles (or why it failed), so a
// search that stops can resume without evaluating anything twice; the best schedule of a problem
// is what `cubekit kernel`, kernels::*, default_schedule and Python use from then on.
//
//   meta(key, value)                          schema = cubekit-tuning, version = kSchemaVersion
//   problems(id, chip, chip_name, kernel, problem)
//   candidates(problem, params, cycles, error)   cycles NULL: the candidate failed (error says why)
//   best(problem, params, cycles, default_cycles, evaluated, space, strategy, seed, stopped_by_time)
//        what the search that found the schedule did (a later search that finds nothing better
//        leaves the row as it is)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace cubekit {
struct ChipConfig;
}

namespace cubekit::tune {

// Version 2: best.space counts the default schedule too (as `evaluated` does) and best has
// stopped_by_time; a version 1 file is read as it is and brought to version 2 when written.
inline constexpr int kSchemaVersion = 2;

// A schedule as the tuner sets it: parameter name -> value (booleans 0 and 1), in name order.
using Params = std::map<std::string, int64_t>;
std::string params_json(const Params& p);  // {"tm":128,"tn":64}
Params params_from_json(const std::string& json);
std::string params_text(const Params& p);  // tm=128 tn=64

// The key of a chip: a hash of its whole configuration, as hex.
std::string chip_key(const ChipConfig& chip);
// The hash behind it (FNV-1a, 64 bits): the same on every host, so the search seeds from it too.
uint64_t stable_hash(const std::string& text);

struct Best {
  Params params;
  uint64_t cycles = 0;
  uint64_t default_cycles = 0;  // the default schedule's, measured by the same search
  // Both count candidates, the default schedule included, so evaluated == space when an
  // exhaustive search is complete.
  int64_t evaluated = 0;        // candidates compiled and run
  int64_t space = 0;            // the candidates there are: the default and the points of the grid, or
                                // those the validators pass when an exhaustive search saw them all
  std::string strategy;         // exhaustive or local
  uint64_t seed = 0;
  bool stopped_by_time = false;  // the time limit (--time) ended the search before it was done
};

struct Candidate {
  Params params;
  std::optional<uint64_t> cycles;  // none: it failed
  std::string error;
};

class Database {
 public:
  // Opens the database at `path`: to read only (the lookups of the kernels: nothing is written),
  // to read and write, or creating it (and its folder) when missing. A file that is not a cubekit
  // tuning database, or one of another schema version, is a user error naming the file and the fix.
  enum class Mode : uint8_t { Read, Write, Create };
  static std::unique_ptr<Database> open(const std::string& path, Mode mode);
  // A file of no bytes: an empty database to read (SQLite's own reading of it; `tune` makes one of it),
  // which a read-only open cannot give tables.
  static bool holds_nothing(const std::string& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& path() const { return path_; }
  std::optional<Best> best(const std::string& chip, const std::string& kernel, const std::string& problem);
  // Every candidate tried for the problem, in the order they were recorded.
  std::vector<Candidate> candidates(const std::string& chip, const std::string& kernel, const std::string& problem);
  // Records results in one transaction (as they come: a stopped search keeps them).
  void record(const std::string& chip, const std::string& chip_name, const std::string& kernel,
              const std::string& problem, const std::vector<Candidate>& tried);
  void set_best(const std::string& chip, const std::string& chip_name, const std::string& kernel,
                const std::string& problem, const Best& best);
  // Every best schedule: (kernel, problem, chip_name, best), for `cubekit tune --list`.
  struct Row {
    std::string kernel, problem, chip_name;
    std::string chip;  // chip_key: configs of one name differ by it
    Best best;
  };
  std::vector<Row> all_best();

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  void check_tables_are_ours();
  void check_version(bool read_only);
  void migrate_from_version_1();
  std::string best_columns() const;
  int64_t problem_id(const std::string& chip, const std::string& chip_name, const std::string& kernel,
                     const std::string& problem, bool create);
  sqlite3* db_;
  std::string path_;
  int version_ = kSchemaVersion;  // the file's (a read-only version 1 file stays version 1)
};

// Which database the kernels consult and `cubekit tune` writes, for this process: the one set by
// set_database_path, else $CUBEKIT_TUNING_DB, else one per user ($XDG_CACHE_HOME/cubekit/tuning.db,
// ~/.cache/cubekit/tuning.db). "off" (or an empty setting): none.
std::string database_path();
void set_database_path(const std::string& path);  // "" goes back to the environment's choice
// A user error when database_path() is "off" only because the default has no home (neither
// XDG_CACHE_HOME nor HOME is set: cron, systemd, containers): a search would keep nothing while
// the user asked for no such thing. `how` says how to give a database ("--db FILE").
void check_database_has_a_home(std::string_view how);

// The best schedule the process's database holds for the problem, or none (no database, no file,
// no entry). A file that is no tuning database is a user error.
struct Tuned {
  Best best;
  std::string database;
  std::string str() const;  // "tuned schedule from DB: tm=128 tn=64 (812345 cycles when tuned, default 950000)"
};
std::optional<Tuned> find_tuned(const ChipConfig& chip, const std::string& kernel, const std::string& problem);

}  // namespace cubekit::tune
