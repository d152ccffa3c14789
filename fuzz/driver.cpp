// A small libFuzzer stand-in, linked with each fuzz target when the compiler has no libFuzzer (the
// normal g++ build; see fuzz/README.md). It takes libFuzzer's command line:
//
//   fuzz_asm [-runs=N] [-max_total_time=S] [-seed=N] [-timeout=S] [-max_len=N] [-dict=FILE]
//            [-artifact_prefix=P] DIR_OR_FILE...
//
// With directories it runs every file in them, then mutations of those files -- bit flips, byte
// changes, inserts, deletes, copies, splices of two inputs, dictionary tokens, "interesting"
// numbers in place of the digits of a number, line deletes and duplicates -- drawn from a seeded
// generator (the same seed gives the same inputs), until -runs mutations or -max_total_time
// seconds. With files only it runs just those files (as libFuzzer does). No coverage feedback: the
// mutations stay near the seeds, which is why the corpora are seeded widely.
//
// A finding is a deadly signal (a crash, an abort from a target's check, a sanitizer report) or
// one input taking more than -timeout seconds of CPU time: the input is written to
// <artifact_prefix>crash-<hash> (or timeout-<hash>) and the process dies with a non-zero status.
// At the end it prints libFuzzer's "Done N runs in S second(s)".
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

using Bytes = std::string;
using Clock = std::chrono::steady_clock;

struct Options {
  int64_t runs = -1;           // mutations after the corpus; -1: until the time bound
  double max_total_time = 0;   // seconds; 0: no bound
  uint64_t seed = 1;
  double timeout = 1200;       // seconds per input
  size_t max_len = 1 << 20;    // of a mutated input
  std::string dict, artifact_prefix;
  std::vector<std::string> inputs;
};

// ---- the input being run, for the signal handlers and the watchdog ----------------------------

const Bytes* g_current = nullptr;
char g_current_name[512] = "";
std::atomic<int64_t> g_started_ns{0};  // the process's CPU time when the current input started; 0: none running

// CPU time, not wall time: on a shared, loaded machine (the suite's other tests, a build) a slow
// input is not a hang; one that burns the timeout in CPU seconds is.
int64_t cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec + 1;  // never 0
}
std::string g_artifact_prefix;

uint64_t fnv1a(const Bytes& b) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : b) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Async-signal-safe enough: open/write/close and snprintf into a stack buffer.
void write_artifact(const char* kind) {
  if (!g_current) return;
  char path[1024];
  snprintf(path, sizeof path, "%s%s-%016" PRIx64, g_artifact_prefix.c_str(), kind, fnv1a(*g_current));
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t ignored = write(fd, g_current->data(), g_current->size());
    (void)ignored;
    close(fd);
  }
  char line[2048];
  int n = snprintf(line, sizeof line, "==fuzz driver: %s while running %s (%zu bytes); the input is in %s\n", kind,
                   g_current_name, g_current->size(), path);
  ssize_t ignored = write(2, line, size_t(std::min(n, int(sizeof line) - 1)));
  (void)ignored;
}

void on_deadly_signal(int sig) {
  char line[128];
  int n = snprintf(line, sizeof line, "==fuzz driver: deadly signal %d (%s)\n", sig, strsignal(sig));
  ssize_t ignored = write(2, line, size_t(n));
  (void)ignored;
  write_artifact("crash");
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_sanitizer_death() { write_artifact("crash"); }

void install_handlers() {
  // The regex stack overflows we look for need an alternate stack to report from.
  static std::vector<char> alt_stack(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt_stack.data();
  ss.ss_size = alt_stack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_deadly_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
}

// Kills the process when one input runs past the timeout: a hang is a finding.
void start_watchdog(double timeout) {
  std::thread([timeout] {
    const int64_t limit_ns = int64_t(timeout * 1e9);
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int64_t started = g_started_ns.load();
      if (started != 0 && cpu_ns() - started > limit_ns) {
        fprintf(stderr, "==fuzz driver: timeout: one input took more than %g s of CPU time\n", timeout);
        write_artifact("timeout");
        _exit(70);
      }
    }
  }).detach();
}

void run_one(const Bytes& input, const std::string& name) {
  g_current = &input;
  snprintf(g_current_name, sizeof g_current_name, "%s", name.c_str());
  g_started_ns = cpu_ns();
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_started_ns = 0;
  g_current = nullptr;
}

// ---- inputs ------------------------------------------------------------------------------------

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Seed {
  std::string name;
  Bytes bytes;
};

std::vector<Seed> load_corpus(const std::vector<std::string>& inputs) {
  std::vector<Seed> seeds;
  for (const std::string& in : inputs) {
    std::filesystem::path p(in);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // the same order everywhere: runs are reproducible
      for (const auto& f : files) seeds.push_back({f.string(), read_file(f)});
    } else if (std::filesystem::is_regular_file(p)) {
      seeds.push_back({p.string(), read_file(p)});
    } else {
      fprintf(stderr, "==fuzz driver: no such file or directory: %s\n", in.c_str());
      exit(2);
    }
  }
  return seeds;
}

