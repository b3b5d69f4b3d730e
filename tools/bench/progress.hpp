// progress.hpp — `bp bench`'s progress on standard error: a line for each
// step of a figure and for each measurement phase expected to take a second
// or more, and a heartbeat that names the running phase whenever a second
// has passed without a line (kernel builds on first use, slow devices): a
// run never goes silent for long. Lines are written with write(2), never
// stdio, so that a fork() while the heartbeat writes cannot leave the child
// waiting on a stdio lock.
#pragma once

#include <string>

namespace bptool::bench::progress {

// While one exists: the heartbeat thread runs, and timing.cpp's compare()
// and measure() report their phases here.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
};

// A new step ("gemm: opencl:0 float32 n=1024"), printed at once.
void step(const std::string &what);
// A phase of the current step ("timing 5 batches each"); printed at once
// when expected_s >= 1 (NaN: unknown, left to the heartbeat).
void phase(const std::string &what, double expected_s);
// The current step goes to a child program that prints its own progress
// (bp-bench-direct): the line is erased and the heartbeat stays silent
// until the next step.
void hand_over();
// Before a row goes to standard output: on a terminal, the line is erased
// (the step stays current: the heartbeat may name it again).
void clear();

}  // namespace bptool::bench::progress
