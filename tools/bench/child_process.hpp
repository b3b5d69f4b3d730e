// child_process.hpp — the helper programs `bp bench` runs for its baselines
// (bp-bench-torch, bp-bench-mpi under mpirun): found beside the running bp,
// run with their standard output captured.
#pragma once

#include <string>
#include <vector>

namespace bptool::bench {

// The directory of the running executable, "" when /proc cannot tell.
std::string own_directory();

// Runs argv (argv[0] a path), its standard output captured into *out, its
// standard error left to ours; false with *why when it cannot be run or does
// not exit with status 0.
bool run_capturing(const std::vector<std::string> &argv, std::string *out, std::string *why);

}  // namespace bptool::bench
