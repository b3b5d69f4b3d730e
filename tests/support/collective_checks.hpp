// The collective entry (plugin.h, bp_collective_args) called directly on a
// plugin, as tests/opencl-plugin and tests/cuda-plugin do: every dtype,
// collective and reduction on the device sets a test names, in place and
// not, run and judged by the conformance kit's engine
// (tools/check/engine/collective_oracle.hpp: the host's values, bit for bit
// except float sums and means; guard bytes around every view). And the
// malformed calls, each refused with its status and nothing written.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "collective_oracle.hpp"
#include "plugin_harness.hpp"

namespace bp_test {

// Zero-filled arguments with struct_size set and the views given.
inline bp_collective_args collective_args(int32_t collective, int32_t reduce_op, const std::vector<int32_t> &devices,
                                          const std::vector<bp_plugin_tensor> &inputs,
                                          const std::vector<bp_plugin_tensor> &outputs, int32_t root = 0) {
  bp_collective_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.collective = collective;
  a.reduce_op = reduce_op;
  a.root = root;
  a.count = static_cast<int32_t>(devices.size());
  a.devices = devices.data();
  a.inputs = inputs.data();
  a.outputs = outputs.data();
  return a;
}

// One case of the kit's engine; with a group, devices has one entry.
using CollectiveCase = bpcheck::Coll;

// Every dtype the ABI defines (each one the host computes), every
// collective and reduction, on each device set, in place where a collective
// allows it (ALL_REDUCE, BROADCAST) and not, BROADCAST from the first and
// the last participant (the kit's cases_for), and one empty S.
inline std::vector<CollectiveCase> collective_cases(const std::vector<std::vector<int32_t>> &device_sets) {
  std::vector<CollectiveCase> cases;
  for (const std::vector<int32_t> &devices : device_sets)
    for (bp_dtype dtype : kAllTypes) {
      INFO("the host computes collectives of " << dtype_name(dtype));
      REQUIRE(bpcheck::computable(dtype));
      for (const CollectiveCase &c : bpcheck::cases_for(dtype, devices, {3, 5})) cases.push_back(c);
    }
  CollectiveCase empty;
  empty.reduce_op = BP_REDUCE_SUM;
  empty.devices = device_sets.back();
  empty.share = {0, 4};
  cases.push_back(empty);
  return cases;
}

// Runs the case on the plugin with the kit's engine: it must succeed (not
// decline) with every output as the host computes it, every guard byte
// intact and inputs not written in place unchanged.
inline void check_collective_case(const PluginHandle &p, const CollectiveCase &c) {
  const auto kit = bpcheck::Plugin::borrow(p.api());
  std::string problem;
  const bpcheck::Verdict verdict = bpcheck::run_collective(*kit, c, &problem);
  INFO(c.name(*kit) << ": " << (verdict == bpcheck::Verdict::declined ? "declined (BP_ERR_UNSUPPORTED)" : problem));
  CHECK(verdict == bpcheck::Verdict::passed);
}

// ---- malformed calls --------------------------------------------------------

// A malformed call on `devices` (one or two distinct devices of the plugin):
// `mutate` breaks an ALL_REDUCE SUM of float32 [4] from participant to
// participant, which must then fail with `want`, a message naming
// `words`, and no output written.
template <class Mutate>
void check_collective_refused(const PluginHandle &p, const std::vector<int32_t> &devices, bp_status want,
                              const std::vector<std::string> &words, Mutate &&mutate) {
  const std::vector<float> ones(4, 1.0f);
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> in, out;
  for (int32_t d : devices) {
    buffers.push_back(p.upload(d, ones));
    in.push_back(dense_view(buffers.back(), BP_FLOAT32, {4}));
    buffers.push_back(p.upload(d, std::vector<float>(4, -1.0f)));
    out.push_back(dense_view(buffers.back(), BP_FLOAT32, {4}));
  }
  std::vector<int32_t> ids = devices;
  bp_collective_args args = collective_args(BP_COLLECTIVE_ALL_REDUCE, BP_REDUCE_SUM, ids, in, out);
  mutate(args, ids, in, out);
  check_error(p.api(), p.api().collective(&args), want, words);
  for (size_t i = 0; i < devices.size(); ++i)
    CHECK(p.download<float>(buffers[2 * i + 1], 4) == std::vector<float>(4, -1.0f));
  for (bp_buffer b : buffers) CHECK(p.api().free(b) == BP_OK);
}

using CollectiveMutation =
    std::function<void(bp_collective_args &, std::vector<int32_t> &, std::vector<bp_plugin_tensor> &,
                       std::vector<bp_plugin_tensor> &)>;

// The malformed calls of plugin.h's rules on one device (d0) and, when d1 >=
// 0, on two. A plugin's own rules (groups it knows, devices it has) are the
// test's to add.
inline void check_collective_errors(const PluginHandle &p, int32_t d0, int32_t d1) {
  const bp_plugin_api &api = p.api();
  check_error(api, api.collective(nullptr), BP_ERR_INVALID_ARGUMENT, {"NULL"});
  struct Bad {
    const char *what;
    bool two_devices;
    bp_status want;
    std::vector<std::string> words;
    CollectiveMutation mutate;
  };
  const std::vector<Bad> bad = {
      {"count 0", false, BP_ERR_INVALID_ARGUMENT, {"count"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.count = 0; }},
      {"an older struct_size", false, BP_ERR_INVALID_ARGUMENT, {"struct_size"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.struct_size = offsetof(bp_collective_args, group); }},
      {"NULL devices", false, BP_ERR_INVALID_ARGUMENT, {"devices"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.devices = nullptr; }},
      {"NULL inputs", false, BP_ERR_INVALID_ARGUMENT, {"inputs"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.inputs = nullptr; }},
      {"NULL outputs", false, BP_ERR_INVALID_ARGUMENT, {"outputs"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.outputs = nullptr; }},
      {"an unknown collective", false, BP_ERR_INVALID_ARGUMENT, {"99"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.collective = 99; }},
      {"an unknown reduction", false, BP_ERR_INVALID_ARGUMENT, {"reduce_op", "77"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.reduce_op = 77; }},
      {"a broadcast root that is no participant", false, BP_ERR_INVALID_ARGUMENT, {"root"},
       [](bp_collective_args &a, auto &, auto &, auto &) {
         a.collective = BP_COLLECTIVE_BROADCAST;
         a.root = 1;
       }},
      {"a NULL input buffer", false, BP_ERR_INVALID_ARGUMENT, {"input 0"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[0].buffer = nullptr; }},
      {"an input past its buffer", false, BP_ERR_INVALID_ARGUMENT, {"input 0"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[0].offset = 8; }},
      {"a strided input", false, BP_ERR_INVALID_ARGUMENT, {"contiguous"},
       [](bp_collective_args &, auto &, auto &in, auto &) {
         in[0].shape[0] = 2;
         in[0].strides[0] = 2;
       }},
      {"an output of another shape", false, BP_ERR_SHAPE, {"output 0"},
       [](bp_collective_args &, auto &, auto &, auto &out) { out[0].shape[0] = 3; }},
      {"an output of another dtype", false, BP_ERR_DTYPE, {"int32"},
       [](bp_collective_args &, auto &, auto &, auto &out) { out[0].dtype = BP_INT32; }},
      {"a sum of bool", false, BP_ERR_DTYPE, {"bool"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[0] = dense_view(in[0].buffer, BP_BOOL, {4});
         out[0] = dense_view(out[0].buffer, BP_BOOL, {4});
       }},
      {"an output overlapping its input", false, BP_ERR_INVALID_ARGUMENT, {"overlaps"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[0].shape[0] = 2;
         out[0] = in[0];
         out[0].offset = 4;
       }},
      {"a reduce_scatter input without the leading n", false, BP_ERR_SHAPE, {"leading"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.collective = BP_COLLECTIVE_REDUCE_SCATTER; }},
      {"one device twice", true, BP_ERR_INVALID_ARGUMENT, {"devices[0]", "devices[1]"},
       [](bp_collective_args &, auto &ids, auto &, auto &) { ids[1] = ids[0]; }},
      {"inputs of two shapes", true, BP_ERR_SHAPE, {"input 1"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[1].shape[0] = 3;
         out[1].shape[0] = 3;
       }},
      {"an input on another participant's device", true, BP_ERR_DEVICE_MISMATCH, {"input 1"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[1].buffer = in[0].buffer; }},
  };
  for (const Bad &b : bad) {
    if (b.two_devices && d1 < 0) continue;
    INFO(b.what);
    check_collective_refused(p, b.two_devices ? std::vector<int32_t>{d0, d1} : std::vector<int32_t>{d0}, b.want,
                             b.words, b.mutate);
  }
}

}  // namespace bp_test
