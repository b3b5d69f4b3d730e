// bench.hpp — what every `bp bench` figure shares: the run context, result
// rows (each Backplane figure next to its baseline, measured in the same
// run), timing helpers, and the figure table.
//
// Adding a figure: write bench/fig_<name>.cpp with a
// `void figure_<name>(Context &, Report &)`, declare it below, and add it to
// kFigures in cmd_bench.cpp and to BP_TOOL_SOURCES in CMakeLists.txt.
// Figures only print: timings are never asserted anywhere.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backplane.hpp"
#include "timing.hpp"

namespace bptool::bench {

struct Context {
  bool quick = false;
  int64_t size = 0;              // --size: the dtypes figure's element count (0: its own)
  std::string openblas_core;     // cpu:0 property openblas_core ("" if absent)
  std::string openblas_threads;  // cpu:0 property openblas_threads
  std::string cpu_threads;       // cpu:0 property threads (the plugin's own pool)
  std::string load;              // /proc/loadavg, refreshed before each figure

  // A new step on the progress line (progress.hpp), and its end before a row
  // is printed.
  void progress(const std::string &what) const;
  void progress_done() const;
};

// One measurement: Backplane's figure and its baseline. units where more is
// better (GFLOPS, GB/s) give ratio = backplane / baseline; time units (ns/op,
// ms) give ratio = baseline / backplane; either way the ratio is Backplane's
// speed over the baseline's, and >1 means Backplane faster (kRatioReads).
struct Row {
  std::string figure;         // "gemm"
  std::string params;         // "float32 n=512"
  std::string device;         // "cpu:0"
  std::string unit;           // "GFLOPS"
  bool higher_is_better = true;
  double backplane = kNaN;
  double baseline = kNaN;
  std::string baseline_name;  // "cblas_sgemm (OpenBLAS, direct)"
  std::string note;           // a remark, or why a value is missing
  double spread = kNaN;       // Pair::spread() of the measurement, when it was a compare()
  double target = kNaN;       // the least ratio a stated goal asks for; NaN: no goal

  Row() = default;
  // What every row names first: Row r{"gemm", "float32 n=512", "cpu:0", "GFLOPS"}.
  Row(std::string figure_, std::string params_, std::string device_, std::string unit_)
      : figure(std::move(figure_)), params(std::move(params_)), device(std::move(device_)), unit(std::move(unit_)) {}

  double ratio() const;
  // Whether ratio() reaches target: 1 yes, 0 no, -1 no target or no ratio.
  int target_met() const;
  // The target's verdict, note, and a remark that the ratio may be noise
  // when spread > kNoisySpread.
  std::string full_note() const;
};

// A batch spread above which a row says its ratio may be noise: a side
// whose batches differ by half is not measured to better than that.
inline constexpr double kNoisySpread = 1.5;

// How the ratio column reads, printed with every table.
inline constexpr const char kRatioReads[] =
    "ratio = Backplane's speed / the baseline's (times: baseline / Backplane; GFLOPS, GB/s: "
    "Backplane / baseline): above 1 Backplane is faster, below 1 slower";

// How a Report prints: a table per figure, bp bench --json's lines, or each
// row's own fields as a JSON line for bp to read back (relay: what
// bp-bench-direct prints; direct.hpp).
enum class Output { table, json, relay };

// Collects rows; prints them as a table per figure or as JSON lines.
class Report {
 public:
  Report(const Context &ctx, Output output) : ctx_(ctx), output_(output) {}
  void begin_figure(const std::string &name, const std::string &title);
  void add(const Row &row);
  // A row with no measurement, only a reason ("skipped: no OpenCL device").
  void skip(const std::string &figure, const std::string &params, const std::string &device,
            const std::string &unit, const std::string &baseline_name, const std::string &why);
  void end_figure();
  size_t rows_printed() const { return printed_; }

