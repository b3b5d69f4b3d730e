// Lazy elementwise fusion (backplane.h, "lazy fusion"; core/fusion): the
// same bits as op-by-op runs, what the trace and the allocation counters
// show, errors that stay immediate or surface at the read, what makes a
// group run, autograd, threads, and the switch.
//
// Every test case runs on cpu:0, reference:0 and, when PoCL gives one,
// opencl:0; tensors have 64 x 128 = 8192 elements, above the 4096 from
// which operators are recorded.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <type_traits>
#include <vector>

#include "backplane/plugin.h"
#include "backplane/testing.h"
#include "runtime_fixture.hpp"
#include "skip.hpp"

namespace {

const std::string &kConfig = bp_test::kOpenCLFirst;

constexpr int64_t R = 64, C = 128;

// The device this run of the test case is for (a Catch generator over
// cpu:0, reference:0, opencl:0), or false after skipping a missing one.
bool each_device(bp::Device &out) {
  bp_test::start(kConfig);
  const std::string name = GENERATE(as<std::string>{}, "cpu:0", "reference:0", "opencl:0");
  bp_device id;
  if (bp_device_get(name.c_str(), &id) != BP_OK) {
    bp_test::skip(name + " is not available here (the opencl plugin or PoCL is missing): " + bp_last_error());
    return false;
  }
  out = bp::Device(id);
  return true;
}

// cpu:0, then reference:0: the devices whose memory is host memory.
bp::Device each_host_device() {
  bp_test::start(kConfig);
  return bp::Device(GENERATE(as<std::string>{}, "cpu:0", "reference:0"));
}

std::string backend_of(const bp::Device &d) { return d.info().backend; }

// Fusion on or off for a scope; on again afterwards, as every test expects.
class Fusion {
 public:
  explicit Fusion(bool on) { REQUIRE(bp_fusion_enable(on) == BP_OK); }
  ~Fusion() { bp_fusion_enable(1); }
  Fusion(const Fusion &) = delete;
  Fusion &operator=(const Fusion &) = delete;
};

// The routing trace on and empty for a scope.
class Trace {
 public:
  Trace() {
    REQUIRE(bp_trace_enable(1) == BP_OK);
    REQUIRE(bp_trace_clear() == BP_OK);
  }
  ~Trace() { bp_trace_enable(0); }
  Trace(const Trace &) = delete;
  Trace &operator=(const Trace &) = delete;

  static std::vector<std::string> lines() { return bp_test::trace_lines(); }
  static int count(const std::string &part) {
    int n = 0;
    for (const std::string &l : lines()) n += l.find(part) != std::string::npos;
    return n;
  }
  // The group lines ("fused group ...") recorded so far.
  static std::vector<std::string> groups() {
    std::vector<std::string> out;
    for (const std::string &l : lines())
      if (l.rfind("fused group ", 0) == 0) out.push_back(l);
    return out;
  }
};

uint64_t allocations(const std::string &backend) {
  bp_backend_counters c{};
  c.struct_size = sizeof c;
  REQUIRE(bp_backend_counters_get(backend.c_str(), &c) == BP_OK);
  return c.allocations;
}

std::vector<uint8_t> bytes_of(const bp::Tensor &t) {
  std::vector<uint8_t> out(size_t(t.numel()) * size_t(bp_dtype_size(t.dtype())));
  REQUIRE(bp_to_host(t.handle(), out.data(), out.size()) == BP_OK);
  return out;
}

using bp_test::last_error_mentions;

// Values from -50 to 50 (eighths of them for floats), every third bool true,
// a different sequence for each seed.
template <class T>
std::vector<T> pattern(int64_t n, int seed) {
  std::vector<T> v;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t m = (k * 37 + seed * 11) % 101 - 50;
    if constexpr (std::is_same_v<T, bool>) v.push_back((k * 7 + seed) % 3 == 0);
    else if constexpr (std::is_floating_point_v<T>) v.push_back(T(double(m) / 8.0));
    else v.push_back(T(m));
  }
  return v;
}

template <class T>
bp::Tensor input(const bp::Shape &shape, int seed, const bp::Device &d) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return bp::from_vector<T>(pattern<T>(n, seed), shape, d);
}

// The inputs of a chain: dense, broadcast along either axis, a transposed
// and a strided view, all [R, C] once broadcast.
template <class T>
struct Inputs {
  bp::Tensor x, y, row, col, xt, xs;
  explicit Inputs(const bp::Device &d)
      : x(input<T>({R, C}, 1, d)),
        y(input<T>({R, C}, 2, d)),
        row(input<T>({1, C}, 3, d)),
        col(input<T>({R, 1}, 4, d)),
        xt(input<T>({C, R}, 5, d).T()),
        xs(input<T>({R, 2 * C}, 6, d).slice(1, 0, 2 * C, 2)) {}
};

