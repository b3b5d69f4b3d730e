#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include "bench.hpp"
#include "json_output.hpp"
#include "progress.hpp"
#include "runtime_info.hpp"
#include "table.hpp"
#include "torch_baseline.hpp"

namespace bptool::bench {

// ---- context ---------------------------------------------------------------

void Context::progress(const std::string &what) const { progress::step(what); }

void Context::progress_done() const { progress::clear(); }

// ---- rows and report ---------------------------------------------------------

int Row::target_met() const {
  const double r = ratio();
  if (std::isnan(target) || std::isnan(r)) return -1;
  return r >= target ? 1 : 0;
}

std::string Row::full_note() const {
  std::string text;
  if (!std::isnan(target)) {
    const int met = target_met();
    char goal[48];
    std::snprintf(goal, sizeof goal, "target >= %gx: ", target);
    text = goal + std::string(met == 1 ? "met" : met == 0 ? "NOT met" : "not measured");
  }
  const auto append = [&text](const std::string &part) {
    if (!part.empty()) text += (text.empty() ? "" : "; ") + part;
  };
  append(note);
  if (spread > kNoisySpread) {
    char noisy[160];
    std::snprintf(noisy, sizeof noisy, "noisy: the batches of one side varied %.1fx, the ratio may be noise", spread);
    append(noisy);
  }
  return text;
}

double Row::ratio() const {
  if (!(backplane > 0) || !(baseline > 0)) return kNaN;
  return higher_is_better ? backplane / baseline : baseline / backplane;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "—";
  char buf[32];
  const double a = std::fabs(v);
  if (a >= 1000) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 10) std::snprintf(buf, sizeof buf, "%.2f", v);
  else std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

void Report::begin_figure(const std::string &name, const std::string &title) {
  figure_ = name;
  title_ = title;
  started_ = now_seconds();
  rows_.clear();
}

void Report::add(const Row &row) {
  ++printed_;
  if (output_ == Output::table) {
    rows_.push_back(row);
    return;
  }
  if (output_ == Output::relay) {
    std::printf("%s\n", relay_line(row).c_str());
    std::fflush(stdout);
    return;
  }
  const Json line = {
      {"figure", row.figure},
      {"params", row.params},
      {"device", row.device},
      {"unit", row.unit},
      {"backplane", row.backplane},
      {"baseline", row.baseline},
      {"baseline_name", row.baseline_name},
      {"ratio", row.ratio()},
      {"higher_is_better", row.higher_is_better},
      {"note", row.full_note()},
      {"spread", row.spread},
      {"target", row.target},
      {"target_met", row.target_met() < 0 ? Json() : Json(row.target_met() == 1)},
      {"openblas_core", ctx_.openblas_core},
      {"openblas_threads", ctx_.openblas_threads},
      {"cpu_threads", ctx_.cpu_threads},
      {"load", ctx_.load},
      {"quick", ctx_.quick},
  };
  ctx_.progress_done();
  std::printf("%s\n", json_text(line, false).c_str());
  std::fflush(stdout);
}

void Report::skip(const std::string &figure, const std::string &params, const std::string &device,
                  const std::string &unit, const std::string &baseline_name,
                  const std::string &why) {
  Row r{figure, params, device, unit};
  r.baseline_name = baseline_name;
  r.note = "skipped: " + why;
  add(r);
}

void Report::end_figure() {
  ctx_.progress_done();
  if (output_ != Output::table) return;
  std::printf("\n== %s: %s (%.1f s)\n", figure_.c_str(), title_.c_str(), now_seconds() - started_);
  std::printf("   OpenBLAS core %s, OpenBLAS threads %s, cpu-openblas threads %s, load %s\n",
              ctx_.openblas_core.empty() ? "(not reported)" : ctx_.openblas_core.c_str(),
              ctx_.openblas_threads.empty() ? "(not reported)" : ctx_.openblas_threads.c_str(),
              ctx_.cpu_threads.empty() ? "(not reported)" : ctx_.cpu_threads.c_str(),
              ctx_.load.c_str());
  std::printf("   %s\n", kRatioReads);
  Table t({"figure", "params", "device", "unit", "backplane", "baseline", "baseline_name",
           "ratio", "note"});
  for (size_t c : {4, 5, 7}) t.align_right(c);
  for (const Row &r : rows_)
    t.add({r.figure, r.params, r.device, r.unit, format_number(r.backplane),
           format_number(r.baseline), r.baseline_name, format_number(r.ratio()), r.full_note()});
  t.print(stdout, "   ");
  std::fflush(stdout);
  rows_.clear();
}

namespace {

// NaN is written as null; a number or null is read back.
Json number(double v) { return std::isnan(v) ? Json() : Json(v); }
double number_of(const Json &doc, const char *key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_number() ? it->get<double>() : kNaN;
}

}  // namespace

std::string relay_line(const Row &row) {
  const Json line = {
      {"figure", row.figure},     {"params", row.params},
      {"device", row.device},     {"unit", row.unit},
      {"higher_is_better", row.higher_is_better},
      {"backplane", number(row.backplane)},
      {"baseline", number(row.baseline)},
      {"baseline_name", row.baseline_name},
      {"note", row.note},         {"spread", number(row.spread)},
      {"target", number(row.target)},
  };
  return json_text(line, false);
}

bool row_from_relay_line(const std::string &line, Row *row) {
  const Json doc = Json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("figure") || !doc["figure"].is_string()) return false;
  Row r;
  r.figure = doc["figure"].get<std::string>();
  r.params = doc.value("params", std::string());
  r.device = doc.value("device", std::string());
  r.unit = doc.value("unit", std::string());
  r.higher_is_better = doc.value("higher_is_better", true);
  r.backplane = number_of(doc, "backplane");
  r.baseline = number_of(doc, "baseline");
  r.baseline_name = doc.value("baseline_name", std::string());
  r.note = doc.value("note", std::string());
  r.spread = number_of(doc, "spread");
  r.target = number_of(doc, "target");
  *row = r;
  return true;
}

