#include "tune/database.h"

#include "emulator/chip_config.h"
#include "emulator/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace cubekit::tune {

namespace {

constexpr const char* kSchemaName = "cubekit-tuning";

// One prepared statement, finalised on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  bool step() {  // true: a row
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail("step");
    return false;
  }
  void run() {
    step();
    sqlite3_reset(s_);
  }
  int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }
  bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const unsigned char* t = sqlite3_column_text(s_, c);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    user_error("tuning database: {} failed: {} ({}); is the file a cubekit tuning database on a writable disk?", what,
               sqlite3_errmsg(db_), sqlite3_db_filename(db_, "main") ? sqlite3_db_filename(db_, "main") : "?");
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const char* sql, const std::string& path) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "unknown error";
    sqlite3_free(err);
    user_error("tuning database '{}': {}; it is not a cubekit tuning database (or it is damaged, or cannot be written): "
               "give another file with --db (Python: cubekit.set_tuning_db(path), or db= of cubekit.tune), or run without one "
               "(--db off, CUBEKIT_TUNING_DB=off, cubekit.set_tuning_db('off'))", path, m);
  }
}

Best best_of(const Statement& s, int first) {
  Best b;
  b.params = params_from_json(s.text(first));
  b.cycles = uint64_t(s.integer(first + 1));
  b.default_cycles = uint64_t(s.integer(first + 2));
  b.evaluated = s.integer(first + 3);
  b.space = s.integer(first + 4);
  b.strategy = s.text(first + 5);
  b.seed = uint64_t(s.integer(first + 6));
  b.stopped_by_time = s.integer(first + 7) != 0;
  return b;
}

}  // namespace

std::string params_json(const Params& p) { return nlohmann::json(p).dump(); }

Params params_from_json(const std::string& json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) user_error("tuning database: a schedule's parameters are not a JSON object: '{}'", json);
  Params p;
  for (auto& [k, v] : j.items()) {
    if (!v.is_number_integer()) user_error("tuning database: parameter '{}' is not an integer in '{}'", k, json);
    p[k] = v.get<int64_t>();
  }
  return p;
}

std::string params_text(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s.empty() ? "(the default)" : s;
}

uint64_t stable_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string chip_key(const ChipConfig& chip) { return fmt::format("{:016x}", stable_hash(chip_to_json(chip, -1))); }

bool Database::holds_nothing(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 && !ec;
}

std::unique_ptr<Database> Database::open(const std::string& path, Mode mode) {
  const bool create = mode == Mode::Create;
  if (path.empty() || path == "off") user_error("tuning database: no file given (the setting is '{}'); pass --db FILE", path);
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!create && !fs::exists(path, ec))
    user_error("tuning database '{}' does not exist; run `cubekit tune` with --db {} first", path, path);
  if (create && fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
  sqlite3* db = nullptr;
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                     : mode == Mode::Write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    std::string m = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    user_error("tuning database '{}' cannot be opened: {}; give a writable file with --db", path, m);
  }
  std::unique_ptr<Database> d(new Database(db, path));
  sqlite3_busy_timeout(db, 60000);  // MPI ranks and parallel runs: wait for another writer
  if (mode == Mode::Read) {  // nothing written: a file without the tables is not a tuning database
    exec(db, "SELECT count(*) FROM meta", path);
  } else {
    d->check_tables_are_ours();
    exec(db, "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)", path);
  }
  d->check_version(mode == Mode::Read);
  if (mode == Mode::Read) return d;
  if (d->version_ == 1) d->migrate_from_version_1();
  exec(db,
       "CREATE TABLE IF NOT EXISTS problems(id INTEGER PRIMARY KEY, chip TEXT NOT NULL, chip_name TEXT NOT NULL, "
       "  kernel TEXT NOT NULL, problem TEXT NOT NULL, UNIQUE(chip, kernel, problem));"
       "CREATE TABLE IF NOT EXISTS candidates(problem INTEGER NOT NULL REFERENCES problems(id), seq INTEGER NOT NULL, "
       "  params TEXT NOT NULL, cycles INTEGER, error TEXT NOT NULL DEFAULT '', PRIMARY KEY(problem, params));"
       "CREATE TABLE IF NOT EXISTS best(problem INTEGER PRIMARY KEY REFERENCES problems(id), params TEXT NOT NULL, "
       "  cycles INTEGER NOT NULL, default_cycles INTEGER NOT NULL, evaluated INTEGER NOT NULL, space INTEGER NOT NULL, "
       "  strategy TEXT NOT NULL, seed INTEGER NOT NULL, stopped_by_time INTEGER NOT NULL DEFAULT 0);",
       path);
  return d;
}

