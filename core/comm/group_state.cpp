#include "comm/group_state.hpp"

#include <cstdio>

#include "errors/error.hpp"

namespace bp::core::dist {

State &state() {
  static State *s = new State();
  return *s;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

bp_status as_status(int32_t s) { return bp_vocab_status_name(s) ? bp_status(s) : BP_ERR_INTERNAL; }

const char *collective_name(int32_t collective) {
  if (collective == kBarrier) return "barrier";
  const char *name = bp_vocab_collective_name(collective);
  return name ? name : "?";
}

std::string fn_of(int32_t collective) { return std::string("bp_dist_") + collective_name(collective); }

std::string reduce_name(int32_t reduce_op) {
  const char *name = bp_vocab_reduce_op_name(reduce_op);
  return name ? name : "reduction " + std::to_string(reduce_op);
}

std::string rank_of_size(const State &s) {
  return "rank " + std::to_string(s.rank.load()) + " of " + std::to_string(s.size.load());
}

void require_active(State &s, const std::string &fn) {
  if (!s.active) fail(BP_ERR_STATE, fn + ": the process group is not initialised (call bp_dist_init first)");
  if (s.broken)
    fail(BP_ERR_PEER, fn + ": the process group is broken: an earlier collective timed out waiting for a peer; "
                           "call bp_dist_finalize and exit");
}

void check_transport(State &s, const std::string &fn, Scratch &scratch, int32_t status, const std::string &phase) {
  if (status == BP_OK) return;
  const std::string detail = s.t->last_error();
  if (status != BP_ERR_PEER) fail(as_status(status), fn + ": " + phase + ": " + detail);
  s.broken = true;
  s.kept.push_back(std::move(scratch));
  fail(BP_ERR_PEER, fn + ": " + rank_of_size(s) + " waited " + seconds(s.timeout) + " s " + phase +
                        " and not every rank arrived (" + detail +
                        "); the process group is now broken: later collectives fail at once; call "
                        "bp_dist_finalize and exit (MPI is left as it is: finalising it would wait for the "
                        "missing rank)");
}

}  // namespace bp::core::dist
