// cpu-openblas on the 1.4 dtypes with concrete values: conversions against
// backplane/half.h bit for bit (dense, so the vector path, and strided),
// single rounding from float64 and int64, integer wrapping and saturation,
// halves computing in float32 and rounding once, sums and MATMUL that
// accumulate wider than the dtype, and the creation operators.
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "backplane/kernels/random.h"
#include "cpu_vs_reference.hpp"
#include "skip.hpp"

using namespace cpu_test;
using bp_plugin::bfloat16;
using bp_plugin::float16;

namespace {

// The harness's dtype_of knows the 1.0 element types (uint8_t is its bool):
// here each tensor names its dtype.
template <class T>
bp_plugin_tensor put(Buffers &s, bp_dtype dtype, const Shape &shape, const std::vector<T> &values) {
  REQUIRE(numel(shape) == static_cast<int64_t>(values.size()));
  REQUIRE(dtype_size(dtype) == static_cast<int64_t>(sizeof(T)));
  return dense_view(s.buffer(values), dtype, shape);
}

// op on equal-length 1-D inputs of dtype `in`, into dtype `out`.
template <class R, class T>
std::vector<R> apply(Buffers &s, int32_t op, bp_dtype in, bp_dtype out, const std::vector<std::vector<T>> &inputs) {
  std::vector<bp_plugin_tensor> views;
  const int64_t n = static_cast<int64_t>(inputs.at(0).size());
  for (const auto &v : inputs) views.push_back(put(s, in, {n}, v));
  const bp_plugin_tensor o = s.empty(out, {n});
  s.exec(op, views, o);
  return s.values<R>(o);
}

// AVX-512 BF16 (CPUID leaf 7, subleaf 1, EAX bit 5), the instructions of
// oneDNN's native bfloat16 GEMM; the AVX-512F test covers the OS's saving
// of ZMM state.
bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __builtin_cpu_supports("avx512f") && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 5));
#else
  return false;
#endif
}

PluginHandle &cpu() {
  static PluginHandle handle("cpu-openblas", {{"threads", "2"}});
  return handle;
}

// The device's properties, by key.
std::map<std::string, std::string> cpu_properties() {
  bp_property props[32];
  int32_t n = 0;
  REQUIRE(cpu().api().device_properties(0, props, 32, &n) == BP_OK);
  std::map<std::string, std::string> got;
  for (int32_t i = 0; i < n; ++i) got[props[i].key] = props[i].value;
  return got;
}

float f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <class H>
std::vector<uint16_t> bits_of(const std::vector<H> &v) {
  std::vector<uint16_t> out;
  for (H h : v) out.push_back(static_cast<uint16_t>(h));
  return out;
}

template <class H>
std::vector<H> halves(const std::vector<uint16_t> &bits) {
  std::vector<H> out;
  for (uint16_t b : bits) out.push_back(static_cast<H>(b));
  return out;
}

// NaN-aware equality of 16-bit float bits: any NaN equals any NaN.
bool same_f16(uint16_t a, uint16_t b) {
  const bool na = (a & 0x7fff) > 0x7c00, nb = (b & 0x7fff) > 0x7c00;
  return na || nb ? na && nb : a == b;
}
bool same_bf16(uint16_t a, uint16_t b) {
  const bool na = (a & 0x7fff) > 0x7f80, nb = (b & 0x7fff) > 0x7f80;
  return na || nb ? na && nb : a == b;
}

std::vector<float> copy_sources() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.5f, 65504.0f, 65519.0f, 65520.0f, -65520.0f, f32(0x33800000),
                          f32(0x33000000), f32(0x33c00000), f32(0x387fe000), f32(0x3f801000), f32(0x3f803000),
                          f32(0x3f808000), f32(0x3f818000), f32(0x7f7f0000), f32(0x7f7f8000), f32(0x00000001),
                          f32(0x00018000), INFINITY, -INFINITY, NAN};
  std::mt19937 rng(3);
  while (v.size() < 100000) v.push_back(f32(static_cast<uint32_t>(rng())));  // large: threads and vectors
  return v;
}

}  // namespace

