// L4 concurrency: many threads issuing work at once (each with its own
// buffers), and the ordering guarantees of a device's queue.
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "cases.hpp"
#include "groups.hpp"
#include "names.hpp"

namespace bpcheck {

namespace {

std::string dev_name(Plugin &p, int32_t d) { return std::string(p.api().device_prefix) + ":" + std::to_string(d); }

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

std::vector<std::vector<int64_t>> shapes_for(int32_t op) {
  if (find_op(op)->family == Family::matmul) return {{8, 16}, {64, 64}};
  return {{5, 7}, {64, 1000}};
}

}  // namespace

void group_threads(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  auto ref = ctx.open_reference();
  if (!ref) return;
  Plugin &p = *plugin;
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  if (!p.thread_safe()) rec.note("not BP_PLUGIN_THREAD_SAFE: calls are serialised, as the core does");

  std::vector<Combo> combos = pick_combos(p, *ref, devices[0], 3);
  std::vector<Case> cases;
  std::vector<std::string> names;
  for (const Combo &c : combos)
    for (Case &k : make_small_cases(c.op, c.dtype, c.out_dtype, 17, shapes_for(c.op))) {
      cases.push_back(std::move(k));
      names.push_back(combo_name(c.op, c.dtype, c.out_dtype));
    }
  std::vector<Outcome> expected;
  for (const Case &c : cases) {
    expected.push_back(run_case(*ref, 0, c));
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
            rec.fail(format("thread %d, iteration %d on ", t, i) + dev_name(p, d) + ": a host round trip failed: " + p.last_error());
          continue;
        }
        const size_t k = size_t(t * 7 + i) % cases.size();
        Outcome got = run_case(p, d, cases[k]);
        std::string verdict = judge(cases[k], got, expected[k]);
        if (!verdict.empty() && failures++ < 3)
          rec.fail(format("thread %d, iteration %d: declares ", t, i) + names[k] + " but " + verdict + " on " +
                   dev_name(p, d) + " (case " + cases[k].label + ", with other threads at work)");
      }
    });
  for (std::thread &th : pool) th.join();
  if (failures.load() == 0)
    rec.pass(format("%d threads x %d iterations, each with its own buffers: ", threads, iterations) +
             (cases.empty() ? std::string("host round trips exact") : format("%zu cases agree with the reference", cases.size())));
}

