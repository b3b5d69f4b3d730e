// L3 collectives: a plugin's collective entry, and its group entries when it
// has them, against values the kit computes on the host from plugin.h's
// semantics (engine/collective_oracle.hpp). Every dtype the plugin holds,
// every collective and reduction, one participant on each device and two
// across the first two devices in both orders, in place where a collective
// allows it; guard bytes around every view. BP_ERR_UNSUPPORTED is the plugin
// declining a case (the core then stages it): reported as a note, and it
// must come before anything is written. Malformed calls
// (collective_malformed.cpp) are refused with a message and write nothing.
// A plugin without the entry skips the group.
#include <map>

#include "collective_oracle.hpp"
#include "groups.hpp"
#include "rules.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

using Shape = Coll::Shape;
using Bytes = std::vector<uint8_t>;

// The dtypes a plugin holds: those it declares any operator for on every
// device checked; every dtype when it declares none at all.
std::vector<int32_t> held_dtypes(Plugin &p, const std::vector<int32_t> &devices) {
  std::vector<int32_t> out;
  bool any = false;
  for (int32_t dtype : vocab_dtypes()) {
    bool everywhere = true;
    for (int32_t d : devices) {
      bool here = false;
      for (int32_t op : vocab_ops())
        for (int32_t o : vocab_dtypes())
          if (!here && p.declares(d, op, dtype, o)) here = true;
      everywhere = everywhere && here;
      any = any || here;
    }
    if (everywhere && computable(dtype)) out.push_back(dtype);
  }
  // A plugin of an older ABI minor never receives a dtype it predates (the
  // core converts around it).
  if (!any)
    for (int32_t dtype : vocab_dtypes())
      if (computable(dtype) && (rule_applies(Rule::dtypes_1_4, p.api().abi_minor) || dtype <= BP_BOOL)) out.push_back(dtype);
  return out;
}

// Runs the cases, one check each; declined ones are counted per collective
// and reported in one note each.
class Runner {
 public:
  Runner(Recorder &rec, Plugin &p) : rec_(rec), p_(p) {}
  void run(const Coll &c) {
    const std::string name = c.name(p_);
    rec_.begin(name);
    std::string problem;
    Declined &d = declined_[bp_vocab_collective_name(c.collective)];
    ++d.cases;
    switch (run_collective(p_, c, &problem)) {
      case Verdict::passed:
        rec_.pass(name);
        ++passed_;
        break;
      case Verdict::failed: rec_.fail(name + ": " + problem); break;
      case Verdict::declined:
        if (!d.count++) d.example = name;
        break;
    }
  }
  int passed() const { return passed_; }
  void report() {
    for (const auto &kv : declined_)
      if (kv.second.count)
        rec_.note(format("%s: declined %d of %d cases (BP_ERR_UNSUPPORTED: not implemented for them; the core stages "
                         "them through host memory), e.g. ",
                         kv.first.c_str(), kv.second.count, kv.second.cases) +
                  kv.second.example);
  }

 private:
  struct Declined {
    int count = 0, cases = 0;
    std::string example;
  };
  Recorder &rec_;
  Plugin &p_;
  int passed_ = 0;
  std::map<std::string, Declined> declined_;
};

// group_id and group_join of a group of one rank, every collective in it on
// device d, group_leave; the three entries come together (plugin.h).
void check_groups(Recorder &rec, Plugin &p, int32_t d, const std::vector<int32_t> &dtypes, Runner &runner) {
  const bool id = p.entry(&bp_plugin_api::group_id), join = p.entry(&bp_plugin_api::group_join),
             leave = p.entry(&bp_plugin_api::group_leave);
  if (!id && !join && !leave) {
    rec.note("no group entries (optional): the core stages collectives across processes through its own transport");
    return;
  }
  if (!id || !join || !leave) {
    rec.fail(format("group_id, group_join and group_leave are optional together, but only %s%s%s is set",
                    id ? "group_id " : "", join ? "group_join " : "", leave ? "group_leave " : ""));
    return;
  }
  const std::string dn = p.device_name(d);
  rec.begin(dn + ": group_id and group_join of a group of one rank");
  Bytes bootstrap(4096);
  uint32_t size = 0;
  bp_status s = p.group_id(d, bootstrap.data(), uint32_t(bootstrap.size()), &size);
  if (s != BP_OK || size == 0 || size > bootstrap.size()) {
    rec.fail(dn + ": group_id " + (s != BP_OK ? "failed: " + p.describe(s) : format("wrote a size of %u", size)));
    return;
  }
  uint64_t group = 0;
  s = p.group_join(d, bootstrap.data(), size, 0, 1, &group);
  if (s != BP_OK || group == 0) {
    rec.fail(dn + ": group_join of rank 0 of 1 " + (s != BP_OK ? "failed: " + p.describe(s) : "gave group 0"));
    return;
  }
  rec.pass(dn + format(": a group of one rank (group_id wrote %u bytes, group_join gave group %llu)", size,
                       (unsigned long long)group));
  for (int32_t dtype : dtypes)
    for (Coll c : cases_for(dtype, {d}, {3, 5})) {
      c.group = group;
      runner.run(c);
    }
  rec.begin(dn + ": group_leave");
  s = p.group_leave(group);
  if (s != BP_OK) {
    rec.fail(dn + ": group_leave failed: " + p.describe(s));
    return;
  }
  rec.expect(p.group_leave(group) != BP_OK, dn + ": group_leave ends the group (leaving it again is an error)",
             dn + ": group_leave of a group already left returned BP_OK");
}

}  // namespace

void group_collectives(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  if (!p.entry(&bp_plugin_api::collective)) {
    const bool groups = p.entry(&bp_plugin_api::group_id) || p.entry(&bp_plugin_api::group_join) ||
                        p.entry(&bp_plugin_api::group_leave);
    if (groups) rec.fail("group entries without a collective entry: groups are only used through collective");
    rec.skip("no collective entry (optional, not declared): the core stages collectives through host memory");
    return;
  }
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  const std::vector<int32_t> dtypes = held_dtypes(p, devices);
  Runner runner(rec, p);
  std::vector<std::vector<int32_t>> sets;
  for (int32_t d : devices) sets.push_back({d});
  if (devices.size() >= 2) {
    sets.push_back({devices[0], devices[1]});
    sets.push_back({devices[1], devices[0]});
  } else {
    rec.note("one device: collectives with one participant only");
  }
  for (const std::vector<int32_t> &set : sets)
    for (int32_t dtype : dtypes)
      for (const Coll &c : cases_for(dtype, set, {3, 5})) runner.run(c);
  // Shapes beyond the small one, on the largest device list: a scalar, an
  // empty S, and one large enough to be split over work-items or blocks.
  for (const Shape &share : {Shape{}, Shape{0, 4}, Shape{257, 129}})
    for (const Coll &c : cases_for(dtypes.empty() ? BP_FLOAT32 : dtypes.front(), sets.back(), share)) runner.run(c);
  check_groups(rec, p, devices[0], dtypes, runner);
  runner.report();
  check_collective_malformed(rec, p, devices);
  if (runner.passed() == 0)
    rec.skip("the collective entry declined every case (BP_ERR_UNSUPPORTED: the core stages them all)");
}

}  // namespace bpcheck
