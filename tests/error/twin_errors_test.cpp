// The static `cubekit` and its dynamically linked twin (tools/twin.h): a command that loads a
// module goes on in `cubekit-dynamic` beside it; without the twin, that command says so, while
// the commands that need no module still run.
#include "error_test_util.h"

#include <sys/wait.h>

#include <cstdio>

namespace cubekit::test {
namespace {

using testing::HasSubstr;

// `program ARGS`, bounded as every CLI test is: exit code and stderr.
std::pair<int, std::string> run(const std::filesystem::path& program, const std::string& args) {
  const std::string command = cli_memory_bound() + "timeout 120 '" + program.string() + "' " + args + " 2>&1 1>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  std::string err;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) err.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0), err};
}

// The executable copied alone into a directory of its own: no twin beside it. Empty when this
// build's `cubekit` is dynamic (the sanitizer builds), which has no twin to miss.
class AloneCli : public testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path cli = CUBEKIT_CLI;
    if (!std::filesystem::exists(cli.parent_path() / "cubekit-dynamic")) GTEST_SKIP() << "this build's cubekit is dynamic";
    std::filesystem::copy_file(cli, alone_);
  }
  TempDir dir_{"twin"};
  std::filesystem::path alone_ = dir_.path() / "cubekit";
};

TEST_F(AloneCli, ACheckedKernelWithoutTheTwinSaysWhatIsMissing) {
  auto [code, err] = run(alone_, "kernel add --rows 64 --cols 64");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("this command loads the Halide host reference"));
  EXPECT_THAT(err, HasSubstr("linked statically"));
  EXPECT_THAT(err, HasSubstr((dir_.path() / "cubekit-dynamic").string()));
  EXPECT_THAT(err, HasSubstr("build it (cmake --build build) or install both"));
}

TEST_F(AloneCli, RunsWithoutTheTwinWhatNeedsNoModule) {
  for (const char* args : {"kernel add --rows 64 --cols 64 --no-check", "kernel add --rows 64 --cols 64 --timing-only",
                           "--version", "chips"}) {
    auto [code, err] = run(alone_, args);
    EXPECT_EQ(code, 0) << args << ": " << err;
  }
}

TEST(Twin, ACheckedKernelOfTheStaticCliRunsInItsTwinAndPasses) {
  const std::string out = (std::filesystem::temp_directory_path() / ("cubekit_twin_" + std::to_string(::getpid()))).string();
  const int status = std::system(("'" CUBEKIT_CLI "' kernel add --rows 64 --cols 64 --json > '" + out + "'").c_str());
  std::ifstream in(out);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(out);
  EXPECT_EQ(status, 0) << json;
  EXPECT_THAT(json, HasSubstr("\"pass\": true"));
}

}  // namespace
}  // namespace cubekit::test
