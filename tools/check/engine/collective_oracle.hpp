// Collectives as plugin.h defines them (bp_collective_args), computed on the
// host: the cases (every collective, reduction, root and in-place variant of
// a dtype on a device list), each participant's input, what each output
// must hold (bit for bit, except float sums and means: within the roundings
// an order of additions may cost), and running one case on a plugin with
// guard bytes around every view. The kit's L3 collectives group and the
// plugin tests of tests/support/collective_checks.hpp both judge with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backplane/plugin.h"
#include "plugin.hpp"

namespace bpcheck {

// Every collective and reduction of the vocabulary, in list order.
std::vector<int32_t> vocab_collectives();
std::vector<int32_t> vocab_reduce_ops();
// ALL_REDUCE and REDUCE_SCATTER.
bool reduces(int32_t collective);
// Whether the host can compute a collective's results in `dtype`.
bool computable(int32_t dtype);

// One case: what runs, on which devices, with which views.
struct Coll {
  using Shape = std::vector<int64_t>;
  int32_t collective = BP_COLLECTIVE_ALL_REDUCE;
  int32_t reduce_op = 0;
  int32_t root = 0;
  int32_t dtype = BP_FLOAT32;
  std::vector<int32_t> devices;
  bool in_place = false;
  Shape share = {3, 5};  // S
  uint64_t group = 0;    // a group of one rank (devices has one entry), or 0

  int32_t n() const { return int32_t(devices.size()); }
  Shape in_shape() const;
  Shape out_shape() const;
  // "all_reduce sum float32 S [3, 5] on cuda:0, cuda:1, in place".
  std::string name(const Plugin &p) const;
};

// The number of elements of a shape.
int64_t elements(const Coll::Shape &s);

// Every collective, reduction, root and in-place variant of one dtype on
// one device list, with S = `share`.
std::vector<Coll> cases_for(int32_t dtype, const std::vector<int32_t> &devices, const Coll::Shape &share);

// Participant j's input, seeded by the case.
std::vector<uint8_t> input_values(const Coll &c, int32_t j);

// Output i's expected values, and per element the tolerance of a float sum
// or mean (n + 1 roundings of the sum of the terms' magnitudes; 0: exact).
struct Expected {
  std::vector<uint8_t> values;
  std::vector<double> tolerance;
};

Expected expected_output(const Coll &c, const std::vector<std::vector<uint8_t>> &inputs, int32_t i);

// "" when `got` holds what is expected, else the first element that differs.
std::string compare(const Coll &c, const std::vector<uint8_t> &got, const Expected &want);

enum class Verdict { passed, declined, failed };

// Runs one case on the plugin: every output against the host's values,
// every guard byte, inputs not written in place unchanged; BP_ERR_UNSUPPORTED
// is a declined case, which must come before anything is written.
// *problem says why it failed.
Verdict run_collective(Plugin &p, const Coll &c, std::string *problem);

// A plugin buffer holding one view with kGuardBytes of guard on each side,
// freed with the owner.
struct GuardedBuffer {
  Plugin *plugin = nullptr;
  bp_buffer buffer = nullptr;
  std::vector<uint8_t> contents;  // everything written into it
  GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  ~GuardedBuffer();
  // "" or what failed.
  std::string make(Plugin &p, int32_t device, const std::vector<uint8_t> &values, size_t bytes, uint8_t guard);
  bp_plugin_tensor view(int32_t dtype, const Coll::Shape &shape) const;
  // The whole buffer as it is now, or "" with *problem set.
  std::vector<uint8_t> now(std::string *problem) const;
};

}  // namespace bpcheck
