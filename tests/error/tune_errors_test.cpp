// User errors of the tuner (tune/, `cubekit tune`): each bad input and the parts its message must have.
#include "codegen/lower.h"
#include "error_test_util.h"

#include "kernels/tuned.h"
#include "tune/database.h"
#include "tune/search.h"
#include "tune/suites.h"

#include <sqlite3.h>

#include <cstdlib>

namespace cubekit::test {
namespace {

tune::Problem small_matmul() {
  tune::Problem p;
  p.kernel = "matmul";
  p.matmul.m = 64, p.matmul.n = 64, p.matmul.k = 64;
  return p;
}

// Tuning a small matmul with these settings must fail with a message holding every one of `expected`.
void expect_settings_error(const tune::Settings& s, const std::vector<std::string>& expected) {
  tune::Cluster one;
  expect_user_error([&] { tune::tune({small_matmul()}, load_chip("ascend910b2"), s, nullptr, one); }, expected);
}

// How many tables (and indexes) the SQLite file holds.
int table_count(const std::string& path) {
  sqlite3* db = nullptr;
  int n = -1;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK)
    sqlite3_exec(db, "SELECT count(*) FROM sqlite_master",
                 [](void* out, int, char** row, char**) { return *static_cast<int*>(out) = std::atoi(row[0]), 0; }, &n, nullptr);
  sqlite3_close(db);
  return n;
}

// Runs `cubekit ARGS`; the exit code and what it printed on stderr.
std::pair<int, std::string> cli(const std::string& args) {
  std::string command = "timeout 120 '" CUBEKIT_CLI "' " + args + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::string err;
  char buffer[4096];
  for (size_t n; pipe && (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  int status = pipe ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, err};
}

TEST(TuneErrors, UnknownKernel) {
  expect_user_error([] { tune::check_tunable("matmull"); },
                    {"no kernel 'matmull' to tune", "the tunable kernels are matmul, conv2d, attention", "softmax"});
}

TEST(TuneErrors, UnknownSuite) {
  expect_user_error([] { tune::suite("resnet", 8); }, {"no suite 'resnet'", "the suites are resnet50, bert-large"});
}

TEST(TuneErrors, SuiteBatchNotPositive) {
  expect_user_error([] { tune::suite("bert-large", 0); }, {"--suite bert-large", "--batch 0 must be at least 1"});
}

TEST(TuneErrors, DatabaseOfAnotherSchema) {
  TempDir dir("tune_schema");
  const std::string path = (dir.path() / "old.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema', "
                   "'cubekit-tuning'), ('version', '0')", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  expect_user_error([&] { tune::Database::open(path, tune::Database::Mode::Create); },
                    {path, "version '0'", "this cubekit reads 'cubekit-tuning' versions 1 and 2", "tune again into a new file (--db)"});
}

TEST(TuneErrors, FileThatIsNoDatabase) {
  TempDir dir("tune_nodb");
  const std::string path = (dir.path() / "notes.txt").string();
  std::ofstream(path) << "these are my notes, not a database\n";
  expect_user_error([&] { tune::Database::open(path, tune::Database::Mode::Create); }, {path, "not a cubekit tuning database", "--db"});
}

// Another program's SQLite database: tuning into it is refused before anything is written (as
// `tune --list` refuses it), and its tables are left as they were.
TEST(TuneErrors, SqliteFileOfAnotherProgram) {
  TempDir dir("tune_foreign");
  const std::string path = (dir.path() / "other.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  expect_user_error([&] { tune::Database::open(path, tune::Database::Mode::Create); },
                    {path, "SQLite database of something else (tables t, no cubekit meta table)",
                     "not a cubekit tuning database", "give a new or empty file with --db"});
  EXPECT_EQ(table_count(path), 1);
}

// The kernels' lookup reads only: a file that is no database is an error, and is left as it was.
TEST(TuneErrors, KernelsGivenAFileThatIsNoDatabase) {
  TempDir dir("tune_lookup");
  const std::string path = (dir.path() / "notes.db").string();
  std::ofstream(path) << "this is no database\n";  // (a file of no bytes is an empty database: tune makes one of it)
  tune::set_database_path(path);
  expect_user_error([] { kernels::matmul(small_matmul().matmul, load_chip("ascend910b2")); },
                    {path, "not a cubekit tuning database"});
  tune::set_database_path("");
  EXPECT_EQ(std::filesystem::file_size(path), 20u);
}

TEST(TuneErrors, DatabaseThatDoesNotExist) {
  expect_user_error([] { tune::Database::open("/nonexistent/dir/tuning.db", tune::Database::Mode::Read); },
                    {"'/nonexistent/dir/tuning.db' does not exist", "run `cubekit tune` with --db"});
}

// A softmax row longer than UB holds: no tile rows and copies fit, the default's included.
TEST(TuneErrors, SpaceWithNoValidPoint) {
  tune::Problem p;
  p.kernel = "softmax";
  p.vector.shape = {4, 1 << 20};
  p.vector.dtype = DType::f32;
  expect_user_error([&] { tune::space_of(p, load_chip("ascend910b2")); },
                    {"tune softmax", "has no valid point on ascend910b2", "default schedule is rejected", "UB"});
}

TEST(TuneErrors, BudgetTooSmall) {
  tune::Settings s;
  s.budget = 1;
  expect_settings_error(s, {"a budget of 1 is too small", "at least 2"});
}

TEST(TuneErrors, NoBudgetAndNoTime) {
  tune::Settings s;
  s.budget = 0;
  expect_settings_error(s, {"no budget and no time limit", "--budget N", "--time S", "--exhaustive"});
}

TEST(TuneErrors, NegativeThreads) {
  tune::Settings s;
  s.threads = -2;
  expect_settings_error(s, {"tune: -2 threads; give a positive number (0: every core)"});
}

// A problem the kernel itself rejects is reported as the kernel reports it, not as an empty space.
TEST(TuneErrors, ProblemTheKernelRejects) {
  tune::Problem p = small_matmul();
  p.matmul.m = 0;
  expect_user_error([&] { tune::space_of(p, load_chip("ascend910b2")); }, {"matmul: m, n and k must be at least 1"});
}

TEST(TuneErrors, NegativeTime) {
  tune::Settings s;
  s.seconds = -1;
  expect_settings_error(s, {"tune: a time limit of -1 seconds; it must be positive"});
}

TEST(TuneErrors, TunedScheduleWithAnUnknownParameter) {
  TempDir dir("tune_param");
  const std::string path = (dir.path() / "t.db").string();
  const ChipConfig chip = load_chip("ascend910b2");
  tune::Problem p = small_matmul();
  tune::Database::open(path, tune::Database::Mode::Create)->set_best(tune::chip_key(chip), chip.name, "matmul", p.key(),
                                             {{{"tiles", 4}}, 10, 20, 2, 2, "local", 0});
  tune::set_database_path(path);
  expect_user_error([&] { kernels::matmul(p.matmul, chip); }, {"matmul has no schedule parameter 'tiles'", "tune this problem again"});
  tune::set_database_path("");
}

// A stored schedule the kernel refuses (an edited or stale entry) says where it came from.
TEST(TuneErrors, TunedScheduleTheKernelRefuses) {
  TempDir dir("tune_refused");
  const std::string path = (dir.path() / "t.db").string();
  const ChipConfig chip = load_chip("ascend910b2");
  tune::Problem p = small_matmul();
  tune::Database::open(path, tune::Database::Mode::Create)->set_best(tune::chip_key(chip), chip.name, "matmul", p.key(),
                                             {{{"tn", 7}}, 10, 20, 2, 2, "local", 0});
  tune::set_database_path(path);
  expect_user_error([&] {
    kernels::Matmul mm = kernels::matmul(p.matmul, chip);
    kernels::with_tuned(mm.tuned, [&] { return codegen::compile(mm.out, chip); });
  }, {"(this kernel's schedule, tn=7, came from the tuning database: if it is at fault, tune the "
                     "problem again, or leave the database out: --no-tuned, use_tuned = false in C++)"});
  tune::set_database_path("");
}

TEST(TuneErrors, CliWithoutKernelOrSuite) {
  auto [code, err] = cli("tune --db off");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("name a kernel (cubekit tune matmul --m 1024 --n 1024 --k 1024) or a suite"));
}

TEST(TuneErrors, CliKernelAndSuiteTogether) {
  auto [code, err] = cli("tune --db off --suite resnet50 matmul --m 64 --n 64 --k 64");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("give a kernel or --suite, not both"));
}

TEST(TuneErrors, CliUnknownSuite) {
  auto [code, err] = cli("tune --db off --suite vgg16");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("no suite 'vgg16'; the suites are resnet50, bert-large"));
}

