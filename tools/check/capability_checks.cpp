// L3 capabilities: supports() is stable, answers 0 or 1 and no to unknown
// numbers, and execute refuses whatever it says no to.
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

void group_capabilities(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  for (int32_t d : ctx.devices(p, true)) {
    const std::string dn = p.device_name(d);
    // The same question gets the same answer, and unknown numbers get "no".
    rec.begin(dn + ": supports() asked everything twice");
    int inconsistent = 0, bad_answers = 0;
    std::string first_problem;
    // Every number up to past BP_OP_LIMIT and BP_DTYPE_COUNT: the vocabulary's
    // operators and dtypes and the gaps between them, and a far one.
    std::vector<int32_t> questions;
    for (int32_t op = -1; op <= BP_OP_LIMIT + 1; ++op) questions.push_back(op);
    questions.push_back(1000);
    for (int32_t op : questions)
      for (int32_t dt = -1; dt <= BP_DTYPE_COUNT; ++dt)
        for (int32_t ot = -1; ot <= BP_DTYPE_COUNT; ++ot) {
          int32_t a1 = -7, a2 = -7;
          bp_status s1 = p.supports(d, op, dt, ot, &a1);
          bp_status s2 = p.supports(d, op, dt, ot, &a2);
          const bool known = bp_vocab_op_name(op) && bp_vocab_dtype_size(dt) && bp_vocab_dtype_size(ot);
          if (s1 != s2 || (s1 == BP_OK && a1 != a2)) {
            if (!inconsistent++)
              first_problem = format("supports(%s, %s, %s) answered %d then %d", op_name(op), dtype_name(dt),
                                     dtype_name(ot), s1 == BP_OK ? int(a1) : -int(s1), s2 == BP_OK ? int(a2) : -int(s2));
          } else if (s1 == BP_OK && (a1 < 0 || a1 > 1 || (!known && a1 != 0))) {
            if (!bad_answers++)
              first_problem = format("supports(%s, %s, %s) answered %d", op_name(op), dtype_name(dt), dtype_name(ot), int(a1));
          }
        }
    rec.expect(inconsistent == 0 && bad_answers == 0, dn + ": supports() answers are stable, 0 or 1, and no for unknown numbers",
               dn + format(": supports() is inconsistent (%d questions answered differently twice, %d answers not 0/1 or "
                           "yes to an unknown op/dtype); first: ",
                           inconsistent, bad_answers) +
                   first_problem);

    // Whatever it says no to, execute refuses cleanly.
    int refused = 0, wrong = 0;
    for (int32_t op : vocab_ops())
      for (int32_t dt : vocab_dtypes())
        for (int32_t ot : vocab_dtypes()) {
          if (op_family(op) == BP_OP_FAMILY_CREATE && ot != dt) continue;
          // Values of another dtype than the output's make a malformed
          // scatter (BP_ERR_DTYPE), not an undeclared one.
          if (op_family(op) == BP_OP_FAMILY_SCATTER && ot != dt) continue;
          if (p.declares(d, op, dt, ot)) continue;
          const std::string name = combo_name(op, dt, ot);
          std::vector<int64_t> shape = op_family(op) == BP_OP_FAMILY_MATMUL ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{3};
          std::vector<Case> cases = make_small_cases(op, dt, ot, 3, {shape});
          if (cases.empty()) continue;
          const Case &c = cases.front();
          rec.begin(dn + ": execute of " + name + ", which it does not declare");
          BoundCase bound(p, d, c);
          if (!bound.ok()) {
            rec.fail(dn + ": cannot set up " + name + ": " + bound.failure());
            continue;
          }
          bp_status s = bound.execute();
          std::vector<uint8_t> out;
          std::string read_error = bound.read_storage(c.output.storage, &out);
          const bool untouched = read_error.empty() && out == c.storages[size_t(c.output.storage)];
          if (s == BP_ERR_UNSUPPORTED && untouched) {
            ++refused;
            continue;
          }
          ++wrong;
          if (s != BP_ERR_UNSUPPORTED)
            rec.fail(dn + ": says no to " + name + " but execute " +
                     (s == BP_OK ? std::string("ran it (BP_OK)") : std::string("returned ") + p.describe(s)) +
                     " instead of BP_ERR_UNSUPPORTED");
          else
            rec.fail(dn + ": says no to " + name + " and refuses it, but wrote into the output anyway");
        }
    if (wrong == 0) rec.pass(dn + format(": execute refuses each of the %d undeclared combinations with BP_ERR_UNSUPPORTED", refused));
  }
}

}  // namespace bpcheck