template <class T>
std::vector<bp::Tensor> float_chain(const bp::Device &d) {
  const Inputs<T> in(d);
  const bp::Tensor ints = input<int32_t>({R, C}, 7, d);
  const bp::Tensor a = in.x * in.y + in.row;
  const bp::Tensor c = (2.0 - a) / 3.0;
  const bp::Tensor sel = bp::where(in.x > in.y, c, in.xt);
  return {
      sel.exp() * 0.5 - in.col,
      (sel * 0.001).tanh() + in.xs.sigmoid(),
      (in.xs - in.col).sin() * in.x.cos() + (in.x.abs() + 1.0).log() + in.y.abs().sqrt(),
      bp::pow(in.x.abs() + 0.5, 1.5) + bp::binary(BP_OP_POW, in.y * 0.1, 2.0, true) + bp::pow(in.xs.abs(), in.y * 0.25),
      bp::maximum(in.x, in.xt) - bp::minimum(in.y, in.xs) + (-in.x).relu() + in.y.square(),
      bp::floor_divide(in.x, in.y.abs() + 1.0) + in.x % (in.y.abs() + 1.0) + bp::floor_divide(in.xs, 0.75),
      in.x + ints,
      (a * 40.0).astype(BP_INT32) + (c * 1e12).astype(BP_INT64),
      ((in.x == in.y) | (in.x != in.xt)) ^ ((in.x < in.row) & (in.xs <= in.col)) ^ (in.x >= 0.5) ^ (in.y > in.xt),
      in.xs.astype(BP_BOOL),
  };
}

template <class T>
std::vector<bp::Tensor> integer_chain(const bp::Device &d) {
  const Inputs<T> in(d);
  const bp::Tensor f = input<float>({R, C}, 8, d);
  const bp::Tensor a = in.x * in.y + in.row - 3;
  const bp::Tensor c = 7 - a;
  const bp::Tensor sel = bp::where(in.x > in.y, c, in.xs);
  return {
      bp::floor_divide(c, in.y.abs() + 1) + c % (in.xt.abs() + 1) + bp::floor_divide(in.xs, 3) + in.x % 4,
      (sel & in.xt) | (in.x ^ 5) | ~sel,
      bp::maximum(in.x, in.xs) - bp::minimum(in.y, in.col) + (-in.x).abs() + in.y.square(),
      in.x / (in.y.abs() + 1),
      in.x * 0.5 + in.y * 1e10,
      (in.x * 0.01).exp() + (in.xs.abs() + 1).log(),
      in.x + f,
      in.x.astype(BP_FLOAT32) + in.xt.astype(BP_BOOL).astype(in.x.dtype()) + in.xs.astype(BP_FLOAT64),
      ((in.x == in.y) | (in.x != in.xt)) ^ ((in.x < in.row) & (in.xs <= in.col)) ^ (in.x >= 3.0) ^ (in.y > in.xt),
  };
}

std::vector<bp::Tensor> bool_chain(const bp::Device &d) {
  const Inputs<bool> in(d);
  const bp::Tensor a = (in.x & in.y) | (in.x ^ in.xt);
  return {
      ~a & (in.xs | in.row),
      bp::where(a, in.x, in.col),
      in.x + in.y + in.xs,
      in.x.astype(BP_FLOAT32) * 2.5 + 1.0 * in.xt.astype(BP_FLOAT64),
      (in.x == in.y) ^ (in.xs != in.col) ^ (in.x < in.y) ^ (in.xt >= in.row),
      in.x * 3 - in.y,
  };
}

using Chain = std::function<std::vector<bp::Tensor>(const bp::Device &)>;

// Runs `chain` op by op and then fused, and compares every result's bytes;
// the fused run must have recorded operators and run a group as one program.
void check_same_bits(const bp::Device &d, const Chain &chain) {
  std::vector<std::vector<uint8_t>> eager;
  {
    Fusion off(false);
    Trace trace;
    for (const bp::Tensor &t : chain(d)) eager.push_back(bytes_of(t));
    CHECK(Trace::count("deferred") == 0);
  }
  Trace trace;
  const std::vector<bp::Tensor> results = chain(d);
  CHECK(Trace::count("deferred as operator") > 0);
  REQUIRE(results.size() == eager.size());
  for (size_t i = 0; i < results.size(); ++i) {
    INFO("result " << i << " of the chain, " << bp_dtype_name(results[i].dtype()) << " on " << d.name());
    CHECK(bytes_of(results[i]) == eager[i]);
  }
  CHECK(Trace::count("as one program (execute_fused)") > 0);
}

std::vector<float> host_floats(const bp::Tensor &t) { return t.to_vector<float>(); }

}  // namespace

TEST_CASE("fused chains give the bits of the same operators run one by one, every dtype", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  SECTION("float32") { check_same_bits(d, float_chain<float>); }
  SECTION("float64") { check_same_bits(d, float_chain<double>); }
  SECTION("int32") { check_same_bits(d, integer_chain<int32_t>); }
  SECTION("int64") { check_same_bits(d, integer_chain<int64_t>); }
  SECTION("bool") { check_same_bits(d, bool_chain); }
}