// "" would fall back to the default database: a script's unset variable would write into the user's own.
TEST(TuneErrors, CliEmptyDatabasePath) {
  auto [code, err] = cli("tune add --rows 64 --cols 64 --db ''");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("--db '': give the tuning database's file, or off for none"));
}

// A kernel run's --db naming no file: the run went on with the default schedule, its headline the
// only sign of the mistyped path.
TEST(TuneErrors, CliRunWithADatabaseThatDoesNotExist) {
  auto [code, err] = cli("kernel add --rows 64 --cols 64 --db /nonexistent/dir/tuning.db");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("--db /nonexistent/dir/tuning.db: no such file; a kernel run reads the schedules "
                                      "`cubekit tune ... --db /nonexistent/dir/tuning.db` wrote there: tune into it "
                                      "first, or leave --db out (the default database), or give --db off"));
}

// Options that change nothing were taken without a word: --list with a suite listed every row, an
// exhaustive search ran past its --budget.
TEST(TuneErrors, CliListWithSearchOptions) {
  auto [code, err] = cli("tune --list --db off --suite resnet50 --budget 3");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("tune --list prints what the database holds (with --chip, that chip's rows) and "
                                      "takes --db, --chip and --json only; drop --suite, --budget"));
}

TEST(TuneErrors, CliExhaustiveWithABudget) {
  auto [code, err] = cli("tune matmul --m 16 --n 16 --k 16 --exhaustive --budget 3 --db off");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("tune: --exhaustive evaluates every point of the space, so --budget 3 would not "
                                      "limit it; drop one (--time bounds an exhaustive search)"));
}

TEST(TuneErrors, CliBudgetOfZero) {
  auto [code, err] = cli("tune matmul --m 16 --n 16 --k 16 --budget 0 --db off");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, testing::HasSubstr("tune: a budget of 0 is too small; give at least 2 (the default schedule and one "
                                      "candidate), or a time limit alone (--time S, time=S)"));
}

}  // namespace
}  // namespace cubekit::test