void read_cpu_properties(Context &ctx) {
  bp_device cpu_id;
  if (bp_cpu(&cpu_id) != BP_OK) return;
  const auto props = bp::Device(cpu_id).properties();
  ctx.openblas_core = property(props, "openblas_core");
  ctx.openblas_threads = property(props, "openblas_threads");
  ctx.cpu_threads = property(props, "threads");
}

// ---- timing ----------------------------------------------------------------

void set_times(Row &r, const Pair &p, double per_second) {
  r.higher_is_better = false;
  r.backplane = p.a * per_second;
  r.baseline = p.b * per_second;
  r.spread = p.spread();
}

// ---- helpers ----------------------------------------------------------------

std::vector<bp::Device> devices_with_prefix(const std::string &prefix) {
  std::vector<bp::Device> out;
  for (const bp::Device &d : bp::devices())
    if (d.name().rfind(prefix + ":", 0) == 0) out.push_back(d);
  return out;
}

bool is_host_device(const bp::Device &d) {
  bp::Tensor t = bp::empty({1}, bp::f32, d);
  void *p = nullptr;
  return bp_tensor_host_address(t.handle(), &p) == BP_OK;
}

void *host_address(const bp::Tensor &t) {
  t.wait();
  void *p = nullptr;
  bp::check(bp_tensor_host_address(t.handle(), &p));
  return p;
}

MatmulOperands::MatmulOperands(bp::Tensor a_, bp::Tensor b_, bp::Tensor c_)
    : a(std::move(a_)), b(std::move(b_)), c(std::move(c_)), device(c.device().id()) {
  a.wait();
  b.wait();
  c.wait();
}

Work MatmulOperands::matmuls() const {
  return [this](int64_t k) {
    for (int64_t i = 0; i < k; ++i) bp::check(bp_matmul_out(a.handle(), b.handle(), 0, 0, c.handle()));
    bp::check(bp_synchronize(device));
  };
}

LargeRun large_run(const Context &ctx) {
  LargeRun run;
  run.n = ctx.quick ? 10000000 : 100000000;
  run.count = ctx.quick ? "1e7" : "1e8";
  run.bytes = double(run.n) * sizeof(float);
  run.trials = ctx.quick ? 3 : 5;
  run.target = 0.001;  // one operation (or chain) per batch: each takes far longer
  run.threads = cpu_thread_count(ctx);
  run.thr = std::to_string(run.threads) + " thread" + (run.threads == 1 ? "" : "s");
  return run;
}

bool cpu_or_skip(Report &rep, const std::string &figure, const std::string &params, const std::string &unit,
                 const std::string &baseline_name, bp::Device *cpu) {
  bp_device id;
  if (bp_cpu(&id) != BP_OK) {
    rep.skip(figure, params, "cpu:0", unit, baseline_name, std::string("no cpu:0: ") + bp_last_error());
    return false;
  }
  *cpu = bp::Device(id);
  return true;
}

double rows_against_cpu(Context &ctx, Report &rep, const TimedOnDevices &rows,
                        const std::function<double(const bp::Device &)> &ms_on) {
  double cpu_ms = kNaN;
  for (const bp::Device &d : bp::devices()) {
    const std::string dev = d.name();
    if (dev.rfind("reference:", 0) == 0) continue;
    ctx.progress(rows.step + " on " + dev);
    try {
      Row r{rows.figure, rows.params, dev, rows.unit};
      r.higher_is_better = false;
      r.backplane = ms_on(d);
      if (dev == "cpu:0") {
        cpu_ms = r.backplane;
        continue;
      }
      r.baseline_name = rows.same;
      r.baseline = cpu_ms;
      rep.add(r);
    } catch (const bp::Error &e) {
      rep.skip(rows.figure, rows.params, dev, rows.unit, rows.same, std::string("failed: ") + e.what());
    }
  }
  return cpu_ms;
}

void add_torch_step_row(Context &ctx, Report &rep, const std::string &figure, const std::string &params,
                        double cpu_ms, const std::string &measure, int trials, double target_s) {
  Row t{figure, params, "cpu:0", "ms/step"};
  t.higher_is_better = false;
  t.backplane = cpu_ms;
  t.baseline_name = "libtorch, same threads";
  const int threads = ctx.cpu_threads.empty() ? 1 : std::max(1, std::atoi(ctx.cpu_threads.c_str()));
  ctx.progress(figure + ": the libtorch step (bp-bench-torch)");
  const TorchBaseline torch = run_torch_baseline(measure, trials, target_s, threads);
  t.baseline = torch.ns_per_op / 1e6;
  t.note = torch.why_not.empty() ? "libtorch " + torch.version + ", " + std::to_string(threads) +
                                       " threads, BLAS: " + torch.blas_threads
                                 : "baseline skipped: " + torch.why_not;
  rep.add(t);
}

int cpu_thread_count(const Context &ctx) {
  const int n = std::atoi(ctx.cpu_threads.c_str());
  if (n > 0) return n;
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? int(hc) : 1;
}

}  // namespace bptool::bench
