// Collectives across the devices of one process (backplane/collectives.h):
// values for every dtype and reduction, the host-staged path (devices of two
// backends), the backend's own entry (opencl:0 and opencl:1, when PoCL gives
// two devices), what the trace says, and the errors that name a participant.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"
#include "skip.hpp"

namespace {

using bp_test::last_error_mentions;

// Participant j's values: distinct per participant and element, negative
// ones included, so a sum, a max and a min each tell the participants apart.
std::vector<double> values(int j, int64_t n) {
  std::vector<double> v;
  for (int64_t k = 0; k < n; ++k) v.push_back(double((k * 7 + j * 3) % 11) - 5.0 + double(j));
  return v;
}

template <class T>
bp::Tensor make(const std::vector<double> &v, const bp::Shape &shape, bp::Device d) {
  std::vector<T> typed;
  for (double x : v) typed.push_back(T(x));
  return bp::from_vector<T>(typed, shape, d);
}

template <class T>
std::vector<double> read(const bp::Tensor &t) {
  std::vector<double> out;
  for (T x : t.to_vector<T>()) out.push_back(double(x));
  return out;
}

double expect_reduce(bp::Reduce op, const std::vector<std::vector<double>> &parts, size_t k, bool integer) {
  double acc = parts[0][k];
  for (size_t j = 1; j < parts.size(); ++j) {
    const double x = parts[j][k];
    if (op == bp::Reduce::max) acc = x > acc ? x : acc;
    else if (op == bp::Reduce::min) acc = x < acc ? x : acc;
    else acc += x;
  }
  if (op == bp::Reduce::mean) {
    acc /= double(parts.size());
    if (integer) acc = double(int64_t(acc));  // truncated toward zero
  }
  return acc;
}

template <class T>
void check_all_collectives(const std::vector<bp::Device> &devices) {
  const bool integer = std::is_integral_v<T>;
  const int n = int(devices.size());
  const bp::Shape shape{2, 3};
  std::vector<std::vector<double>> parts;
  for (int j = 0; j < n; ++j) parts.push_back(values(j, 6));
  for (bp::Reduce op : {bp::Reduce::sum, bp::Reduce::mean, bp::Reduce::max, bp::Reduce::min}) {
    std::vector<bp::Tensor> ts;
    for (int j = 0; j < n; ++j) ts.push_back(make<T>(parts[size_t(j)], shape, devices[size_t(j)]));
    bp::all_reduce(ts, op);
    for (int j = 0; j < n; ++j) {
      CHECK(ts[size_t(j)].device().name() == devices[size_t(j)].name());
      const std::vector<double> got = read<T>(ts[size_t(j)]);
      for (size_t k = 0; k < 6; ++k) CHECK(got[k] == Approx(expect_reduce(op, parts, k, integer)));
    }
  }
  // broadcast from the last participant.
  std::vector<bp::Tensor> ts;
  for (int j = 0; j < n; ++j) ts.push_back(make<T>(parts[size_t(j)], shape, devices[size_t(j)]));
  bp::broadcast(ts, n - 1);
  for (const bp::Tensor &t : ts) CHECK(read<T>(t) == read<T>(make<T>(parts.back(), shape, devices[0])));
  // all_gather: row j is participant j's tensor.
  std::vector<bp::Tensor> in;
  for (int j = 0; j < n; ++j) in.push_back(make<T>(parts[size_t(j)], shape, devices[size_t(j)]));
  const std::vector<bp::Tensor> gathered = bp::all_gather(in);
  REQUIRE(gathered.size() == size_t(n));
  for (int j = 0; j < n; ++j) {
    CHECK(gathered[size_t(j)].shape() == bp::Shape{n, 2, 3});
    CHECK(gathered[size_t(j)].device().name() == devices[size_t(j)].name());
    std::vector<double> want;
    for (const auto &p : parts) want.insert(want.end(), p.begin(), p.end());
    CHECK(read<T>(gathered[size_t(j)]) == std::vector<double>(want.begin(), want.end()));
  }
  // reduce_scatter: participant i gets the sum of row i of every input.
  std::vector<std::vector<double>> big;
  std::vector<bp::Tensor> rows;
  for (int j = 0; j < n; ++j) {
    big.push_back(values(j + 5, 3 * n));
    rows.push_back(make<T>(big.back(), bp::Shape{n, 3}, devices[size_t(j)]));
  }
  const std::vector<bp::Tensor> scattered = bp::reduce_scatter(rows, bp::Reduce::sum);
  for (int i = 0; i < n; ++i) {
    CHECK(scattered[size_t(i)].shape() == bp::Shape{3});
    const std::vector<double> got = read<T>(scattered[size_t(i)]);
    for (size_t k = 0; k < 3; ++k) {
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += big[size_t(j)][size_t(i) * 3 + k];
      CHECK(got[k] == Approx(sum));
    }
  }
}

}  // namespace