TEST_CASE("COPY between float32 and the 16-bit floats gives half.h's bits, dense and strided", "[small]") {
  Buffers s(cpu());
  const std::vector<float> src = copy_sources();
  const int64_t n = static_cast<int64_t>(src.size());
  const bp_plugin_tensor in = s.tensor<float>({n}, src);
  for (bool strided : {false, true}) {
    INFO((strided ? "strided" : "dense"));
    // The strided case reads every other element of a twice-as-long buffer.
    std::vector<float> spaced(src.size() * 2, 7.0f);
    for (size_t i = 0; i < src.size(); ++i) spaced[2 * i] = src[i];
    const bp_plugin_tensor from = strided ? s.view<float>(spaced, {n}, {2}) : in;
    const bp_plugin_tensor h = s.empty(BP_FLOAT16, {n}), b = s.empty(BP_BFLOAT16, {n});
    s.exec(BP_OP_COPY, {from}, h);
    s.exec(BP_OP_COPY, {from}, b);
    const std::vector<uint16_t> hb = bits_of(s.values<float16>(h)), bb = bits_of(s.values<bfloat16>(b));
    size_t bad = 0;
    for (size_t i = 0; i < src.size(); ++i) bad += hb[i] != bp_f16_from_f32(src[i]) || bb[i] != bp_bf16_from_f32(src[i]);
    CHECK(bad == 0);
    CHECK(hb[6] == 0x7c00);  // 65520 ties to infinity
    CHECK(hb[4] == 0x7bff);
    CHECK(bb[17] == 0x7f80);  // bfloat16's tie past its largest finite
    CHECK(bb[19] == 0x0002);  // a float32 subnormal kept, not flushed
    // And back: exact widening.
    const bp_plugin_tensor back = s.empty(BP_FLOAT32, {n});
    s.exec(BP_OP_COPY, {h}, back);
    const std::vector<float> wide = s.values<float>(back);
    bad = 0;
    for (size_t i = 0; i < src.size(); ++i) {
      uint32_t got, want;
      const float w = bp_f32_from_f16(hb[i]);
      std::memcpy(&got, &wide[i], 4);
      std::memcpy(&want, &w, 4);
      bad += got != want;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("COPY into 16-bit floats rounds float64 and int64 once", "[small]") {
  Buffers s(cpu());
  // 1 + 2^-11 + 2^-40 is above float16's tie at 1 + 2^-11, but rounds to that
  // tie in float32: through float32 it would round down to 1.
  const std::vector<double> d = {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 65519.999, -0.0, 1e300};
  const bp_plugin_tensor dt = s.tensor<double>({4}, d);
  const bp_plugin_tensor h = s.empty(BP_FLOAT16, {4});
  s.exec(BP_OP_COPY, {dt}, h);
  CHECK(bits_of(s.values<float16>(h)) == std::vector<uint16_t>{0x3c01, 0x7bff, 0x8000, 0x7c00});
  // 2^24 + 2^16 + 1: bfloat16 keeps 8 bits, the sticky 1 decides the tie.
  const std::vector<int64_t> i = {(int64_t(1) << 24) + (int64_t(1) << 16) + 1, -3, INT64_MAX};
  const bp_plugin_tensor it = s.tensor<int64_t>({3}, i);
  const bp_plugin_tensor b = s.empty(BP_BFLOAT16, {3});
  s.exec(BP_OP_COPY, {it}, b);
  const std::vector<uint16_t> bb = bits_of(s.values<bfloat16>(b));
  CHECK(bb == std::vector<uint16_t>{bp_bf16_from_i64(i[0]), bp_bf16_from_i64(-3), bp_bf16_from_i64(INT64_MAX)});
  CHECK(bb[0] == 0x4b81);
}

TEST_CASE("COPY into small integers wraps integers and saturates floats", "[small]") {
  Buffers s(cpu());
  const bp_plugin_tensor ints = s.tensor<int64_t>({4}, {300, -129, 65537, -1});
  const bp_plugin_tensor floats = s.tensor<float>({5}, {300.5f, -1e9f, NAN, -3.7f, 255.9f});
  const bp_plugin_tensor i8 = s.empty(BP_INT8, {4}), u8 = s.empty(BP_UINT8, {4}), i16 = s.empty(BP_INT16, {4});
  s.exec(BP_OP_COPY, {ints}, i8);
  s.exec(BP_OP_COPY, {ints}, u8);
  s.exec(BP_OP_COPY, {ints}, i16);
  CHECK(s.values<int8_t>(i8) == std::vector<int8_t>{44, 127, 1, -1});
  CHECK(s.values<uint8_t>(u8) == std::vector<uint8_t>{44, 127, 1, 255});
  CHECK(s.values<int16_t>(i16) == std::vector<int16_t>{300, -129, 1, -1});
  const bp_plugin_tensor f8 = s.empty(BP_INT8, {5}), fu8 = s.empty(BP_UINT8, {5});
  s.exec(BP_OP_COPY, {floats}, f8);
  s.exec(BP_OP_COPY, {floats}, fu8);
  CHECK(s.values<int8_t>(f8) == std::vector<int8_t>{127, -128, 0, -3, 127});
  CHECK(s.values<uint8_t>(fu8) == std::vector<uint8_t>{255, 0, 0, 0, 255});
}

TEST_CASE("small integer arithmetic wraps in its own width", "[small]") {
  Buffers s(cpu());
  CHECK(apply<int8_t, int8_t>(s, BP_OP_ADD, BP_INT8, BP_INT8, {{100, -128}, {100, -1}}) == std::vector<int8_t>{-56, 127});
  CHECK(apply<int16_t, int16_t>(s, BP_OP_MUL, BP_INT16, BP_INT16, {{300, -32768}, {300, -1}}) == std::vector<int16_t>{24464, -32768});
  CHECK(apply<uint8_t, uint8_t>(s, BP_OP_SUB, BP_UINT8, BP_UINT8, {{1}, {2}}) == std::vector<uint8_t>{255});
  CHECK(apply<uint8_t, uint8_t>(s, BP_OP_FLOOR_DIVIDE, BP_UINT8, BP_UINT8, {{10, 200}, {255, 7}}) == std::vector<uint8_t>{0, 28});
  CHECK(apply<uint8_t, uint8_t>(s, BP_OP_REMAINDER, BP_UINT8, BP_UINT8, {{10, 200}, {255, 7}}) == std::vector<uint8_t>{10, 4});
  CHECK(apply<int8_t, int8_t>(s, BP_OP_FLOOR_DIVIDE, BP_INT8, BP_INT8, {{-128, -7}, {-1, 2}}) == std::vector<int8_t>{-128, -4});
  CHECK(apply<int8_t, int8_t>(s, BP_OP_POW, BP_INT8, BP_INT8, {{3, 2}, {5, -1}}) == std::vector<int8_t>{-13, 0});
  CHECK(apply<int8_t, int8_t>(s, BP_OP_ABS, BP_INT8, BP_INT8, {{-128, -5}}) == std::vector<int8_t>{-128, 5});
  CHECK(apply<uint8_t, uint8_t>(s, BP_OP_NEG, BP_UINT8, BP_UINT8, {{1, 0}}) == std::vector<uint8_t>{255, 0});
  CHECK(apply<int16_t, int16_t>(s, BP_OP_BITWISE_XOR, BP_INT16, BP_INT16, {{-1, 0x0f0f}, {0x00ff, 0x00ff}}) ==
        std::vector<int16_t>{-256, 0x0ff0});
  CHECK(apply<bp_plugin::boolean, uint8_t>(s, BP_OP_LT, BP_UINT8, BP_BOOL, {{1, 200}, {200, 1}}) ==
        std::vector<bp_plugin::boolean>{bp_plugin::boolean(1), bp_plugin::boolean(0)});
}

TEST_CASE("float16 and bfloat16 arithmetic is float32 rounded once, bit for bit", "[small]") {
  Buffers s(cpu());
  std::mt19937 rng(11);
  std::vector<uint16_t> a(5000), b(5000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint16_t>(rng()), b[i] = static_cast<uint16_t>(rng());
  a[0] = 0x7bff, b[0] = 0x4800;  // 65504 + 8: rounds to 65504; * : overflows to inf
  const struct {
    bp_op op;
    float (*f)(float, float);
  } ops[] = {{BP_OP_ADD, [](float x, float y) { return x + y; }},
             {BP_OP_SUB, [](float x, float y) { return x - y; }},
             {BP_OP_MUL, [](float x, float y) { return x * y; }},
             {BP_OP_DIV, [](float x, float y) { return x / y; }},
             {BP_OP_MAXIMUM, [](float x, float y) { return x != x ? x : y != y ? y : x > y ? x : y; }}};
  for (const auto &o : ops) {
    INFO(op_name(o.op));
    const std::vector<uint16_t> h = bits_of(apply<float16, float16>(s, o.op, BP_FLOAT16, BP_FLOAT16, {halves<float16>(a), halves<float16>(b)}));
    const std::vector<uint16_t> g =
        bits_of(apply<bfloat16, bfloat16>(s, o.op, BP_BFLOAT16, BP_BFLOAT16, {halves<bfloat16>(a), halves<bfloat16>(b)}));
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      bad += !same_f16(h[i], bp_f16_from_f32(o.f(bp_f32_from_f16(a[i]), bp_f32_from_f16(b[i]))));
      bad += !same_bf16(g[i], bp_bf16_from_f32(o.f(bp_f32_from_bf16(a[i]), bp_f32_from_bf16(b[i]))));
    }
    CHECK(bad == 0);
  }
  CHECK(bits_of(apply<float16, float16>(s, BP_OP_ADD, BP_FLOAT16, BP_FLOAT16, {halves<float16>({0x7bff, 0x3c00}), halves<float16>({0x4800, 0x1000})})) ==
        std::vector<uint16_t>{0x7bff, 0x3c00});  // 65504 + 8 and 1 + 2^-11: ties to even
  CHECK(bits_of(apply<float16, float16>(s, BP_OP_SQRT, BP_FLOAT16, BP_FLOAT16, {halves<float16>({0x4400, 0x8000})})) ==
        std::vector<uint16_t>{0x4000, 0x8000});
}

TEST_CASE("sums of small dtypes accumulate wider than the dtype", "[small]") {
  Buffers s(cpu());
  // 10000 ones: a float16 running sum would stall at 2048.
  const bp_plugin_tensor ones = put<float16>(s, BP_FLOAT16, {10000}, std::vector<float16>(10000, static_cast<float16>(0x3c00)));
  const bp_plugin_tensor sum = s.empty(BP_FLOAT16, {1});
  s.exec(BP_OP_SUM, {ones}, sum);
  CHECK(bits_of(s.values<float16>(sum)) == std::vector<uint16_t>{bp_f16_from_f32(10000.0f)});
  const bp_plugin_tensor i8 = put<int8_t>(s, BP_INT8, {300}, std::vector<int8_t>(300, 100));
  const bp_plugin_tensor total = s.empty(BP_INT64, {1}), scan = s.empty(BP_INT64, {300});
  s.exec(BP_OP_SUM, {i8}, total);
  s.exec(BP_OP_CUMSUM, {i8}, scan);
  CHECK(s.values<int64_t>(total) == std::vector<int64_t>{30000});
  CHECK(s.values<int64_t>(scan)[299] == 30000);
  const bp_plugin_tensor u8 = put<uint8_t>(s, BP_UINT8, {3}, {200, 250, 2});
  const bp_plugin_tensor prod = s.empty(BP_INT64, {1});
  s.exec(BP_OP_PROD, {u8}, prod);
  CHECK(s.values<int64_t>(prod) == std::vector<int64_t>{100000});
  const bp_plugin_tensor bmax = s.empty(BP_BFLOAT16, {1});
  const bp_plugin_tensor bvals = put<bfloat16>(s, BP_BFLOAT16, {3}, halves<bfloat16>({0xbf80, 0x7f7f, 0x3f80}));
  s.exec(BP_OP_MAX, {bvals}, bmax);
  CHECK(bits_of(s.values<bfloat16>(bmax)) == std::vector<uint16_t>{0x7f7f});
}

TEST_CASE("MATMUL of halves accumulates in float32, of small integers wraps", "[small]") {
  Buffers s(cpu());
  const int64_t k = 4096;  // a float16 accumulator would stall at 2048
  const std::vector<float16> one(static_cast<size_t>(k), static_cast<float16>(0x3c00));
  const bp_plugin_tensor a = put<float16>(s, BP_FLOAT16, {1, k}, one), b = put<float16>(s, BP_FLOAT16, {k, 1}, one);
  const bp_plugin_tensor c = s.empty(BP_FLOAT16, {1, 1});
  s.exec(BP_OP_MATMUL, {a, b}, c);
  CHECK(bits_of(s.values<float16>(c)) == std::vector<uint16_t>{0x6c00});  // 4096
  const bp_plugin_tensor x = put<int8_t>(s, BP_INT8, {2, 2}, {100, 1, -128, 2});
  const bp_plugin_tensor y = put<int8_t>(s, BP_INT8, {2, 2}, {100, 0, 1, 3});
  const bp_plugin_tensor z = s.empty(BP_INT8, {2, 2});
  s.exec(BP_OP_MATMUL, {x, y}, z);
  // [[10001, 3], [-12798, 6]] modulo 2^8.
  CHECK(s.values<int8_t>(z) == std::vector<int8_t>{17, 3, 2, 6});
}

TEST_CASE("FILL, ARANGE and RANDOM_UNIFORM in the 1.4 dtypes", "[small]") {
  Buffers s(cpu());
  const bp_plugin_tensor h = s.empty(BP_FLOAT16, {3});
  s.exec(BP_OP_FILL, {}, h, attrs_with(65520.0));
  CHECK(bits_of(s.values<float16>(h)) == std::vector<uint16_t>{0x7c00, 0x7c00, 0x7c00});
  const bp_plugin_tensor i8 = s.empty(BP_INT8, {2});
  s.exec(BP_OP_FILL, {}, i8, attrs_with(1000.0));
  CHECK(s.values<int8_t>(i8) == std::vector<int8_t>{127, 127});
  const bp_plugin_tensor r = s.empty(BP_INT16, {4});
  s.exec(BP_OP_ARANGE, {}, r, attrs_with(-2.0, 1.5));
  CHECK(s.values<int16_t>(r) == std::vector<int16_t>{-2, 0, 1, 2});
  const int64_t n = 50000;
  const bp_plugin_tensor u = s.empty(BP_BFLOAT16, {n});
  s.exec(BP_OP_RANDOM_UNIFORM, {}, u, attrs_with(-1.0, 3.0, 42));
  const std::vector<uint16_t> got = bits_of(s.values<bfloat16>(u));
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float draw = -1.0f + (3.0f - -1.0f) * bp_random_unit_f32(42, static_cast<uint64_t>(i));
    bad += got[static_cast<size_t>(i)] != bp_bf16_from_f32(draw);
  }
  CHECK(bad == 0);
}

TEST_CASE("the device names its half GEMM path and conversion instructions", "[small]") {
  std::map<std::string, std::string> got = cpu_properties();
  CHECK(got["gemm_float16_path"] == "convert-to-f32+cblas_sgemm");
  const std::string bf16 = got["gemm_bfloat16_path"];
  CHECK((bf16 == "convert-to-f32+cblas_sgemm" || bf16.rfind("onednn:", 0) == 0));
  // oneDNN only where its kernel is native: emulated bfloat16 is slower than sgemm.
  if (!cpu_has_avx512_bf16()) CHECK(bf16 == "convert-to-f32+cblas_sgemm");
  CHECK(got["gemm_half_path"].find("convert-to-f32+cblas_sgemm") != std::string::npos);
  CHECK((got["half_conversions"] == "avx512f" || got["half_conversions"] == "avx2+f16c" ||
         got["half_conversions"] == "scalar"));
}

// The MATMUL tests around it run on whichever path the device names; this
// one says which machines ran the oneDNN path.
TEST_CASE("bfloat16 GEMM takes oneDNN's native kernel where the CPU has AVX-512 BF16", "[small]") {
  if (!cpu_has_avx512_bf16())
    return bp_test::skip("needs AVX-512 BF16, which this CPU lacks: its bfloat16 GEMM is convert-to-f32+cblas_sgemm");
#ifndef BP_TEST_CPU_OPENBLAS_HAS_ONEDNN
  return bp_test::skip("needs cpu-openblas built with oneDNN (libdnnl-dev), which this build is not");
#else
  const std::string path = cpu_properties()["gemm_bfloat16_path"];
  CHECK(path.rfind("onednn:", 0) == 0);
  CHECK((path.find("avx512_core_bf16") != std::string::npos || path.find("amx") != std::string::npos));
#endif
}

TEST_CASE("bfloat16 MATMUL is exact on small integers and keeps subnormals, on every path", "[small]") {
  Buffers s(cpu());
  // Large enough for the library paths (oneDNN or sgemm), and shapes the
  // oneDNN path splits over the pool's threads by columns, by rows, and
  // raggedly.
  const int64_t shapes[][3] = {{48, 48, 48}, {127, 65, 130}, {300, 200, 300}, {1000, 33, 40}};
  std::mt19937 rng(9);
  for (const auto &shape : shapes) {
    const int64_t m = shape[0], kk = shape[1], n = shape[2];
    INFO("m " << m << ", k " << kk << ", n " << n);
    std::vector<bfloat16> a(static_cast<size_t>(m * kk)), b(static_cast<size_t>(kk * n));
    std::vector<int64_t> ai(a.size()), bi(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ai[i] = static_cast<int64_t>(rng() % 5) - 2;
      a[i] = static_cast<bfloat16>(bp_bf16_from_i64(ai[i]));
    }
    for (size_t i = 0; i < b.size(); ++i) {
      bi[i] = static_cast<int64_t>(rng() % 5) - 2;
      b[i] = static_cast<bfloat16>(bp_bf16_from_i64(bi[i]));
    }
    const bp_plugin_tensor at = put<bfloat16>(s, BP_BFLOAT16, {m, kk}, a);
    // b read transposed: element (k, j) at j * kk + k.
    bp_plugin_tensor bt = put<bfloat16>(s, BP_BFLOAT16, {kk, n}, b);
    bt.strides[0] = 1;
    bt.strides[1] = kk;
    const bp_plugin_tensor c = s.empty(BP_BFLOAT16, {m, n});
    s.exec(BP_OP_MATMUL, {at, bt}, c);
    const std::vector<uint16_t> got = bits_of(s.values<bfloat16>(c));
    size_t bad = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t k = 0; k < kk; ++k)
          sum += ai[static_cast<size_t>(i * kk + k)] * bi[static_cast<size_t>(j * kk + k)];
        bad += got[static_cast<size_t>(i * n + j)] != bp_bf16_from_i64(sum);
      }
    CHECK(bad == 0);
  }
  const int64_t n = 48;
  // A subnormal times the identity stays that subnormal (a kernel that
  // flushes subnormals would give 0).
  std::vector<bfloat16> sub(static_cast<size_t>(n * n), static_cast<bfloat16>(0)), eye = sub;
  for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = static_cast<bfloat16>(0x3f80);
  sub[5] = static_cast<bfloat16>(0x0003);
  const bp_plugin_tensor st = put<bfloat16>(s, BP_BFLOAT16, {n, n}, sub), et = put<bfloat16>(s, BP_BFLOAT16, {n, n}, eye);
  const bp_plugin_tensor d = s.empty(BP_BFLOAT16, {n, n});
  s.exec(BP_OP_MATMUL, {st, et}, d);
  const std::vector<uint16_t> kept = bits_of(s.values<bfloat16>(d));
  CHECK(kept[5] == 0x0003);
  CHECK(std::count(kept.begin(), kept.end(), uint16_t(0)) == static_cast<std::ptrdiff_t>(kept.size() - 1));
}
