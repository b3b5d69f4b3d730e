#include "against_reference.hpp"

#include "case_runner.hpp"
#include "judge.hpp"
#include "paths.hpp"
#include "text.hpp"

namespace bpcheck {

bool is_reference_itself(Recorder &rec, const Plugin &p, const Plugin &ref, const char *how) {
  const bool self = real_path(p.path()) == real_path(ref.path());
  if (self) rec.note(std::string("this is the reference plugin itself: ") + how);
  return self;
}

bool reference_declares(Recorder &rec, Plugin &ref, const Combo &combo, const std::string &name) {
  if (ref.declares(0, combo.op, combo.dtype, combo.out_dtype)) return true;
  rec.note("declares " + name + ", which plugin.h does not define (the reference does not implement it): not compared");
  return false;
}

CaseVerdict compare_case(Recorder &rec, const Comparison &cmp, const Case &c, const std::string &label) {
  rec.begin(cmp.name + cmp.on + ", " + label);
  const Outcome got = run_case(cmp.plugin, cmp.device, c);
  // The reference under test runs each case once: its outcome stands for
  // both sides, so the judge looks only at what it wrote around its output.
  const Outcome expected = cmp.self ? got : run_case(cmp.reference, 0, c);
  if (!expected.ok) {
    const std::string failed = cmp.name + ", " + label + ": the reference failed (" + expected.failure + ")";
    if (cmp.reference_must_run) {
      rec.fail(failed);
      return CaseVerdict::failed;
    }
    rec.note(failed + ": not compared");
    return CaseVerdict::not_compared;
  }
  const std::string verdict = judge(c, got, expected);
  if (verdict.empty()) return CaseVerdict::agreed;
  rec.fail("declares " + cmp.name + " but " + verdict + cmp.on + " (" + label + ")");
  return CaseVerdict::failed;
}

size_t compare_cases(Recorder &rec, const Comparison &cmp, const std::vector<Case> &cases, const char *what) {
  size_t run = 0;
  for (const Case &c : cases) {
    ++run;
    if (compare_case(rec, cmp, c, "case " + c.label) == CaseVerdict::failed) return run;
  }
  rec.pass(cmp.name + cmp.on + format(": %zu %s agree with the reference", cases.size(), what));
  return run;
}

}  // namespace bpcheck