TEST_CASE("collectives across a cpu and a reference device are staged through host memory, every dtype") {
  bp_test::start(bp_test::kHostOnly);
  const std::vector<bp::Device> devices{bp::Device("cpu:0"), bp::Device("reference:0")};
  check_all_collectives<float>(devices);
  check_all_collectives<double>(devices);
  check_all_collectives<int32_t>(devices);
  check_all_collectives<int64_t>(devices);
  check_all_collectives<float>({bp::Device("cpu:0")});  // one participant: itself
}

TEST_CASE("collectives on bool: max is or, min is and, sum is refused") {
  bp_test::start(bp_test::kHostOnly);
  std::vector<bp::Tensor> ts{bp::from_vector<bool>({true, false, false}, {3}, bp::Device("cpu:0")),
                             bp::from_vector<bool>({true, true, false}, {3}, bp::Device("reference:0"))};
  bp::all_reduce(ts, bp::Reduce::max);
  CHECK(ts[1].to_vector<bool>() == std::vector<bool>{true, true, false});
  std::vector<bp::Tensor> us{bp::from_vector<bool>({true, false, true}, {3}, bp::Device("cpu:0")),
                             bp::from_vector<bool>({true, true, false}, {3}, bp::Device("reference:0"))};
  bp::all_reduce(us, bp::Reduce::min);
  CHECK(us[0].to_vector<bool>() == std::vector<bool>{true, false, false});
  const bp_tensor hs[2] = {us[0].handle(), us[1].handle()};
  CHECK(bp_all_reduce(hs, 2, BP_REDUCE_SUM) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("bp_all_reduce: sum is not defined for bool"));
}

TEST_CASE("integer sums wrap and means truncate toward zero, as add and C division do") {
  bp_test::start(bp_test::kHostOnly);
  std::vector<bp::Tensor> ts{bp::from_vector<int32_t>({INT32_MAX, -7}, {2}, bp::Device("cpu:0")),
                             bp::from_vector<int32_t>({1, 2}, {2}, bp::Device("reference:0"))};
  bp::all_reduce(ts, bp::Reduce::sum);
  CHECK(ts[0].to_vector<int32_t>() == std::vector<int32_t>{INT32_MIN, -5});
  std::vector<bp::Tensor> ms{bp::from_vector<int64_t>({-7, 7}, {2}, bp::Device("cpu:0")),
                             bp::from_vector<int64_t>({0, 0}, {2}, bp::Device("reference:0"))};
  bp::all_reduce(ms, bp::Reduce::mean);
  CHECK(ms[1].to_vector<int64_t>() == std::vector<int64_t>{-3, 3});
}

TEST_CASE("a non-contiguous participant is reduced and written through its own layout") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor base = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, bp::Device("cpu:0"));
  const bp::Tensor column = base.T();  // [3, 2], strided
  std::vector<bp::Tensor> ts{column, bp::ones({3, 2}, bp::f32, bp::Device("reference:0"))};
  bp::all_reduce(ts, bp::Reduce::sum);
  CHECK(base.to_vector<float>() == std::vector<float>{2, 3, 4, 5, 6, 7});
  CHECK(ts[1].to_vector<float>() == std::vector<float>{2, 5, 3, 6, 4, 7});
}

TEST_CASE("the trace says a collective across two backends was staged through host memory") {
  bp_test::start(bp_test::kHostOnly);
  std::vector<bp::Tensor> ts{bp::ones({4}, bp::f32, bp::Device("cpu:0")),
                             bp::ones({4}, bp::f32, bp::Device("reference:0"))};
  REQUIRE(bp_trace_clear() == BP_OK);
  REQUIRE(bp_trace_enable(1) == BP_OK);
  bp::all_reduce(ts, bp::Reduce::sum);
  REQUIRE(bp_trace_enable(0) == BP_OK);
  CHECK(bp_test::trace_text().find("all_reduce float32 [4] x2 (sum): on cpu:0, reference:0, staged through host "
                                   "memory (devices of several backends)") != std::string::npos);
}