// Before writing anything: a file that already holds tables but no meta table is another
// program's SQLite database, and adding ours next to its tables would mix the two.
void Database::check_tables_are_ours() {
  exec(db_, "SELECT count(*) FROM sqlite_master", path_);  // a file that is no SQLite database at all
  Statement s(db_, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  std::vector<std::string> tables;
  while (s.step()) tables.push_back(s.text(0));
  if (tables.empty() || std::find(tables.begin(), tables.end(), "meta") != tables.end()) return;
  user_error("tuning database '{}' is an SQLite database of something else (tables {}, no cubekit meta table); it is "
             "not a cubekit tuning database and is left as it is: give a new or empty file with --db",
             path_, fmt::join(tables, ", "));
}

// The meta table names the schema and its version: an empty one is a new database (written
// here unless read-only), another schema or a version this cubekit does not know is an error.
void Database::check_version(bool read_only) {
  Statement s(db_, "SELECT key, value FROM meta");
  std::map<std::string, std::string> meta;
  while (s.step()) meta[s.text(0)] = s.text(1);
  if (meta.empty() && read_only)
    user_error("tuning database '{}' is empty; it is not a cubekit tuning database: tune into it first (--db)", path_);
  if (meta.empty()) {
    exec(db_, fmt::format("INSERT INTO meta VALUES ('schema', '{}'), ('version', '{}')", kSchemaName, kSchemaVersion).c_str(), path_);
    version_ = kSchemaVersion;
    return;
  }
  if (meta["schema"] != kSchemaName || (meta["version"] != "1" && meta["version"] != std::to_string(kSchemaVersion)))
    user_error("tuning database '{}' has schema '{}' version '{}', this cubekit reads '{}' versions 1 and {}; tune again "
               "into a new file (--db) or delete this one", path_, meta["schema"], meta["version"], kSchemaName, kSchemaVersion);
  version_ = std::stoi(meta["version"]);
}

// Version 1 counted best.space without the default schedule and had no stopped_by_time. In one
// transaction, the version read again inside it: two processes opening the file at once migrate it once.
void Database::migrate_from_version_1() {
  exec(db_, "BEGIN IMMEDIATE", path_);
  try {
    bool still_1 = false, has_best = false;
    {
      Statement s(db_, "SELECT value = '1' FROM meta WHERE key = 'version'");
      still_1 = s.step() && s.integer(0);
    }
    {
      Statement s(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'best'");
      has_best = s.step() && s.integer(0);
    }
    if (still_1 && has_best)
      exec(db_, "ALTER TABLE best ADD COLUMN stopped_by_time INTEGER NOT NULL DEFAULT 0; UPDATE best SET space = space + 1", path_);
    if (still_1) exec(db_, fmt::format("UPDATE meta SET value = '{}' WHERE key = 'version'", kSchemaVersion).c_str(), path_);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec(db_, "COMMIT", path_);
  version_ = kSchemaVersion;
}

// The columns best_of reads, as a version 1 file (opened read-only, so not migrated) gives them.
std::string Database::best_columns() const {
  if (version_ == 1) return "b.params, b.cycles, b.default_cycles, b.evaluated, b.space + 1, b.strategy, b.seed, 0";
  return "b.params, b.cycles, b.default_cycles, b.evaluated, b.space, b.strategy, b.seed, b.stopped_by_time";
}

Database::~Database() { sqlite3_close(db_); }

int64_t Database::problem_id(const std::string& chip, const std::string& chip_name, const std::string& kernel,
                             const std::string& problem, bool create) {
  {
    Statement s(db_, "SELECT id FROM problems WHERE chip = ?1 AND kernel = ?2 AND problem = ?3");
    s.bind(1, chip).bind(2, kernel).bind(3, problem);
    if (s.step()) return s.integer(0);
  }
  if (!create) return -1;
  Statement s(db_, "INSERT INTO problems(chip, chip_name, kernel, problem) VALUES (?1, ?2, ?3, ?4)");
  s.bind(1, chip).bind(2, chip_name).bind(3, kernel).bind(4, problem).run();
  return sqlite3_last_insert_rowid(db_);
}

std::optional<Best> Database::best(const std::string& chip, const std::string& kernel, const std::string& problem) {
  const std::string sql = "SELECT " + best_columns() +
                          " FROM best b JOIN problems p ON p.id = b.problem WHERE p.chip = ?1 AND p.kernel = ?2 AND p.problem = ?3";
  Statement s(db_, sql.c_str());
  s.bind(1, chip).bind(2, kernel).bind(3, problem);
  if (!s.step()) return std::nullopt;
  return best_of(s, 0);
}

std::vector<Candidate> Database::candidates(const std::string& chip, const std::string& kernel, const std::string& problem) {
  Statement s(db_,
              "SELECT c.params, c.cycles, c.error FROM candidates c JOIN problems p ON p.id = c.problem "
              "WHERE p.chip = ?1 AND p.kernel = ?2 AND p.problem = ?3 ORDER BY c.seq");
  s.bind(1, chip).bind(2, kernel).bind(3, problem);
  std::vector<Candidate> out;
  while (s.step()) {
    Candidate c{params_from_json(s.text(0)), std::nullopt, s.text(2)};
    if (!s.null(1)) c.cycles = uint64_t(s.integer(1));
    out.push_back(std::move(c));
  }
  return out;
}

void Database::record(const std::string& chip, const std::string& chip_name, const std::string& kernel,
                      const std::string& problem, const std::vector<Candidate>& tried) {
  if (tried.empty()) return;
  exec(db_, "BEGIN IMMEDIATE", path_);
  try {
    int64_t id = problem_id(chip, chip_name, kernel, problem, true);
    int64_t seq = 0;
    {
      Statement s(db_, "SELECT COALESCE(MAX(seq), -1) + 1 FROM candidates WHERE problem = ?1");
      s.bind(1, id);
      if (s.step()) seq = s.integer(0);
    }
    Statement ins(db_, "INSERT OR IGNORE INTO candidates(problem, seq, params, cycles, error) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const Candidate& c : tried) {
      ins.bind(1, id).bind(2, seq++).bind(3, params_json(c.params)).bind(5, c.error);
      if (c.cycles) ins.bind(4, int64_t(*c.cycles));
      else ins.bind_null(4);
      ins.run();
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec(db_, "COMMIT", path_);
}

void Database::set_best(const std::string& chip, const std::string& chip_name, const std::string& kernel,
                        const std::string& problem, const Best& b) {
  int64_t id = problem_id(chip, chip_name, kernel, problem, true);
  Statement s(db_, "INSERT OR REPLACE INTO best(problem, params, cycles, default_cycles, evaluated, space, strategy, seed, "
                   "stopped_by_time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  s.bind(1, id).bind(2, params_json(b.params)).bind(3, int64_t(b.cycles)).bind(4, int64_t(b.default_cycles));
  s.bind(5, b.evaluated).bind(6, b.space).bind(7, b.strategy).bind(8, int64_t(b.seed));
  s.bind(9, int64_t(b.stopped_by_time)).run();
}

std::vector<Database::Row> Database::all_best() {
  const std::string sql = "SELECT p.kernel, p.problem, p.chip_name, p.chip, " + best_columns() +
                          " FROM best b JOIN problems p ON p.id = b.problem ORDER BY p.id";
  Statement s(db_, sql.c_str());
  std::vector<Row> rows;
  while (s.step()) rows.push_back({s.text(0), s.text(1), s.text(2), s.text(3), best_of(s, 4)});
  return rows;
}

namespace {
std::mutex g_path_mutex;
std::string g_path;  // set_database_path's, or empty
}  // namespace

std::string database_path() {
  {
    std::lock_guard lock(g_path_mutex);
    if (!g_path.empty()) return g_path;
  }
  if (const char* env = std::getenv("CUBEKIT_TUNING_DB")) return *env ? std::string(env) : std::string("off");
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/cubekit/tuning.db";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/cubekit/tuning.db";
  return "off";
}

void check_database_has_a_home(std::string_view how) {
  {
    std::lock_guard lock(g_path_mutex);
    if (!g_path.empty()) return;
  }
  if (std::getenv("CUBEKIT_TUNING_DB")) return;
  for (const char* var : {"XDG_CACHE_HOME", "HOME"})
    if (const char* v = std::getenv(var); v && *v) return;
  user_error("tune: no tuning database to keep the results in: neither HOME nor XDG_CACHE_HOME is set, so there is no "
             "default ~/.cache/cubekit/tuning.db; give one ({}, or CUBEKIT_TUNING_DB=FILE), or 'off' to tune without "
             "keeping", how);
}

void set_database_path(const std::string& path) {
  std::lock_guard lock(g_path_mutex);
  g_path = path;
}

std::string Tuned::str() const {
  return fmt::format("tuned schedule from {}: {} ({} cycles when tuned, the default's {})", database,
                     params_text(best.params), best.cycles, best.default_cycles);
}

std::optional<Tuned> find_tuned(const ChipConfig& chip, const std::string& kernel, const std::string& problem) {
  std::string path = database_path();
  std::error_code ec;
  if (path == "off" || !std::filesystem::exists(path, ec) || Database::holds_nothing(path)) return std::nullopt;
  std::unique_ptr<Database> db = Database::open(path, Database::Mode::Read);
  std::optional<Best> b = db->best(chip_key(chip), kernel, problem);
  if (!b) return std::nullopt;
  return Tuned{*b, path};
}

}  // namespace cubekit::tune