void group_queues(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  auto ref = ctx.open_reference();
  if (!ref) return;
  Plugin &p = *plugin;
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  const int32_t d0 = devices[0];
  std::vector<Combo> declared;
  for (const Combo &c : declared_combos(p, d0))
    if (ref->declares(0, c.op, c.dtype, c.out_dtype)) declared.push_back(c);
  if (declared.empty()) {
    rec.skip("declares no operator that plugin.h defines: nothing to queue");
    return;
  }

  // 1. A chain of operations, one read at the end.
  const int chain = 100;
  Combo pick = declared.front();
  bool in_place = false;
  const int32_t preferred[] = {BP_OP_ADD, BP_OP_SUB, BP_OP_MAXIMUM, BP_OP_NEG, BP_OP_ABS, BP_OP_RELU, BP_OP_MUL, BP_OP_COPY};
  for (int32_t op : preferred) {
    for (const Combo &c : declared)
      if (c.op == op && can_chain(c.op, c.dtype, c.out_dtype)) {
        pick = c;
        in_place = true;
        break;
      }
    if (in_place) break;
  }
  if (!in_place)
    for (const Combo &c : declared)
      if (can_chain(c.op, c.dtype, c.out_dtype)) {
        pick = c;
        in_place = true;
        break;
      }
  const std::string name = combo_name(pick.op, pick.dtype, pick.out_dtype);
  Case chain_case = in_place ? make_chain_case(pick.op, pick.dtype, pick.out_dtype, 23, {64, 1000})
                             : make_small_cases(pick.op, pick.dtype, pick.out_dtype, 23, shapes_for(pick.op)).back();
  auto run_chain = [&](Plugin &q, std::vector<int32_t> devs, std::vector<Outcome> *outs) {
    std::vector<std::unique_ptr<BoundCase>> bound;
    for (int32_t d : devs) bound.emplace_back(new BoundCase(q, d, chain_case));
    outs->assign(devs.size(), Outcome());
    for (size_t j = 0; j < devs.size(); ++j)
      if (!bound[j]->ok()) {
        (*outs)[j].failure = bound[j]->failure();
        return;
      }
    for (int i = 0; i < chain; ++i)
      for (size_t j = 0; j < devs.size(); ++j) {
        bp_op_attrs attrs = chain_case.attrs;
        if (!in_place) attrs.scalar = double(i % 5), attrs.seed = uint64_t(i);  // the last one counts
        bp_status s = bound[j]->execute(attrs);
        if (s != BP_OK) {
          (*outs)[j].failure = format("execute %d of %d refused: ", i + 1, chain) + q.describe(s);
          return;
        }
      }
    for (size_t j = 0; j < devs.size(); ++j) {
      std::string e = bound[j]->read_all(&(*outs)[j].storages);
      (*outs)[j].ok = e.empty();
      (*outs)[j].failure = e;
    }
  };
  std::vector<Outcome> expected;
  run_chain(*ref, {0}, &expected);
  if (!expected[0].ok) {
    rec.fail("the reference failed on the chain: " + expected[0].failure);
    return;
  }
  {
    rec.begin(format("%d x ", chain) + name + " enqueued on " + dev_name(p, d0) + ", then one read");
    std::vector<Outcome> got;
    run_chain(p, {d0}, &got);
    std::string verdict = judge(chain_case, got[0], expected[0]);
    rec.expect(verdict.empty(), format("%d queued ", chain) + name + " then one read: right result",
               format("after %d queued ", chain) + name + ", one read: " + verdict);
  }
  if (devices.size() >= 2) {
    rec.begin(format("%d x ", chain) + name + " interleaved on every device");
    std::vector<Outcome> got;
    run_chain(p, devices, &got);
    bool ok = true;
    for (size_t j = 0; j < got.size(); ++j) {
      std::string verdict = judge(chain_case, got[j], expected[0]);
      if (!verdict.empty()) {
        ok = false;
        rec.fail(format("%d ", chain) + name + " interleaved over the devices: on " + dev_name(p, devices[j]) + ": " + verdict);
      }
    }
    if (ok) rec.pass(format("%d x ", chain) + name + format(" interleaved on %zu devices: right results", devices.size()));
  }

  // 2. synchronize waits for everything.
  {
    rec.begin("synchronize after queued work on " + dev_name(p, d0));
    BoundCase bound(p, d0, chain_case);
    bp_status s = bound.ok() ? bound.execute() : BP_ERR_INTERNAL;
    if (s == BP_OK) s = p.synchronize(d0);
    if (s != BP_OK) {
      rec.fail("synchronize after queued work failed: " + (bound.ok() ? p.describe(s) : bound.failure()));
    } else {
      rec.pass("synchronize returns BP_OK after queued work");
      if (p.has_host_address()) {
        void *address = nullptr;
        std::vector<uint8_t> read;
        std::string e = bound.read_storage(chain_case.output.storage, &read);
        if (e.empty() && p.api().host_address(bound.buffer(chain_case.output.storage), &address) == BP_OK && address)
          rec.expect(std::memcmp(address, read.data(), read.size()) == 0, "after synchronize, host_address shows the result",
                     "after synchronize, the memory at host_address differs from what read returns");
      }
    }
    for (int32_t d : devices) {
      s = p.synchronize(d);
      rec.expect(s == BP_OK, "synchronize(" + dev_name(p, d) + ")", "synchronize(" + dev_name(p, d) + ") failed: " + p.describe(s));
    }
  }

  // 3. Writes and frees issued after an operator do not disturb it.
  const Combo *with_input = nullptr;
  for (const Combo &c : declared)
    if (find_op(c.op)->family != Family::create) {
      with_input = &c;
      break;
    }
  if (with_input) {
    const std::string wname = combo_name(with_input->op, with_input->dtype, with_input->out_dtype);
    std::vector<Case> cs = make_small_cases(with_input->op, with_input->dtype, with_input->out_dtype, 29, shapes_for(with_input->op));
    const Case &c = cs.back();
    Case changed = c;
    const int s_in = c.inputs[0].storage;
    std::vector<uint8_t> fresh = make_small_cases(with_input->op, with_input->dtype, with_input->out_dtype, 31, shapes_for(with_input->op))
                                     .back()
                                     .storages[size_t(s_in)];
    changed.storages[size_t(s_in)] = fresh;
    Outcome before = run_case(*ref, 0, c), after = run_case(*ref, 0, changed);
    {
      rec.begin(wname + ", then a write into its input, then a read");
      BoundCase bound(p, d0, c);
      bp_status s = bound.ok() ? bound.execute() : BP_ERR_INTERNAL;
      std::string e = s == BP_OK ? bound.write_storage(s_in, fresh) : (bound.ok() ? p.describe(s) : bound.failure());
      Outcome got;
      if (e.empty()) e = bound.read_all(&got.storages);
      got.ok = e.empty();
      got.failure = e;
      if (got.ok) got.storages[size_t(s_in)] = c.storages[size_t(s_in)];  // rewritten on purpose
      std::string verdict = judge(c, got, before);
      rec.expect(verdict.empty(), wname + ": a write issued after it does not change its result",
                 wname + ", then a write into its input: the result saw the write (" + verdict + ")");
      rec.begin(wname + " again on the rewritten input");
      s = e.empty() ? bound.execute() : BP_ERR_INTERNAL;
      Outcome again;
      e = s == BP_OK ? bound.read_all(&again.storages) : p.describe(s);
      again.ok = e.empty();
      again.failure = e;
      verdict = judge(changed, again, after);
      rec.expect(verdict.empty(), wname + ": the next operator sees the write",
                 wname + " after a write into its input: " + verdict);
    }
    {
      rec.begin(wname + ", then free its inputs, then read its output");
      BoundCase bound(p, d0, c);
      bp_status s = bound.ok() ? bound.execute() : BP_ERR_INTERNAL;
      for (const ViewDesc &v : c.inputs)
        if (s == BP_OK && v.storage != c.output.storage && bound.buffer(v.storage)) s = bound.free_storage(v.storage);
      Outcome got;
      std::vector<uint8_t> out;
      std::string e = s == BP_OK ? bound.read_storage(c.output.storage, &out) : p.describe(s);
      if (e.empty()) {
        got.ok = true;
        got.storages = c.storages;  // the freed inputs are unchanged by definition
        got.storages[size_t(c.output.storage)] = out;
      } else {
        got.failure = e;
      }
      std::string verdict = judge(c, got, before);
      rec.expect(verdict.empty(), wname + ": freeing its inputs while it may still run is safe",
                 wname + ", inputs freed right after it: " + verdict);
    }
  } else {
    // Creation only: a write after the op wins, and the next op wins again.
    const Combo &c0 = declared.front();
    const std::string cname = combo_name(c0.op, c0.dtype, c0.out_dtype);
    std::vector<Case> cs = make_small_cases(c0.op, c0.dtype, c0.out_dtype, 37, {{64, 1000}});
    const Case &c = cs.front();
    Outcome exp = run_case(*ref, 0, c);
    rec.begin(cname + ", then a write over its output, then a read");
    BoundCase bound(p, d0, c);
    bp_status s = bound.ok() ? bound.execute() : BP_ERR_INTERNAL;
    std::vector<uint8_t> pattern(c.storages[size_t(c.output.storage)].size(), 0x3C), back;
    std::string e = s == BP_OK ? bound.write_storage(c.output.storage, pattern) : (bound.ok() ? p.describe(s) : bound.failure());
    if (e.empty()) e = bound.read_storage(c.output.storage, &back);
    rec.expect(e.empty() && back == pattern, cname + ": a write issued after it lands after it",
               cname + ", then a write over its output: " + (e.empty() ? std::string("the read shows the operator's values") : e));
    rec.begin(cname + " again after the write");
    s = e.empty() ? bound.execute() : BP_ERR_INTERNAL;
    Outcome got;
    e = s == BP_OK ? bound.read_all(&got.storages) : p.describe(s);
    got.ok = e.empty();
    got.failure = e;
    std::string verdict = exp.ok ? compare_outputs(c, got.ok ? got.storages[size_t(c.output.storage)] : pattern,
                                                   exp.storages[size_t(c.output.storage)])
                                 : std::string();
    if (!got.ok) verdict = got.failure;
    rec.expect(verdict.empty(), cname + ": the next operator lands after the write", cname + " after a write: " + verdict);
  }
}

}  // namespace bpcheck
