// L4 queues: the ordering guarantees of a device's queue: a chain of queued
// operators, synchronize, and writes and frees issued after an operator.
#include <cstring>
#include <memory>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

void group_queues(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  const int32_t d0 = devices[0];
  std::vector<Combo> declared;
  for (const Combo &c : declared_combos(p, d0))
    if (ref.declares(0, c.op, c.dtype, c.out_dtype)) declared.push_back(c);
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
                             : make_small_cases(pick.op, pick.dtype, pick.out_dtype, 23, small_shapes_for(pick.op)).back();
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
  run_chain(ref, {0}, &expected);
  if (!expected[0].ok) {
    rec.fail("the reference failed on the chain: " + expected[0].failure);
    return;
  }
  {
    rec.begin(format("%d x ", chain) + name + " enqueued on " + p.device_name(d0) + ", then one read");
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
        rec.fail(format("%d ", chain) + name + " interleaved over the devices: on " + p.device_name(devices[j]) + ": " + verdict);
      }
    }
    if (ok) rec.pass(format("%d x ", chain) + name + format(" interleaved on %zu devices: right results", devices.size()));
  }

  // 2. synchronize waits for everything.
  {
    rec.begin("synchronize after queued work on " + p.device_name(d0));
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
      rec.expect(s == BP_OK, "synchronize(" + p.device_name(d) + ")", "synchronize(" + p.device_name(d) + ") failed: " + p.describe(s));
    }
  }

  // 3. Writes and frees issued after an operator do not disturb it.
  const Combo *with_input = nullptr;
  for (const Combo &c : declared)
    if (op_family(c.op) != BP_OP_FAMILY_CREATE) {
      with_input = &c;
      break;
    }
  if (with_input) {
    const std::string wname = combo_name(with_input->op, with_input->dtype, with_input->out_dtype);
    std::vector<Case> cs = make_small_cases(with_input->op, with_input->dtype, with_input->out_dtype, 29, small_shapes_for(with_input->op));
    const Case &c = cs.back();
    Case changed = c;
    const int s_in = c.inputs[0].storage;
    std::vector<uint8_t> fresh = make_small_cases(with_input->op, with_input->dtype, with_input->out_dtype, 31, small_shapes_for(with_input->op))
                                     .back()
                                     .storages[size_t(s_in)];
    changed.storages[size_t(s_in)] = fresh;
    Outcome before = run_case(ref, 0, c), after = run_case(ref, 0, changed);
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
      Outcome again;
      if (e.empty()) again = bound.execute_and_read();
      else again.failure = e;
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
    Outcome exp = run_case(ref, 0, c);
    rec.begin(cname + ", then a write over its output, then a read");
    BoundCase bound(p, d0, c);
    bp_status s = bound.ok() ? bound.execute() : BP_ERR_INTERNAL;
    std::vector<uint8_t> pattern(c.storages[size_t(c.output.storage)].size(), 0x3C), back;
    std::string e = s == BP_OK ? bound.write_storage(c.output.storage, pattern) : (bound.ok() ? p.describe(s) : bound.failure());
    if (e.empty()) e = bound.read_storage(c.output.storage, &back);
    rec.expect(e.empty() && back == pattern, cname + ": a write issued after it lands after it",
               cname + ", then a write over its output: " + (e.empty() ? std::string("the read shows the operator's values") : e));
    rec.begin(cname + " again after the write");
    Outcome got;
    if (e.empty()) got = bound.execute_and_read();
    else got.failure = e;
    std::string verdict = exp.ok ? compare_outputs(c, got.ok ? got.storages[size_t(c.output.storage)] : pattern,
                                                   exp.storages[size_t(c.output.storage)])
                                 : std::string();
    if (!got.ok) verdict = got.failure;
    rec.expect(verdict.empty(), cname + ": the next operator lands after the write", cname + " after a write: " + verdict);
  }
}


}  // namespace bpcheck