// libFuzzer/AFL dictionary lines: `name="value"` or `"value"`, with \\, \" and \xNN escapes.
std::vector<Bytes> load_dictionary(const std::string& path) {
  std::vector<Bytes> tokens;
  if (path.empty()) return tokens;
  std::ifstream in(path);
  if (!in) {
    fprintf(stderr, "==fuzz driver: cannot read the dictionary %s\n", path.c_str());
    exit(2);
  }
  for (std::string line; std::getline(in, line);) {
    size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
    Bytes token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] != '\\' || i + 1 >= close) {
        token += line[i];
      } else if (line[i + 1] == 'x' && i + 3 < close) {
        token += char(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else {
        token += line[++i];
      }
    }
    tokens.push_back(token);
  }
  return tokens;
}

// ---- mutations ---------------------------------------------------------------------------------

// Numbers at the edges where sizes, counts and conversions break.
const char* const kInterestingNumbers[] = {
    "0", "1", "-1", "2", "7", "16", "31", "32", "255", "256", "1023", "1024", "65535", "65536", "2147483647",
    "2147483648", "-2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "18446744073709551615", "1e999", "-1e999", "1e-300", "1e308", "0.5", "nan", "-0"};

class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<Bytes> dictionary, size_t max_len)
      : rng_(seed), dictionary_(std::move(dictionary)), max_len_(max_len) {}

  Bytes mutate(const Bytes& seed, const std::vector<Seed>& corpus) {
    Bytes b = seed;
    int count = 1 + int(below(4));
    for (int i = 0; i < count; ++i) mutate_once(b, corpus);
    if (b.size() > max_len_) b.resize(max_len_);
    return b;
  }

  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }

 private:
  size_t position(const Bytes& b) { return size_t(below(b.size() + 1)); }

  void mutate_once(Bytes& b, const std::vector<Seed>& corpus) {
    switch (below(11)) {
      case 0:  // flip a bit
        if (!b.empty()) b[below(b.size())] ^= char(1 << below(8));
        break;
      case 1:  // a random byte
        if (!b.empty()) b[below(b.size())] = char(below(256));
        break;
      case 2: {  // insert 1-4 random bytes
        Bytes ins(1 + below(4), '\0');
        for (char& c : ins) c = char(below(256));
        b.insert(position(b), ins);
        break;
      }
      case 3: {  // delete a range
        if (b.empty()) break;
        size_t at = below(b.size());
        b.erase(at, 1 + below(std::min<size_t>(64, b.size() - at)));
        break;
      }
      case 4: {  // copy a range elsewhere
        if (b.empty()) break;
        size_t from = below(b.size());
        Bytes piece = b.substr(from, 1 + below(std::min<size_t>(128, b.size() - from)));
        b.insert(position(b), piece);
        break;
      }
      case 5: {  // splice: this one's prefix, another input's suffix
        const Bytes& other = corpus[below(corpus.size())].bytes;
        b = b.substr(0, position(b)) + other.substr(below(other.size() + 1));
        break;
      }
      case 6:
      case 7:  // a dictionary token, inserted or over the bytes there
        if (dictionary_.empty()) break;
        {
          const Bytes& t = dictionary_[below(dictionary_.size())];
          size_t at = position(b);
          if (below(2)) b.insert(at, t);
          else b.replace(at, std::min(t.size(), b.size() - at), t);
        }
        break;
      case 8:
        replace_number(b);
        break;
      case 9:
      case 10:
        mutate_line(b);
        break;
    }
  }

  // The digits of a number somewhere after a random point become an interesting number.
  void replace_number(Bytes& b) {
    size_t at = position(b);
    while (at < b.size() && !isdigit(static_cast<unsigned char>(b[at]))) ++at;
    if (at == b.size()) return;
    size_t end = at;
    while (end < b.size() && (isalnum(static_cast<unsigned char>(b[end])) || b[end] == '.')) ++end;
    if (at > 0 && b[at - 1] == '-') --at;
    b.replace(at, end - at, kInterestingNumbers[below(std::size(kInterestingNumbers))]);
  }

  // Text inputs (programs, JSON, command lines) break at lines: delete, duplicate or swap one.
  void mutate_line(Bytes& b) {
    if (!b.empty() && b.back() != '\n') b += '\n';
    std::vector<std::string> lines;
    for (size_t at = 0; at < b.size();) {
      size_t end = b.find('\n', at);
      lines.push_back(b.substr(at, end + 1 - at));
      at = end + 1;
    }
    if (lines.empty()) return;
    size_t i = below(lines.size()), j = below(lines.size());
    switch (below(3)) {
      case 0: lines.erase(lines.begin() + long(i)); break;
      case 1: lines.insert(lines.begin() + long(j), lines[i]); break;
      case 2: std::swap(lines[i], lines[j]); break;
    }
    b.clear();
    for (const std::string& l : lines) b += l;
  }

  std::mt19937_64 rng_;
  std::vector<Bytes> dictionary_;
  size_t max_len_;
};

