/*
 * common.cl — what every op-by-op program of the OpenCL backend starts with,
 * after the lines kernel_source.cpp writes for the program's dtype (T, S,
 * UT, ACC, LD, SV, IS_NAN, BP_T_IS_FLOAT and BP_T_<dtype>: README.md) and
 * backplane/half.h. Pasted once per program; the family files follow.
 */

/* Token pasting after expansion: BP_CAT(BP_NAME, _better) is a helper
 * named after the kernel it serves. */
#define BP_CAT_(a, b) a##b
#define BP_CAT(a, b) BP_CAT_(a, b)

/* The layout of an elementwise-shaped kernel (ClLayout in
 * kernel_source.hpp): operand 0 is the output, 1..3 the inputs. */
typedef struct {
  long shape[8];
  long stride[4][8];
  long offset[4];
  long rank;
} bp_layout;

/* Element offsets of operands 0..3 of the element at C-order position i. */
inline void bp_offsets(const bp_layout *L, long i, long *off) {
  for (int k = 0; k < 4; ++k) off[k] = L->offset[k];
  for (int d = (int)L->rank - 1; d >= 0; --d) {
    const long e = i % L->shape[d];
    i /= L->shape[d];
    for (int k = 0; k < 4; ++k) off[k] += e * L->stride[k][d];
  }
}

/* Rows along the last axis (ClRowsLayout in kernel_source.hpp). */
typedef struct {
  long row_shape[7];
  long row_in[7];
  long row_out[7];
  long row_rank, in_offset, out_offset, n_rows, len, in_step, out_step;
} bp_rows_layout;

/* The first elements of row r in the input (*in) and the output (*out). */
inline void bp_row_start(const bp_rows_layout *L, long r, long *in, long *out) {
  *in = L->in_offset;
  *out = L->out_offset;
  for (int d = (int)L->row_rank - 1; d >= 0; --d) {
    const long e = r % L->row_shape[d];
    r /= L->row_shape[d];
    *in += e * L->row_in[d];
    *out += e * L->row_out[d];
  }
}

/* How the two variants of an elementwise-shaped kernel find element i of
 * operand k: "<stem>_1d" with one stride per operand (any view that
 * collapses to one axis), "<stem>_nd" by walking up to 8 axes. A kernel
 * writes BP_WALK once, then BP_AT(k); kernel_source.cpp binds the two to
 * one of these pairs per variant. */
#define BP_WALK_1D
#define BP_AT_1D(k) (L.offset[k] + i * L.stride[k][0])
#define BP_WALK_ND \
  long off_[4];    \
  bp_offsets(&L, i, off_);
#define BP_AT_ND(k) off_[k]

/* A sum in ACC (SUM, MEAN, NORM, LOGSUMEXP, CUMSUM): BP_SUM_ADD(s, c, v)
 * folds v into s, BP_SUM_RESULT(s, c) is the sum, BP_SUM_COMBINE(a, b)
 * adds two partial sums. */
#if BP_T_IS_FLOAT
/* Compensated (Neumaier) sums, like the reference backend; once the sum is
 * Inf or NaN the compensation c means nothing and is dropped. */
#define BP_SUM_ADD(s, c, v)                                    \
  {                                                            \
    const ACC t_ = s + v;                                      \
    c += fabs(s) >= fabs(v) ? (s - t_) + v : (v - t_) + s;     \
    s = t_;                                                    \
  }
#define BP_SUM_RESULT(s, c) (isfinite(s) ? s + c : s)
#define BP_SUM_COMBINE(a, b) ((a) + (b))
#else
/* Integer and bool sums are int64 and wrap. */
#define BP_SUM_ADD(s, c, v) \
  { s = (ACC)((ulong)s + (ulong)v); }
#define BP_SUM_RESULT(s, c) (s)
#define BP_SUM_COMBINE(a, b) ((ACC)((ulong)(a) + (ulong)(b)))
#endif

/* part[lid] = v for every work-item of the group, then their tree
 * combination: part[0] ends as f of them all (f(a, b) combines two). Every
 * work-item must run it, for its barriers. */
#define BP_GROUP_COMBINE(part, lid, lsize, v, f)                  \
  part[lid] = (v);                                                \
  barrier(CLK_LOCAL_MEM_FENCE);                                   \
  for (int h_ = (lsize) / 2; h_ > 0; h_ /= 2) {                   \
    if ((lid) < h_) part[lid] = f(part[lid], part[(lid) + h_]);   \
    barrier(CLK_LOCAL_MEM_FENCE);                                 \
  }
