/*
 * backplane/sdk/fused.h — what every backend asks of an execute_fused()
 * program once bp_sdk_check_fused has accepted it (since 1.5): which
 * values it must compute, and whether it implements every instruction.
 * C99 and C++; nothing to link.
 */
#ifndef BACKPLANE_SDK_FUSED_H
#define BACKPLANE_SDK_FUSED_H

#include <stdint.h>

#include "backplane/plugin.h"

/* Capacity of a liveness array: every value a program may have. */
#define BP_SDK_FUSED_MAX_VALUES (BP_FUSED_MAX_INPUTS + BP_FUSED_MAX_INSTRS)

/* live[v] = 1 for each value v (inputs 0 .. n_inputs-1, then instruction k
 * as n_inputs + k) that an output takes or that a live instruction reads,
 * else 0: a value read by nothing needs no load and no instruction. `live`
 * is the caller's, with room for n_inputs + n_instrs entries
 * (BP_SDK_FUSED_MAX_VALUES at most). The program must have passed
 * bp_sdk_check_fused (every reference in range). */
static inline void bp_sdk_fused_live(const bp_fused_program *p, uint8_t *live) {
  int32_t j, k, a;
  for (j = 0; j < p->n_inputs + p->n_instrs; ++j) live[j] = 0;
  for (j = 0; j < p->n_outputs; ++j) live[p->output_values[j]] = 1;
  for (k = p->n_instrs - 1; k >= 0; --k) {
    if (!live[p->n_inputs + k]) continue;
    for (a = 0; a < 3; ++a)
      if (p->instrs[k].args[a] >= 0) live[p->instrs[k].args[a]] = 1;
  }
}

/* Whether a backend implements one (op, dtype, out_dtype) triple; `context`
 * is the caller's. */
typedef int32_t (*bp_sdk_implements_fn)(void *context, int32_t op, int32_t dtype, int32_t out_dtype);

/* The first instruction whose triple `implements` refuses, or -1 when the
 * backend implements them all (then it answers the program with its kernels,
 * else BP_ERR_UNSUPPORTED naming that instruction). */
static inline int32_t bp_sdk_fused_first_unsupported(const bp_fused_program *p, bp_sdk_implements_fn implements,
                                                     void *context) {
  int32_t k;
  for (k = 0; k < p->n_instrs; ++k)
    if (!implements(context, p->instrs[k].op, p->instrs[k].dtype, p->instrs[k].out_dtype)) return k;
  return -1;
}

#endif /* BACKPLANE_SDK_FUSED_H */