TEST_CASE("the trace shows each deferred operator and the group, and released intermediates are never allocated",
          "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const std::string backend = backend_of(d);
  const bp::Tensor x = input<float>({R, C}, 1, d);
  std::vector<float> expected;
  {
    Fusion off(false);
    expected = host_floats(((x * 2.0) - 1.0).exp() + x);
  }
  Trace trace;
  const uint64_t before = allocations(backend);
  const bp::Tensor y = ((x * 2.0) - 1.0).exp() + x;
  const std::vector<std::string> lines = Trace::lines();
  REQUIRE(lines.size() == 4);
  const char *ops[] = {"mul", "sub", "exp", "add"};
  for (int k = 0; k < 4; ++k)
    CHECK(lines[size_t(k)] == std::string(ops[k]) + " float32 [64, 128]: inputs on " + d.name() +
                                  ", deferred as operator " + std::to_string(k + 1) + " of the fused group of " +
                                  d.name() + " (backend " + backend + ")");
  CHECK(allocations(backend) == before);  // nothing ran yet
  CHECK(host_floats(y) == expected);
  CHECK(allocations(backend) == before + 1);  // y only
  REQUIRE(Trace::groups().size() == 1);
  CHECK(Trace::groups()[0] == "fused group float32 [64, 128] on " + d.name() +
                                  ": mul, sub, exp, add; 1 input(s), 1 of 4 result(s) written, 3 never "
                                  "materialised, ran on backend " +
                                  backend + " as one program (execute_fused)");

  SECTION("intermediates still held are written too") {
    bp_trace_clear();
    const uint64_t start = allocations(backend);
    const bp::Tensor twice = x * 2.0;
    const bp::Tensor z = (twice - 1.0).exp() + x;
    CHECK(host_floats(z) == expected);
    CHECK(allocations(backend) == start + 2);
    REQUIRE(Trace::groups().size() == 1);
    CHECK(Trace::groups()[0].find("; 1 input(s), 2 of 4 result(s) written, 2 never materialised, ran on") !=
          std::string::npos);
  }
  SECTION("operators whose results nobody needs are not computed") {
    const std::vector<uint8_t> doubled = bytes_of(x + x);
    bp_trace_clear();
    const bp::Tensor twice = x * 2.0;
    (void)(twice + 1.0).exp();
    CHECK(bytes_of(twice) == doubled);
    REQUIRE(Trace::groups().size() == 1);
    // One operator left to run: the backend's own kernel runs it.
    CHECK(Trace::groups()[0].find(": mul, add, exp; 1 input(s), 1 of 3 result(s) written, 2 never materialised "
                                  "(2 not computed: nobody needs them), ran operator by operator: one operator, "
                                  "nothing to fuse") != std::string::npos);
  }
  SECTION("a group whose results are all released runs nothing") {
    bp_trace_clear();
    const uint64_t start = allocations(backend);
    (void)((x * 2.0) + 1.0);
    REQUIRE(bp_synchronize(d.id()) == BP_OK);
    CHECK(allocations(backend) == start);
    REQUIRE(Trace::groups().size() == 1);
    CHECK(Trace::groups()[0].find("0 of 2 result(s) written, 2 never materialised (2 not computed: nobody needs "
                                  "them), nothing ran") != std::string::npos);
  }
}

