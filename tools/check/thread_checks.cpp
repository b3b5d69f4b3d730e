// L4 threads: many threads issuing work at once, each with its own
// buffers, against the reference's results.
#include <atomic>
#include <random>
#include <thread>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// Up to `count` declared combinations the reference implements, favourites first.
std::vector<Combo> pick_combos(Plugin &p, Plugin &ref, int32_t device, size_t count) {
  const Combo favourites[] = {{BP_OP_ADD, BP_FLOAT32, BP_FLOAT32}, {BP_OP_MUL, BP_FLOAT64, BP_FLOAT64},
                              {BP_OP_SUM, BP_FLOAT32, BP_FLOAT32}, {BP_OP_MATMUL, BP_FLOAT32, BP_FLOAT32},
                              {BP_OP_EXP, BP_FLOAT32, BP_FLOAT32}, {BP_OP_COPY, BP_FLOAT32, BP_FLOAT64},
                              {BP_OP_FILL, BP_FLOAT32, BP_FLOAT32}};
  std::vector<Combo> out;
  auto usable = [&](const Combo &c) {
    for (const Combo &o : out)
      if (o.op == c.op && o.dtype == c.dtype && o.out_dtype == c.out_dtype) return false;
    return ref.declares(0, c.op, c.dtype, c.out_dtype);
  };
  for (const Combo &c : favourites)
    if (out.size() < count && p.declares(device, c.op, c.dtype, c.out_dtype) && usable(c)) out.push_back(c);
  for (const Combo &c : declared_combos(p, device))
    if (out.size() < count && usable(c)) out.push_back(c);
  return out;
}

}  // namespace

void group_threads(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  if (!p.thread_safe()) rec.note("not BP_PLUGIN_THREAD_SAFE: calls are serialised, as the core does");

  std::vector<Combo> combos = pick_combos(p, ref, devices[0], 3);
  std::vector<Case> cases;
  std::vector<std::string> names;
  for (const Combo &c : combos)
    for (Case &k : make_small_cases(c.op, c.dtype, c.out_dtype, 17, small_shapes_for(c.op))) {
      cases.push_back(std::move(k));
      names.push_back(combo_name(c.op, c.dtype, c.out_dtype));
    }
  std::vector<Outcome> expected;
  for (const Case &c : cases) {
    expected.push_back(run_case(ref, 0, c));
    if (!expected.back().ok) {
      rec.fail("the reference failed on " + c.label + ": " + expected.back().failure);
      return;
    }
  }

  const int threads = 4, iterations = 25;
  rec.begin(format("%d threads x %d iterations on %zu device(s)", threads, iterations, devices.size()));
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(uint64_t(t) + 1);
      for (int i = 0; i < iterations && failures.load() < 3; ++i) {
        const int32_t d = devices[size_t(t + i) % devices.size()];
        if (cases.empty()) {
          // Memory only: alloc, write, read, free.
          std::vector<uint8_t> data(4096 + size_t(t)), back(data.size());
          for (uint8_t &b : data) b = uint8_t(rng());
          bp_buffer b = nullptr;
          bool ok = p.alloc(d, data.size(), &b) == BP_OK && p.write(b, 0, data.data(), data.size()) == BP_OK &&
                    p.read(b, 0, back.data(), back.size()) == BP_OK && back == data;
          if (b) p.free(b);
          if (!ok && failures++ < 3)
            rec.fail(format("thread %d, iteration %d on ", t, i) + p.device_name(d) + ": a host round trip failed: " + p.last_error());
          continue;
        }
        const size_t k = size_t(t * 7 + i) % cases.size();
        Outcome got = run_case(p, d, cases[k]);
        std::string verdict = judge(cases[k], got, expected[k]);
        if (!verdict.empty() && failures++ < 3)
          rec.fail(format("thread %d, iteration %d: declares ", t, i) + names[k] + " but " + verdict + " on " +
                   p.device_name(d) + " (case " + cases[k].label + ", with other threads at work)");
      }
    });
  for (std::thread &th : pool) th.join();
  if (failures.load() == 0)
    rec.pass(format("%d threads x %d iterations, each with its own buffers: ", threads, iterations) +
             (cases.empty() ? std::string("host round trips exact") : format("%zu cases agree with the reference", cases.size())));
}

}  // namespace bpcheck
