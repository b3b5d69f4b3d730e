// A collective called directly on a plugin keeps its place in each device's
// queue: the work queued before it is what it reduces, the work queued after
// it sees its result. The cuda and opencl plugin tests both hold their
// collective entry to this.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collective_checks.hpp"
#include "plugin_handle.hpp"

namespace bp_test {

// On each of `devices` (i-th: FILL 3 + i of n int32), none waited for:
// ALL_REDUCE SUM in place, then x * 10. Every element must be ten times the
// sum of the fills.
inline void check_collective_between_work(const PluginHandle &p, const std::vector<int32_t> &devices, int64_t n) {
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> views;
  for (int32_t d : devices) {
    buffers.push_back(p.alloc(d, n * 4));
    views.push_back(dense_view(buffers.back(), BP_INT32, {n}));
  }
  bp_op_attrs fill = default_attrs();
  int32_t sum = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    fill.scalar = 3.0 + double(i);
    sum += 3 + int32_t(i);
    p.check(p.api().execute(devices[i], BP_OP_FILL, &fill, nullptr, 0, &views[i]), "execute fill");
  }
  bp_collective_args args = collective_args(BP_COLLECTIVE_ALL_REDUCE, BP_REDUCE_SUM, devices, views, views);
  p.check(p.api().collective(&args), "collective");
  bp_op_attrs times_ten = default_attrs();
  times_ten.scalar = 10;
  times_ten.scalar_mode = BP_SCALAR_RHS;
  for (size_t i = 0; i < devices.size(); ++i)
    p.check(p.api().execute(devices[i], BP_OP_MUL, &times_ten, &views[i], 1, &views[i]), "execute mul");
  for (bp_buffer b : buffers) {
    const std::vector<int32_t> got = p.download<int32_t>(b, size_t(n));
    CHECK(std::all_of(got.begin(), got.end(), [&](int32_t v) { return v == 10 * sum; }));
    p.check(p.api().free(b), "free");
  }
}

}  // namespace bp_test