 private:
  const Context &ctx_;
  Output output_;
  std::string figure_, title_;
  double started_ = 0;
  std::vector<Row> rows_;
  size_t printed_ = 0;
};

// A row as Output::relay prints it (its own fields, no derived ones), and
// back: false when the line is no such row.
std::string relay_line(const Row &row);
bool row_from_relay_line(const std::string &line, Row *row);

// What every figure reads of cpu:0's properties into ctx (openblas_core,
// openblas_threads, cpu_threads); left empty without a cpu:0.
void read_cpu_properties(Context &ctx);

// ---- timing (the rest is in timing.hpp) ------------------------------------

// A row's figures as times (lower is better) from a compare(): p's seconds
// per repetition times `per_second` (1e3 for ms, 1e9 for ns/op).
void set_times(Row &r, const Pair &p, double per_second);


// ---- shared helpers ----------------------------------------------------------

// Every device of a backend prefix ("opencl"), in index order.
std::vector<bp::Device> devices_with_prefix(const std::string &prefix);
// Whether the device's memory is host memory (bp_tensor_host_address works).
bool is_host_device(const bp::Device &d);
// Host address of a cpu/reference tensor after waiting for it.
void *host_address(const bp::Tensor &t);
// cpu:0 into *cpu, for the figures that time it alone; without one, the
// figure's first row (these fields) is skipped saying why, and false.
bool cpu_or_skip(Report &rep, const std::string &figure, const std::string &params, const std::string &unit,
                 const std::string &baseline_name, bp::Device *cpu);
// The rows of a figure that times the same work on every device in ms,
// each against cpu:0's time of it; the reference backend, the oracle and
// naive on purpose, is not timed. `ms_on(d)` sets the work up on d and
// times it. cpu:0's own row is left to the figure (against libtorch): its
// time comes back, NaN when it failed or there is no cpu:0.
struct TimedOnDevices {
  std::string figure, params, unit;
  std::string same;  // the others' baseline: "cpu:0 (the same call)"
  std::string step;  // the progress line's "<step> on <device>"
};
double rows_against_cpu(Context &ctx, Report &rep, const TimedOnDevices &rows,
                        const std::function<double(const bp::Device &)> &ms_on);
// The row of a training figure that puts cpu:0's step (cpu_ms) next to
// libtorch's same step, which bp-bench-torch measures as `measure` at the
// cpu plugin's thread count (or says why it could not).
void add_torch_step_row(Context &ctx, Report &rep, const std::string &figure, const std::string &params,
                        double cpu_ms, const std::string &measure, int trials, double target_s);
// bp_binary ADD of a and b into a new tensor, released at once; with `wait`,
// only after waiting for it, so that the add itself is part of the work.
// Inline: the figures time it in loops of nanosecond-scale calls.
inline void add_into_new(bp_tensor a, bp_tensor b, bool wait) {
  bp_tensor o = BP_NO_TENSOR;
  bp::check(bp_binary(BP_OP_ADD, a, b, &o));
  if (wait) bp::check(bp_tensor_wait(o));
  bp::check(bp_tensor_release(o));
}
// a @ b into c, square and on one device, ready before any timing: what
// the GEMM rows time through Backplane.
struct MatmulOperands {
  MatmulOperands(bp::Tensor a_, bp::Tensor b_, bp::Tensor c_);
  // k matmuls a @ b into c, then a synchronize of the device. Holds this.
  Work matmuls() const;

  bp::Tensor a, b, c;
  bp_device device;  // c's
};
// GB/s of this many bytes moved in this many seconds.
inline double gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }
// The GFLOPS of one n x n x n GEMM taking this many seconds.
inline double gemm_gflops(int64_t n, double seconds) {
  return 2.0 * double(n) * double(n) * double(n) / seconds / 1e9;
}
// Number of host threads the cpu-openblas backend uses (its "threads" property, else cores).
int cpu_thread_count(const Context &ctx);
// f(begin, end) over [0, n) on `threads` std::threads (the calling one
// included): the plain threaded loop baselines.
template <class F>
void parallel(int threads, int64_t n, const F &f) {
  const int64_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    const int64_t begin = std::min(n, chunk * t), end = std::min(n, chunk * (t + 1));
    if (begin < end) pool.emplace_back([&f, begin, end] { f(begin, end); });
  }
  f(0, std::min(n, chunk));
  for (auto &th : pool) th.join();
}

// The size and timing of the elementwise and fusion figures' cpu:0 rows:
// 1e8 float32 elements (1e7 with --quick), one operation per timed batch,
// the plain-loop baselines on the cpu backend's thread count.
struct LargeRun {
  int64_t n = 0;
  std::string count;  // n as the rows write it ("1e8")
  double bytes = 0;   // of n float32
  int trials = 0;
  double target = 0;  // seconds per timed batch
  int threads = 1;
  std::string thr;  // "2 threads"
};
LargeRun large_run(const Context &ctx);

std::string format_number(double v);  // 3 significant digits, "—" for NaN

// ---- figures ---------------------------------------------------------------

using FigureFn = void (*)(Context &, Report &);
struct Figure {
  const char *name;
  const char *summary;
  FigureFn run;
};

void figure_training(Context &, Report &);
void figure_gpt(Context &, Report &);
void figure_resnet(Context &, Report &);
void figure_overhead(Context &, Report &);
void figure_gemm(Context &, Report &);  // measured by bp-bench-direct (direct.hpp)
void figure_elementwise(Context &, Report &);
void figure_fusion(Context &, Report &);
void figure_normlog(Context &, Report &);
void figure_transfer(Context &, Report &);
void figure_startup(Context &, Report &);
void figure_allreduce(Context &, Report &);
void figure_dtypes(Context &, Report &);
void figure_softmax(Context &, Report &);
void figure_topk(Context &, Report &);
void figure_layer_norm(Context &, Report &);
void figure_attention(Context &, Report &);
void figure_conv(Context &, Report &);  // partly measured by bp-bench-direct (direct.hpp)
void figure_pool(Context &, Report &);

}  // namespace bptool::bench
