// L2 numerics: every op and dtype the plugin declares, against the reference
// backend, on many shapes and layouts, with sentinel bytes around outputs.
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "cases.hpp"
#include "groups.hpp"
#include "names.hpp"

namespace bpcheck {

namespace {

// A bp_op_attrs of an older core: only struct_size and scalar_mode exist,
// and the page after them is unmapped, so reading past struct_size crashes.
class ShortAttrs {
 public:
  ShortAttrs() {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    void *p = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base_ = static_cast<unsigned char *>(p);
    mprotect(base_ + page_, page_, PROT_NONE);
    const uint32_t size = 8;  // struct_size + scalar_mode
    attrs_ = reinterpret_cast<bp_op_attrs *>(base_ + page_ - size);
    std::memset(attrs_, 0, size);
    attrs_->struct_size = size;
  }
  ~ShortAttrs() {
    if (base_) munmap(base_, 2 * page_);
  }
  const bp_op_attrs *get() const { return attrs_; }

 private:
  size_t page_ = 0;
  unsigned char *base_ = nullptr;
  bp_op_attrs *attrs_ = nullptr;
};

uint64_t seed_of(const Combo &c) { return uint64_t(c.op) * 1000003u + uint64_t(c.dtype) * 101u + uint64_t(c.out_dtype); }

Outcome run_short(Plugin &plugin, int32_t device, const Case &c, const ShortAttrs &attrs) {
  Outcome o;
  BoundCase bound(plugin, device, c);
  if (!bound.ok()) {
    o.failure = bound.failure();
    return o;
  }
  bp_status s = bound.execute_raw(attrs.get());
  if (s != BP_OK) {
    o.failure = "execute refused it with the 8-byte bp_op_attrs of an older core: " + plugin.describe(s);
    return o;
  }
  std::string e = bound.read_all(&o.storages);
  if (!e.empty()) {
    o.failure = "after execute, " + e;
    return o;
  }
  o.ok = true;
  return o;
}

}  // namespace

void group_numerics(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  auto ref = ctx.open_reference();
  if (!ref) return;
  Plugin &p = *plugin;
  rec.info("reference", ref->path());
  ShortAttrs short_attrs;
  // Checking the reference itself: comparing it with itself proves nothing
  // (its own unit tests pin its values), so each case runs once and is
  // judged for sentinels and untouched inputs only.
  char a[PATH_MAX], b[PATH_MAX];
  const bool self = realpath(p.path().c_str(), a) && realpath(ref->path().c_str(), b) && std::strcmp(a, b) == 0;
  if (self) rec.note("this is the reference plugin itself: outputs are checked for out-of-bounds writes, not compared");

  const std::vector<int32_t> devices = ctx.devices(p, false);
  for (int32_t d : devices) {
    const std::string dn = std::string(p.api().device_prefix) + ":" + std::to_string(d);
    const std::string on = devices.size() > 1 || d != 0 ? " on " + dn : "";
    std::vector<Combo> combos = declared_combos(p, d);
    rec.info("declared", std::to_string(combos.size()));
    if (combos.empty()) {
      rec.skip("declares no operators");
      continue;
    }
    size_t cases_run = 0, compared = 0;
    for (const Combo &combo : combos) {
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      if (!ref->declares(0, combo.op, combo.dtype, combo.out_dtype)) {
        rec.note("declares " + name + ", which plugin.h does not define (the reference does not implement it): not compared");
        continue;
      }
      ++compared;
      std::vector<Case> cases = make_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo));
      bool failed = false;
      for (const Case &c : cases) {
        rec.begin(name + on + ", case " + c.label);
        Outcome got = run_case(p, d, c);
        Outcome expected = self ? got : run_case(*ref, 0, c);
        if (self && !got.ok) expected = run_case(*ref, 0, c);
        ++cases_run;
        if (!expected.ok) {
          rec.note(name + ", case " + c.label + ": the reference failed (" + expected.failure + "): not compared");
          continue;
        }
        std::string verdict = judge(c, got, expected);
        if (!verdict.empty()) {
          rec.fail("declares " + name + " but " + verdict + on + " (case " + c.label + ")");
          failed = true;
          break;
        }
      }
      // The attributes of an older core stop at its struct_size: fields past
      // it read as 0, and must not be read at all.
      if (!failed && !cases.empty() && short_attrs.get()) {
        const Case &c = cases[std::min<size_t>(1, cases.size() - 1)];
        rec.begin(name + on + ", case " + c.label + " with an 8-byte bp_op_attrs (reading past it crashes)");
        Outcome got = run_short(p, d, c, short_attrs);
        Outcome expected = run_short(*ref, 0, c, short_attrs);
        if (expected.ok) {
          std::string verdict = judge(c, got, expected);
          if (!verdict.empty()) {
            rec.fail("declares " + name + " but with the 8-byte bp_op_attrs of an older core it " +
                     (got.ok ? verdict : got.failure) + on + " (case " + c.label + ")");
            failed = true;
          }
        }
      }
      if (!failed) rec.pass(name + on + format(": %zu cases agree with the reference", cases.size()));
    }
    rec.info("cases", std::to_string(cases_run));
    if (compared == 0) rec.skip("declares nothing that plugin.h defines");
  }
}

}  // namespace bpcheck