TEST_CASE("errors about the call come from the call while a group is open, and leave the group alone",
          "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const bp::Tensor x = input<float>({R, C}, 1, d);
  const bp::Tensor ints = input<int32_t>({R, C}, 2, d);
  std::vector<uint8_t> expected;
  {
    Fusion off(false);
    expected = bytes_of((x * 2.0 + 1.0).exp());
  }
  bp_tensor out = BP_NO_TENSOR;
  // A result of 2^57 elements cannot exist (the limit is 2^56): refused at
  // once, as without fusion, from three small broadcast inputs.
  const int64_t k = int64_t(1) << 19;
  const bp::Tensor cond = bp::zeros({k, 1, 1}, bp::boolean, d);
  const bp::Tensor a = bp::zeros({1, k, 1}, bp::f32, d), b = bp::zeros({1, 1, k}, bp::f32, d);
  CHECK(bp_where(cond.handle(), a.handle(), b.handle(), &out) == BP_ERR_SHAPE);
  CHECK(out == BP_NO_TENSOR);

  Trace trace;
  const bp::Tensor y = (x * 2.0 + 1.0).exp();
  REQUIRE(Trace::count("deferred as operator 3 of the fused group") == 1);

  const bp::Tensor narrow = input<float>({R - 1, C}, 3, d);
  CHECK(bp_binary(BP_OP_ADD, y.handle(), narrow.handle(), &out) == BP_ERR_SHAPE);
  const bp::Device other = d.name() == "cpu:0" ? bp::Device("reference:0") : bp::cpu();
  const bp::Tensor elsewhere = input<float>({R, C}, 4, other);
  CHECK(bp_binary(BP_OP_ADD, y.handle(), elsewhere.handle(), &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(bp_binary(BP_OP_MUL, y.handle(), bp_tensor(0x7fff0000), &out) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_binary(BP_OP_BITWISE_AND, y.handle(), x.handle(), &out) == BP_ERR_DTYPE);
  CHECK(bp_unary(BP_OP_BITWISE_NOT, y.handle(), &out) == BP_ERR_DTYPE);
  CHECK(bp_where(ints.handle(), y.handle(), x.handle(), &out) == BP_ERR_DTYPE);
  CHECK(bp_cast(y.handle(), 42, &out) == BP_ERR_DTYPE);
  CHECK(out == BP_NO_TENSOR);

  CHECK(Trace::groups().empty());  // none of those ran the group
  CHECK(bytes_of(y) == expected);
  REQUIRE(Trace::groups().size() == 1);
  CHECK(Trace::groups()[0].find(": mul, add, exp; 1 input(s), 1 of 3 result(s) written") != std::string::npos);
}

namespace {

// A column and a row whose sum, 2^20 x 2^20 float32, is 4 TiB: recorded at
// once, refused when it runs. x is an ordinary input.
constexpr int64_t kHuge = int64_t(1) << 20;
struct HugeOperands {
  bp::Tensor col, row, x;
};
HugeOperands huge_operands(const bp::Device &d) {
  return {bp::zeros({kHuge, 1}, bp::f32, d), bp::zeros({1, kHuge}, bp::f32, d), input<float>({R, C}, 1, d)};
}

}  // namespace

TEST_CASE("a result too large for memory fails where it is needed, naming the fused operators, every time",
          "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const int64_t n = kHuge;
  const auto [col, row, x] = huge_operands(d);
  Trace trace;
  bp_tensor big = BP_NO_TENSOR;
  REQUIRE(bp_binary(BP_OP_ADD, col.handle(), row.handle(), &big) == BP_OK);
  const bp::Tensor sum = bp::Tensor::adopt(big);
  CHECK(Trace::count("add float32 [1048576, 1048576]: inputs on " + d.name() + ", deferred as operator 1") == 1);
  const bp::Tensor twice = sum * 2.0;  // same group: the message names both

  for (int attempt = 0; attempt < 2; ++attempt) {
    INFO("attempt " << attempt);
    CHECK(bp_tensor_wait(twice.handle()) == BP_ERR_OUT_OF_MEMORY);
    CHECK(last_error_mentions("fused group (add, mul) on " + d.name()));
    CHECK(std::string(bp_last_error_op()) == "add");
  }
  bp_tensor reduced = BP_NO_TENSOR;
  CHECK(bp_reduce(BP_OP_SUM, sum.handle(), BP_AXIS_ALL, 0, &reduced) == BP_ERR_OUT_OF_MEMORY);
  CHECK(last_error_mentions("fused group (add, mul)"));
  CHECK(reduced == BP_NO_TENSOR);
  bp_tensor derived = BP_NO_TENSOR;
  CHECK(bp_binary_scalar(BP_OP_ADD, sum.handle(), 1.0, 0, &derived) == BP_ERR_OUT_OF_MEMORY);
  CHECK(derived == BP_NO_TENSOR);

  // Everything else still works, fused or not.
  CHECK((col + 1.0).sum().item<float>() == float(n));
  CHECK(bytes_of(x * 3.0) == bytes_of(x + x + x));
  CHECK(bp_synchronize(d.id()) == BP_OK);
}

TEST_CASE("work that needs no result of a failed group does not fail with its error", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const int64_t n = kHuge;
  const auto [col, row, x] = huge_operands(d);
  const std::vector<uint8_t> doubled = bytes_of(x + x);
  const bp::Tensor big = col + row;  // 4 TiB: its group fails when it runs
  // Each of these makes the group run; its error belongs to whoever reads
  // `big`, not to the caller.
  SECTION("an operator of another shape") {
    bp_tensor out = BP_NO_TENSOR;
    const bp_status s = bp_binary_scalar(BP_OP_MUL, x.handle(), 2.0, 0, &out);
    INFO(bp_last_error());
    CHECK(s == BP_OK);
    if (out != BP_NO_TENSOR) CHECK(bytes_of(bp::Tensor::adopt(out)) == doubled);
  }
  SECTION("a read of one of the group's inputs") {
    std::vector<float> host(static_cast<size_t>(n));
    const bp_status s = bp_to_host(col.handle(), host.data(), host.size() * sizeof(float));
    INFO(bp_last_error());
    CHECK(s == BP_OK);
  }
  SECTION("a write into one of the group's inputs") {
    CHECK(bp_assign(row.handle(), col.handle()) == BP_ERR_SHAPE);  // a call error still comes first
    const bp::Tensor ones = bp::ones({1, n}, bp::f32, d);
    const bp_status s = bp_assign(row.handle(), ones.handle());
    INFO(bp_last_error());
    CHECK(s == BP_OK);
  }
  CHECK(bp_tensor_wait(big.handle()) == BP_ERR_OUT_OF_MEMORY);
  CHECK(last_error_mentions("fused group (add) on " + d.name()));
  CHECK(bp_synchronize(d.id()) == BP_OK);
}

namespace {

// x * 2 + 1 recorded (x holds 0 .. R*C-1); `trigger` must run it.
void check_runs_the_group(const bp::Device &d, const std::function<void(const bp::Tensor &)> &trigger) {
  const bp::Tensor x = bp::arange(0, double(R * C), 1, bp::f32, d).reshape({R, C});
  Trace trace;
  const bp::Tensor y = x * 2.0 + 1.0;
  REQUIRE(Trace::count("deferred as operator 2") == 1);
  REQUIRE(Trace::groups().empty());
  trigger(y);
  REQUIRE(Trace::groups().size() >= 1);
  CHECK(Trace::groups()[0].find(": mul, add; 1 input(s), 1 of 2 result(s) written") != std::string::npos);
  std::vector<float> v = y.to_vector<float>();
  for (size_t k = 0; k < v.size(); k += 1000) CHECK(v[k] == float(2 * k + 1));
}

}  // namespace

TEST_CASE("what runs an open group", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  SECTION("bp_tensor_wait") {
    check_runs_the_group(d, [](const bp::Tensor &y) { REQUIRE(bp_tensor_wait(y.handle()) == BP_OK); });
  }
  SECTION("bp_synchronize") {
    check_runs_the_group(d, [&](const bp::Tensor &) { REQUIRE(bp_synchronize(d.id()) == BP_OK); });
  }
  SECTION("bp_to_host") {
    check_runs_the_group(d, [](const bp::Tensor &y) {
      std::vector<float> v(size_t(R * C));
      REQUIRE(bp_to_host(y.handle(), v.data(), v.size() * sizeof(float)) == BP_OK);
      CHECK(v[5] == 11.0f);
    });
  }
  SECTION("a reduction of a pending result") {
    check_runs_the_group(d, [](const bp::Tensor &y) { CHECK(y.max().item<float>() == float(2 * R * C - 1)); });
  }
  SECTION("a matmul reading a pending result") {
    check_runs_the_group(d, [&](const bp::Tensor &y) {
      const bp::Tensor ones = bp::ones({C, 1}, bp::f32, d);
      CHECK(bp::matmul(y, ones).to_vector<float>()[0] == float(C * C));
    });
  }
  SECTION("an operator of another shape") {
    check_runs_the_group(d, [&](const bp::Tensor &) {
      const bp::Tensor other = bp::ones({2 * R, C}, bp::f32, d) * 3.0;
      CHECK(Trace::count("mul float32 [128, 128]: inputs on " + d.name() + ", deferred as operator 1") == 1);
      CHECK(other.to_vector<float>()[7] == 3.0f);
    });
  }
  SECTION("a transposed view of a pending result used as an input") {
    const bp::Tensor x = bp::arange(0, double(C * C), 1, bp::f32, d).reshape({C, C});
    Trace trace;
    const bp::Tensor y = x * 2.0;
    const bp::Tensor z = y.T() + 1.0;
    REQUIRE(Trace::groups().size() == 1);
    CHECK(Trace::groups()[0].find(": mul; 1 input(s), 1 of 1 result(s) written") != std::string::npos);
    const std::vector<float> v = z.to_vector<float>();
    CHECK(v[1] == float(2 * C + 1));
    CHECK(v[size_t(C)] == 3.0f);
  }
  SECTION("a slice of a pending result used as an input") {
    const bp::Tensor x = bp::arange(0, double(2 * R * C), 1, bp::f32, d).reshape({2 * R, C});
    Trace trace;
    const bp::Tensor y = x * 2.0;
    const bp::Tensor z = y.slice(0, R, 2 * R) + 1.0;
    REQUIRE(Trace::groups().size() == 1);
    CHECK(z.to_vector<float>()[0] == float(2 * R * C + 1));
  }
  SECTION("a reshaped pending result is read whole, in the same group") {
    const bp::Tensor x = bp::arange(0, double(R * C), 1, bp::f32, d).reshape({R, C});
    Trace trace;
    const bp::Tensor y = (x * 2.0).reshape({C, R}).reshape({R, C}) + 1.0;
    CHECK(Trace::groups().empty());
    CHECK(y.to_vector<float>()[9] == 19.0f);
    CHECK(Trace::groups().size() == 1);
  }
  SECTION("more operators than a program holds") {
    const bp::Tensor x = bp::zeros({R, C}, bp::f32, d);
    Trace trace;
    bp::Tensor t = x;
    for (int k = 0; k < BP_FUSED_MAX_INSTRS; ++k) t = t + 1.0;
    CHECK(Trace::groups().empty());
    t = t + 1.0;
    REQUIRE(Trace::groups().size() == 1);
    CHECK(Trace::groups()[0].find("; 1 input(s), 1 of " + std::to_string(BP_FUSED_MAX_INSTRS) + " result(s) written") !=
          std::string::npos);
    CHECK(t.to_vector<float>()[77] == float(BP_FUSED_MAX_INSTRS + 1));
  }
  SECTION("more results held than a program writes") {
    const bp::Tensor x = bp::zeros({R, C}, bp::f32, d);
    Trace trace;
    std::vector<bp::Tensor> held;
    for (int k = 0; k < BP_FUSED_MAX_OUTPUTS; ++k) held.push_back(x + double(k));
    CHECK(Trace::groups().empty());
    held.push_back(x + double(BP_FUSED_MAX_OUTPUTS));
    REQUIRE(Trace::groups().size() == 1);
    const std::string all = std::to_string(BP_FUSED_MAX_OUTPUTS);
    CHECK(Trace::groups()[0].find("; 1 input(s), " + all + " of " + all + " result(s) written") != std::string::npos);
    for (size_t k = 0; k < held.size(); ++k) CHECK(held[k].to_vector<float>()[3] == float(k));
  }
  SECTION("more inputs than a program reads") {
    std::vector<bp::Tensor> xs;
    for (int k = 0; k <= BP_FUSED_MAX_INPUTS; ++k) xs.push_back(bp::full({R, C}, double(k), bp::f32, d));
    Trace trace;
    bp::Tensor t = xs[0];
    for (size_t k = 1; k < xs.size(); ++k) t = t + xs[k];
    REQUIRE(Trace::groups().size() == 1);
    CHECK(Trace::groups()[0].find(std::to_string(BP_FUSED_MAX_INPUTS) + " input(s)") != std::string::npos);
    const int64_t n = BP_FUSED_MAX_INPUTS;
    CHECK(t.to_vector<float>()[0] == float(n * (n + 1) / 2));
  }
}

TEST_CASE("operators that cannot be fused read pending results as they read any other", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  using Op = std::function<bp::Tensor(const bp::Tensor &)>;
  const bp::Device other = d.name() == "cpu:0" ? bp::Device("reference:0") : bp::cpu();
  const bp::Tensor index = bp::from_vector<int64_t>({3, 0, 63, 5}, {4, 1}, d);
  const std::vector<std::pair<const char *, Op>> ops = {
      {"copy_to the same backend", [&](const bp::Tensor &y) { return y.copy_to(d); }},
      {"copy_to another backend", [&](const bp::Tensor &y) { return y.copy_to(other); }},
      {"a transposed view read to the host", [](const bp::Tensor &y) { return y.T().contiguous(); }},
      {"sum over an axis", [](const bp::Tensor &y) { return y.sum(1); }},
      {"argmax", [](const bp::Tensor &y) { return y.argmax(0); }},
      {"cumsum", [](const bp::Tensor &y) { return y.cumsum(1); }},
      {"logsumexp", [](const bp::Tensor &y) { return y.logsumexp(1); }},
      {"softmax", [](const bp::Tensor &y) { return y.softmax(1); }},
      {"var", [](const bp::Tensor &y) { return y.var(0); }},
      {"clip", [](const bp::Tensor &y) { return y.clip(-1.0, 1.0); }},
      {"matmul", [](const bp::Tensor &y) { return bp::matmul(y, y, false, true); }},
      {"gather_nd", [&](const bp::Tensor &y) { return y.gather_nd(index); }},
      {"nonzero", [](const bp::Tensor &y) { return (y > 0.5).nonzero(); }},
      {"concatenate", [](const bp::Tensor &y) { return bp::concatenate({y, y * 2.0}, 1); }},
      {"stack", [](const bp::Tensor &y) { return bp::stack({y, y.sin()}, 0); }},
      {"scatter_nd into a pending result",
       [&](const bp::Tensor &y) {
         y.scatter_nd(index, bp::zeros({4, C}, bp::f32, d));
         return y;
       }},
  };
  for (const auto &[name, op] : ops) {
    INFO(name << " on " << d.name());
    std::vector<uint8_t> eager;
    {
      Fusion off(false);
      eager = bytes_of(op((input<float>({R, C}, 1, d) * 0.25).tanh()));
    }
    Trace trace;
    const bp::Tensor y = (input<float>({R, C}, 1, d) * 0.25).tanh();
    REQUIRE(Trace::count("deferred as operator 2") == 1);
    CHECK(bytes_of(op(y)) == eager);
    CHECK(Trace::groups().size() >= 1);
  }
}

TEST_CASE("a write into a tensor an open group reads runs the group first", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const bp::Tensor x = input<float>({R, C}, 1, d);
  const bp::Tensor w = input<float>({R, C}, 2, d);
  const std::vector<float> old = x.to_vector<float>();
  Trace trace;
  const bp::Tensor y = x * 2.0;
  const bp::Tensor z = y * 3.0;  // reads y, itself pending
  REQUIRE(Trace::groups().empty());
  SECTION("an _out operator") { REQUIRE(bp_unary_out(BP_OP_NEG, w.handle(), x.handle()) == BP_OK); }
  SECTION("bp_assign") { REQUIRE(bp_assign(x.handle(), w.handle()) == BP_OK); }
  SECTION("bp_assign into a view") { x.slice(0, 0, 1).assign(bp::zeros({1, C}, bp::f32, d)); }
  SECTION("bp_from_host_into") {
    const std::vector<float> zeros(size_t(R * C));
    REQUIRE(bp_from_host_into(x.handle(), zeros.data(), zeros.size() * sizeof(float)) == BP_OK);
  }
  SECTION("a write into a pending result another operator read") {
    REQUIRE(bp_assign(y.handle(), w.handle()) == BP_OK);
    CHECK(y.to_vector<float>() == w.to_vector<float>());
  }
  CHECK(Trace::groups().size() == 1);
  std::vector<float> six;
  for (float v : old) six.push_back(v * 2.0f * 3.0f);
  CHECK(z.to_vector<float>() == six);
}

TEST_CASE("a write through a host address after bp_tensor_wait is not seen by operators recorded before", "[fusion]") {
  const bp::Device d = each_host_device();
  const bp::Tensor x = bp::ones({R, C}, bp::f32, d);
  void *address = nullptr;
  REQUIRE(bp_tensor_host_address(x.handle(), &address) == BP_OK);
  const bp::Tensor y = x * 2.0;
  // What a holder of the address (a DLPack consumer) does before touching
  // the memory, as bp_tensor_host_address asks: waiting for x runs the
  // group that reads it.
  REQUIRE(bp_tensor_wait(x.handle()) == BP_OK);
  const std::vector<float> fives(size_t(R * C), 5.0f);
  std::memcpy(address, fives.data(), fives.size() * sizeof(float));
  CHECK(y.to_vector<float>()[0] == 2.0f);
  CHECK(x.to_vector<float>()[0] == 5.0f);
}

TEST_CASE("gradients are the same with fusion on and off", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  // tanh(x @ w + b) through an elementwise head, 64 x 128 activations.
  const auto grads = [&](bool fused) {
    Fusion mode(fused);
    Trace trace;
    const bp::Tensor x = input<float>({R, 32}, 1, d) * 0.125;
    const bp::Tensor w = (input<float>({32, C}, 2, d) * 0.01).requires_grad_();
    const bp::Tensor b = (input<float>({1, C}, 3, d) * 0.1).requires_grad_();
    const bp::Tensor scale = (input<float>({R, C}, 4, d) * 0.05).requires_grad_();
    const bp::Tensor h = (bp::matmul(x, w) + b).tanh();
    const bp::Tensor act = h.sigmoid() * scale - h * h * 0.5 + (h * scale).exp();
    act.sum().backward();
    CHECK((Trace::count("deferred as operator") > 0) == fused);
    return std::vector<std::vector<uint8_t>>{bytes_of(w.grad()), bytes_of(b.grad()), bytes_of(scale.grad())};
  };
  const auto eager = grads(false);
  const auto fused = grads(true);
  CHECK(fused[0] == eager[0]);
  CHECK(fused[1] == eager[1]);
  CHECK(fused[2] == eager[2]);
}

TEST_CASE("another thread reads, waits for and releases what one thread recorded", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  const bp::Tensor x = bp::arange(0, double(R * C), 1, bp::f32, d).reshape({R, C});
  std::vector<float> expected;
  {
    Fusion off(false);
    expected = (((x * 2.0) + 1.0).sqrt() - x).to_vector<float>();
  }
  // Catch2's assertions are for the main thread: the others keep statuses.
  for (int round = 0; round < 4; ++round) {
    std::vector<bp::Tensor> made(4);
    std::thread maker([&] {
      for (bp::Tensor &t : made) t = ((x * 2.0) + 1.0).sqrt() - x;
    });
    maker.join();
    // Two readers of the same group's results and a thread dropping two
    // others: whoever comes first runs the group, the rest find it done.
    std::vector<std::vector<float>> seen(2, std::vector<float>(size_t(R * C)));
    bp_status waited = BP_ERR_INTERNAL, read[2] = {BP_ERR_INTERNAL, BP_ERR_INTERNAL};
    std::thread first([&] {
      waited = bp_tensor_wait(made[0].handle());
      read[0] = bp_to_host(made[0].handle(), seen[0].data(), seen[0].size() * sizeof(float));
    });
    std::thread second([&] { read[1] = bp_to_host(made[1].handle(), seen[1].data(), seen[1].size() * sizeof(float)); });
    std::thread dropper([&] {
      bp::Tensor a = std::move(made[2]), b = std::move(made[3]);
    });
    first.join();
    second.join();
    dropper.join();
    CHECK(waited == BP_OK);
    CHECK(read[0] == BP_OK);
    CHECK(read[1] == BP_OK);
    CHECK(seen[0] == expected);
    CHECK(seen[1] == expected);
  }
}

TEST_CASE("threads recording on one device at once each get their own results", "[fusion]") {
  bp::Device d;
  if (!each_device(d)) return;
  constexpr int kThreads = 4, kRounds = 8;
  std::vector<bp::Tensor> xs;
  std::vector<std::vector<float>> expected;
  {
    Fusion off(false);
    for (int t = 0; t < kThreads; ++t) {
      xs.push_back(bp::full({R, C}, double(t + 1), bp::f32, d));
      expected.push_back((xs.back() * 3.0 - 1.0).exp().to_vector<float>());
    }
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        bp_tensor a = BP_NO_TENSOR, b = BP_NO_TENSOR, c = BP_NO_TENSOR;
        std::vector<float> host(size_t(R * C));
        if (bp_binary_scalar(BP_OP_MUL, xs[size_t(t)].handle(), 3.0, 0, &a) != BP_OK ||
            bp_binary_scalar(BP_OP_SUB, a, 1.0, 0, &b) != BP_OK || bp_tensor_release(a) != BP_OK ||
            bp_unary(BP_OP_EXP, b, &c) != BP_OK || bp_tensor_release(b) != BP_OK ||
            bp_to_host(c, host.data(), host.size() * sizeof(float)) != BP_OK || bp_tensor_release(c) != BP_OK ||
            host != expected[size_t(t)])
          ++wrong;
      }
    });
  for (std::thread &th : threads) th.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("bp_fusion_enabled follows bp_fusion_enable and the configuration", "[fusion]") {
  bp_test::start(kConfig);
  CHECK(bp_fusion_enabled() == 1);  // the default
  const bp::Tensor x = bp::ones({R, C}, bp::f32, bp::cpu());
  {
    Trace trace;
    REQUIRE(bp_fusion_enable(0) == BP_OK);
    CHECK(bp_fusion_enabled() == 0);
    const bp::Tensor eager = x * 2.0;
    CHECK(Trace::count("deferred") == 0);
    CHECK(Trace::count("ran on backend cpu-openblas") == 1);
    REQUIRE(bp_fusion_enable(7) == BP_OK);
    CHECK(bp_fusion_enabled() == 1);
    const bp::Tensor lazy = x * 2.0;
    CHECK(Trace::count("deferred as operator 1") == 1);
    CHECK(bytes_of(lazy) == bytes_of(eager));
  }
  SECTION("what a switch-off leaves recorded still runs when needed") {
    const bp::Tensor lazy = x * 4.0;
    REQUIRE(bp_fusion_enable(0) == BP_OK);
    CHECK(lazy.to_vector<float>()[0] == 4.0f);
    REQUIRE(bp_fusion_enable(1) == BP_OK);
  }
  SECTION("smaller operators run at once") {
    Trace trace;
    const bp::Tensor small = bp::ones({4095}, bp::f32, bp::cpu()) + 1.0;
    CHECK(Trace::count("deferred") == 0);
    const bp::Tensor large = bp::ones({4096}, bp::f32, bp::cpu()) + 1.0;
    CHECK(Trace::count("deferred") == 1);
  }
}

namespace {

// The runtime stopped, with an open group nobody holds a result of (the
// restart drops it).
void restart() {
  {
    const bp::Tensor x = bp::ones({R, C}, bp::f32, bp::cpu());
    const bp::Tensor y = x * 2.0;
  }
  REQUIRE(bp_testing_restart() == BP_OK);
}

// The runtime as bp_test::start(kConfig) expects it.
void restart_as_before() {
  REQUIRE(bp_testing_restart() == BP_OK);
  REQUIRE(bp_init_from_string(kConfig.c_str(), "test-config.toml") == BP_OK);
}

// bp_fusion_enabled() in a runtime started with kConfig plus `extra` (and
// the environment).
int32_t fusion_after_init(const std::string &extra) {
  restart();
  const std::string toml = std::string(kConfig) + extra;
  REQUIRE(bp_init_from_string(toml.c_str(), "fusion.toml") == BP_OK);
  const int32_t on = bp_fusion_enabled();
  restart_as_before();
  return on;
}

// bp_fusion_enabled() as the first call after a restart, which starts the
// runtime from BACKPLANE_CONFIG and the environment, as a first call does.
int32_t fusion_as_first_call() {
  restart();
  const int32_t on = bp_fusion_enabled();
  restart_as_before();
  return on;
}

}  // namespace

TEST_CASE("BACKPLANE_FUSION=0 and [dispatch] fusion = false start with fusion off", "[fusion]") {
  bp_test::start(kConfig);
  CHECK(fusion_after_init("") == 1);
  CHECK(fusion_after_init("[dispatch]\nfusion = false\n") == 0);
  CHECK(fusion_as_first_call() == 1);
  setenv("BACKPLANE_FUSION", "0", 1);
  // The answer the first operator will follow, not what the last runtime
  // (fusion on) left.
  CHECK(fusion_as_first_call() == 0);
  CHECK(fusion_after_init("") == 0);
  CHECK(fusion_after_init("[dispatch]\nfusion = true\n") == 0);  // the environment wins
  unsetenv("BACKPLANE_FUSION");
  CHECK(fusion_after_init("") == 1);
  bool found = false;
  for (int32_t i = 0; i < bp_config_count(); ++i) {
    const char *k, *v, *o;
    REQUIRE(bp_config_entry(i, &k, &v, &o) == BP_OK);
    if (std::string(k) == "dispatch.fusion") {
      found = true;
      CHECK(std::string(v) == "true");
    }
  }
  CHECK(found);
}
