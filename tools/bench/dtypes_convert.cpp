// The "dtypes" figure's conversion part: float32 <-> bfloat16 and float32
// <-> float16 through bp_assign into an existing tensor (as memcpy writes
// into an existing buffer), next to memcpy of the same number of bytes
// moved: a conversion reads 4 and writes 2 bytes per element or the other
// way round, 6 in all, which a memcpy of 3 bytes per element also moves.
// The goal: 0.8x memcpy's GB/s.
#include <cstring>
#include <memory>

#include "dtypes.hpp"

namespace bptool::bench::dtypes {

namespace {

constexpr double kBytesPerElement = 4 + 2;

// dst = src (converting), then a synchronize.
Work assigns(const bp::Tensor &dst, const bp::Tensor &src, bp_device device) {
  return [dst = dst.handle(), src = src.handle(), device](int64_t k) {
    for (int64_t i = 0; i < k; ++i) bp::check(bp_assign(dst, src));
    bp::check(bp_synchronize(device));
  };
}

}  // namespace

void conversion_rows(Context &ctx, Report &rep, const Setup &s) {
  const int64_t n = s.elements;
  const double moved = kBytesPerElement * double(n);
  const int threads = s.threads;
  const double target_s = 0.001;  // one conversion per timed batch at 1e8

  ctx.progress("dtypes: allocating the conversions' float32 tensor and memcpy buffers (" + s.count + " elements)");
  // Values of every magnitude bfloat16 and float16 keep apart, so that no
  // conversion has only easy cases; float16 overflows past 65504 to inf.
  const bp::Tensor f32 = bp::random_uniform({n}, -7e4, 7e4, 3, bp::f32, s.cpu);
  f32.wait();
  const size_t copy_bytes = size_t(moved / 2);
  std::unique_ptr<char[]> from(new char[copy_bytes]), to(new char[copy_bytes]);
  char *pf = from.get(), *pt = to.get();
  // First touch before timing, by the threads that copy (as the tensors'
  // pages are touched by their creation).
  parallel(threads, int64_t(copy_bytes), [&](int64_t b, int64_t e) {
    std::memset(pf + b, 1, size_t(e - b));
    std::memset(pt + b, 0, size_t(e - b));
  });
  const Work copy = [=](int64_t k) {
    for (int64_t i = 0; i < k; ++i)
      parallel(threads, int64_t(copy_bytes), [&](int64_t b, int64_t e) { std::memcpy(pt + b, pf + b, size_t(e - b)); });
  };
  const std::string thr = std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
  const std::string baseline_name = "memcpy of the same bytes moved (" + thr + ")";

  for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT16}) {
    const std::string name = bp_dtype_name(dtype);
    for (bool to_half : {true, false}) {
      const std::string what = to_half ? "float32 -> " + name : name + " -> float32";
      Row r{"dtypes", "convert " + s.count + " " + what, "cpu:0", "GB/s"};
      r.baseline_name = baseline_name;
      r.target = kConvertTarget;
      r.note = "bp_assign into an existing tensor; GB/s of bytes read + written";
      add_row(ctx, rep, r, [&](Row &row) {
        ctx.progress("dtypes: convert " + what);
        const bp::Tensor src = to_half ? f32 : f32.astype(dtype);
        const bp::Tensor dst = bp::zeros({n}, to_half ? dtype : bp::f32, s.cpu);
        src.wait();
        dst.wait();
        const Pair p = compare(assigns(dst, src, s.cpu.id()), copy, s.trials, target_s);
        row.backplane = gbps(moved, p.a);
        row.baseline = gbps(moved, p.b);
        row.spread = p.spread();
      });
    }
  }
}

}  // namespace bptool::bench::dtypes
