// peak_rss OUT COMMAND [ARGS...]: runs COMMAND and writes "SECONDS PEAK_KB EXIT" to OUT: its wall
// time from fork to exit, its peak resident memory, and its exit status (128 + N: killed by N).
//
// Why not the parent's own wait4: Linux carries a process's peak over into the program it execs, so
// a command started by Python reports at least Python's peak (bench/emulator.py read 13.8 MB for
// every 10 MB run, and a 400 MB ballast in the parent showed in every row). Forked from this small
// program, a command's peak starts at this program's few hundred KB.
//
// Started by posix_spawn (a vfork), not fork: a fork copies this program's page tables and the exec
// tears them down again, about a millisecond of every measurement on a virtual machine (a process
// of /bin/true measured 4.2 ms forked, 3.1 ms spawned), charged to the command measured.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

extern char** environ;

namespace {
double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss OUT COMMAND [ARGS...]\n");
    return 2;
  }
  const double start = now();
  pid_t child = 0;
  if (const int error = posix_spawnp(&child, argv[2], nullptr, nullptr, argv + 2, environ)) {
    std::fprintf(stderr, "peak_rss: %s: %s\n", argv[2], std::strerror(error));
    return 2;
  }
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) < 0) {
    std::perror("peak_rss: wait4");
    return 2;
  }
  const double seconds = now() - start;
  const int exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  std::FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::perror(argv[1]);
    return 2;
  }
  std::fprintf(out, "%.6f %ld %d\n", seconds, usage.ru_maxrss, exit);
  return std::fclose(out) == 0 ? 0 : 2;
}