// ---- the command line --------------------------------------------------------------------------

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      size_t n = strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("-runs=")) o.runs = std::atoll(v);
    else if (const char* v = value("-max_total_time=")) o.max_total_time = std::atof(v);
    else if (const char* v = value("-seed=")) o.seed = std::strtoull(v, nullptr, 10);
    else if (const char* v = value("-timeout=")) o.timeout = std::atof(v);
    else if (const char* v = value("-max_len=")) o.max_len = size_t(std::atoll(v));
    else if (const char* v = value("-dict=")) o.dict = v;
    else if (const char* v = value("-artifact_prefix=")) o.artifact_prefix = v;
    else if (a.size() > 1 && a[0] == '-') fprintf(stderr, "==fuzz driver: ignoring the libFuzzer flag %s\n", a.c_str());
    else o.inputs.push_back(a);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  if (o.inputs.empty()) {
    fprintf(stderr, "usage: %s [-runs=N] [-max_total_time=S] [-seed=N] [-timeout=S] [-max_len=N] [-dict=FILE] "
                    "[-artifact_prefix=P] DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  g_artifact_prefix = o.artifact_prefix;
  install_handlers();
  start_watchdog(o.timeout);

  bool files_only = std::all_of(o.inputs.begin(), o.inputs.end(),
                                [](const std::string& p) { return !std::filesystem::is_directory(p); });
  std::vector<Seed> corpus = load_corpus(o.inputs);
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  int64_t runs = 0;
  for (const Seed& s : corpus) {
    run_one(s.bytes, s.name);
    ++runs;
  }
  fprintf(stderr, "==fuzz driver: ran %zu corpus inputs in %.1f s\n", corpus.size(), elapsed());
  if (!files_only && !corpus.empty()) {
    Mutator mutator(o.seed, load_dictionary(o.dict), o.max_len);
    for (int64_t i = 0; o.runs < 0 || i < o.runs; ++i) {
      if (o.max_total_time > 0 && elapsed() >= o.max_total_time) break;
      const Seed& seed = corpus[mutator.below(corpus.size())];
      Bytes input = mutator.mutate(seed.bytes, corpus);
      run_one(input, "mutation " + std::to_string(i) + " of " + seed.name + " (-seed=" + std::to_string(o.seed) + ")");
      ++runs;
    }
  }
  // libFuzzer's last line, which scripts/sanitize.sh reads for either engine.
  fprintf(stderr, "Done %" PRId64 " runs in %d second(s)\n", runs, int(elapsed()));
  return 0;
}
