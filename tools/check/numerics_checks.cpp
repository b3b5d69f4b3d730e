// L2 numerics: every op and dtype the plugin declares, against the reference
// backend, on many shapes and layouts, with sentinel bytes around outputs.
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "against_reference.hpp"
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "host_results.hpp"
#include "judge.hpp"
#include "rules.hpp"
#include "text.hpp"
#include "vocab.hpp"
#include "pool_cases.hpp"
#include "selection.hpp"

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

// Whose values host_result gives.
const char kHostRule[] = "plugin.h's rule (backplane/half.h)";

const char kShortRefused[] = "execute refused it with the 8-byte bp_op_attrs of an older core";

uint64_t seed_of(const Combo &c) { return uint64_t(c.op) * 1000003u + uint64_t(c.dtype) * 101u + uint64_t(c.out_dtype); }

}  // namespace

void group_numerics(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  rec.info("reference", ref.path());
  for (const std::string &note : rules_not_applied()) rec.note(note);
  ShortAttrs short_attrs;
  // Checking the reference itself: comparing it with itself proves nothing
  // (its own unit tests pin its values), so each case runs once and is
  // judged for sentinels and untouched inputs, and against host_result.
  const bool self = is_reference_itself(rec, p, ref,
                                        "outputs are checked for out-of-bounds writes and, where plugin.h fixes every "
                                        "bit (conversions and creation in the 1.4 dtypes), against the kit's own "
                                        "results; not compared with itself");

  const std::vector<int32_t> devices = ctx.devices(p, false);
  for (int32_t d : devices) {
    const std::string dn = p.device_name(d);
    const std::string on = devices.size() > 1 || d != 0 ? " on " + dn : "";
    std::vector<Combo> combos = declared_combos(p, d);
    rec.info("declared", std::to_string(combos.size()));
    if (combos.empty()) {
      rec.skip("declares no operators");
      continue;
    }
    if (!ctx.options.ops.empty()) {
      combos.erase(std::remove_if(combos.begin(), combos.end(),
                                  [&](const Combo &c) { return !op_selected(ctx.options.ops, c.op); }),
                   combos.end());
      rec.note("only the operators of --ops " + op_list_text(ctx.options.ops) + " are checked" + on);
      if (combos.empty()) {
        rec.skip("declares none of the operators of --ops " + op_list_text(ctx.options.ops));
        continue;
      }
    }
    size_t cases_run = 0, compared = 0;
    // The normalisation group checks its family (normalize_checks.cpp).
    combos.erase(std::remove_if(combos.begin(), combos.end(),
                                [](const Combo &c) { return op_family(c.op) == BP_OP_FAMILY_NORMALIZE; }),
                 combos.end());
    bool softmax_noted = false;
    for (const Combo &combo : combos) {
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      if (op_family(combo.op) == BP_OP_FAMILY_SOFTMAX) {
        if (!softmax_noted) rec.note("softmax and log_softmax are checked by the L2 softmax group" + on);
        softmax_noted = true;
        continue;
      }
      if (is_pool_op(combo.op)) continue;  // the pool group's
      if (!reference_declares(rec, ref, combo, name)) continue;
      ++compared;
      std::vector<Case> cases = make_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo));
      bool failed = false;
      for (const Case &c : cases) {
        rec.begin(name + on + ", case " + c.label);
        Outcome got = run_case(p, d, c);
        Outcome expected = self ? got : run_case(ref, 0, c);
        if (self && !got.ok) expected = run_case(ref, 0, c);
        ++cases_run;
        if (!expected.ok) {
          rec.note(name + ", case " + c.label + ": the reference failed (" + expected.failure + "): not compared");
          continue;
        }
        std::string verdict = judge(c, got, expected);
        if (verdict.empty() && has_host_result(c))
          verdict = compare_outputs(c, got.storages[size_t(c.output.storage)], host_result(c), kHostRule);
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
        Outcome got = run_case(p, d, c, short_attrs.get(), kShortRefused);
        Outcome expected = run_case(ref, 0, c, short_attrs.get(), kShortRefused);
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
