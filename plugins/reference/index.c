/*
 * index.c — visiting every index of a shape in C order (last axis fastest),
 * like an odometer. All strided access in the backend is built on this:
 * given an index, each tensor finds its element through its own strides, so
 * broadcast inputs (stride 0), transposed views and strided outputs need no
 * special cases anywhere.
 */
#include "reference.h"

void ref_walk_start(ref_walk *walk, int32_t rank, const int64_t *shape) {
  int32_t d;
  walk->rank = rank;
  walk->position = 0;
  walk->done = 0;
  for (d = 0; d < BP_MAX_RANK; ++d) {
    walk->shape[d] = d < rank ? shape[d] : 0;
    walk->index[d] = 0;
    /* A zero extent on any axis means there is no index at all. */
    if (d < rank && shape[d] == 0) walk->done = 1;
  }
}

void ref_walk_next(ref_walk *walk) {
  int32_t d;
  ++walk->position;
  /* Increment the last axis; on overflow reset it and carry to the previous. */
  for (d = walk->rank - 1; d >= 0; --d) {
    if (++walk->index[d] < walk->shape[d]) return;
    walk->index[d] = 0;
  }
  /* Carried out of axis 0 (or rank 0, whose single index is now used up). */
  walk->done = 1;
}