TEST_CASE("collective errors name the participant, its device, and write nothing") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, bp::Device("cpu:0"));
  const bp::Tensor b = bp::from_vector<float>({1, 2, 3}, {3}, bp::Device("reference:0"));
  const bp::Tensor c = bp::from_vector<int32_t>({1, 2}, {2}, bp::Device("reference:0"));
  bp_tensor hs[2] = {a.handle(), b.handle()};
  CHECK(bp_all_reduce(hs, 2, BP_REDUCE_SUM) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_all_reduce: tensor 1 on reference:0 has shape [3], but shape [2] is tensor 0 on cpu:0"));
  CHECK(bp_last_error_input() == 1);
  CHECK(a.to_vector<float>() == std::vector<float>{1, 2});
  hs[1] = c.handle();
  CHECK(bp_broadcast(hs, 2, 0) == BP_ERR_DTYPE);
  CHECK(last_error_mentions("tensor 1 on reference:0 is int32, but float32 is tensor 0 on cpu:0"));
  bp_tensor outs[2] = {BP_NO_TENSOR, BP_NO_TENSOR};
  CHECK(bp_all_gather(hs, 2, outs) == BP_ERR_DTYPE);
  CHECK(outs[0] == BP_NO_TENSOR);
  const bp_tensor same[2] = {a.handle(), a.handle()};
  CHECK(bp_all_reduce(same, 2, BP_REDUCE_SUM) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("the same tensor"));
  const bp_tensor one[1] = {a.handle()};
  CHECK(bp_all_reduce(one, 1, 9) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("reduce_op 9"));
  CHECK(bp_all_reduce(one, 0, BP_REDUCE_SUM) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_all_reduce(nullptr, 1, BP_REDUCE_SUM) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_broadcast(one, 1, 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("root"));
  const bp_tensor dead[2] = {a.handle(), bp_tensor(12345)};
  CHECK(bp_all_reduce(dead, 2, BP_REDUCE_SUM) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_last_error_input() == 1);
  CHECK(bp_all_gather(one, 1, nullptr) == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor rows = bp::ones({3, 2}, bp::f32, bp::Device("cpu:0"));
  const bp_tensor r1[1] = {rows.handle()};
  CHECK(bp_reduce_scatter(r1, 1, BP_REDUCE_SUM, outs) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("one row per participant (1)"));
}

TEST_CASE("in-place collectives follow the autograd write rules") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor w = bp::ones({2}, bp::f32, bp::Device("cpu:0")).requires_grad_();
  const bp_tensor one[1] = {w.handle()};
  CHECK(bp_all_reduce(one, 1, BP_REDUCE_SUM) == BP_ERR_STATE);
  {
    bp::NoGradGuard no_grad;
    CHECK(bp_all_reduce(one, 1, BP_REDUCE_SUM) == BP_OK);
  }
}

TEST_CASE("collectives across opencl:0 and opencl:1 match the host-staged results, every dtype") {
  bp_test::start(bp_test::kOpenCLFirst);
  std::vector<bp::Device> devices;
  for (const bp::Device &d : bp::devices())
    if (d.name().rfind("opencl:", 0) == 0) devices.push_back(d);
  if (devices.size() < 2) {
    bp_test::skip("needs two OpenCL devices (PoCL with POCL_DEVICES=\"pthread pthread\"); found " +
                  std::to_string(devices.size()));
    return;
  }
  devices.resize(2);
  check_all_collectives<float>(devices);
  check_all_collectives<double>(devices);
  check_all_collectives<int32_t>(devices);
  check_all_collectives<int64_t>(devices);
  std::vector<bp::Tensor> ts{bp::from_vector<bool>({true, false}, {2}, devices[0]),
                             bp::from_vector<bool>({false, false}, {2}, devices[1])};
  bp::all_reduce(ts, bp::Reduce::max);
  CHECK(ts[1].to_vector<bool>() == std::vector<bool>{true, false});
}
