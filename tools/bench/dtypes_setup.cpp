// What every part of the "dtypes" figure (fig_dtypes.cpp) measures with:
// the sizes, trials and threads, and how a row that fails says so. Shared
// by bp and bp-bench-direct, which measures the GEMM part.
#include <algorithm>
#include <exception>

#include "dtypes.hpp"

namespace bptool::bench {

namespace dtypes {

namespace {

// "1e8" for a power of ten, else the number itself.
std::string count_text(int64_t n) {
  int exponent = 0;
  int64_t v = n;
  while (v >= 10 && v % 10 == 0) {
    v /= 10;
    ++exponent;
  }
  return v == 1 && exponent > 0 ? "1e" + std::to_string(exponent) : std::to_string(n);
}

// The sizes (n = 512 to 2048), fewer with --quick; with --size,
// those whose operands hold at most that many elements, else the largest
// power of two that does.
std::vector<int64_t> gemm_sizes(const Context &ctx) {
  const std::vector<int64_t> all = ctx.quick ? std::vector<int64_t>{256, 512} : std::vector<int64_t>{512, 1024, 2048};
  if (ctx.size <= 0) return all;
  std::vector<int64_t> fit;
  for (int64_t n : all)
    if (n * n <= ctx.size) fit.push_back(n);
  if (fit.empty()) {
    int64_t n = 1;
    while (4 * n * n <= ctx.size) n *= 2;
    fit.push_back(n);
  }
  return fit;
}

}  // namespace

void add_row(Context &ctx, Report &rep, Row r, const std::function<void(Row &)> &measure) {
  try {
    measure(r);
  } catch (const bp::Error &e) {
    r.backplane = r.baseline = r.spread = kNaN;
    r.note = std::string("failed: ") + bp_status_name(e.status()) + ": " + e.what() + (r.note.empty() ? "" : "; " + r.note);
  } catch (const std::exception &e) {
    r.backplane = r.baseline = r.spread = kNaN;
    r.note = std::string("failed: ") + e.what() + (r.note.empty() ? "" : "; " + r.note);
  }
  ctx.progress_done();
  rep.add(r);
}

bool make_setup(const Context &ctx, Setup *s, std::string *why) {
  bp_device cpu_id;
  if (bp_cpu(&cpu_id) != BP_OK) {
    *why = std::string("no cpu:0: ") + bp_last_error();
    return false;
  }
  s->cpu = bp::Device(cpu_id);
  s->elements = ctx.size > 0 ? ctx.size : ctx.quick ? 10000000 : 100000000;
  s->count = count_text(s->elements);
  s->gemm_sizes = gemm_sizes(ctx);
  // As the gemm figure: enough batches that a median is not one of two
  // modes by chance (compare() in timing.cpp).
  s->trials = ctx.quick ? 5 : 7;
  // The baselines' threads are started per call: below about a MiB each,
  // starting them would be most of what a small --size measures.
  s->threads = int(std::max<int64_t>(1, std::min<int64_t>(cpu_thread_count(ctx), s->elements / (int64_t(1) << 18))));
  return true;
}

}  // namespace dtypes

}  // namespace bptool::bench
