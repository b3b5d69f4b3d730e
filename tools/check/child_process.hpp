// The child processes of `bp check`: this same executable re-run as
// `<exe> check <args...>` with its result pipe on fd 3, its stdout and
// stderr captured, in a process group of its own (killed on timeout), and
// killed when the parent dies (PR_SET_PDEATHSIG). Each result line is kept
// to a bounded length.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bpcheck {

struct ChildRun {
  std::vector<std::pair<char, std::string>> events;  // the lines of fd 3: kind, text
  std::string output_tail;
  bool exited = false, timed_out = false;
  int exit_code = -1, signal = 0;
  double seconds = 0;
};

ChildRun run_child(const std::vector<std::string> &args, int timeout_s);

}  // namespace bpcheck
