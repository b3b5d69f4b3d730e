/*
 * map.cl — the elementwise-shaped kernels of the Elementwise and Copy
 * families: one work-item per element (grid-stride), the operator OP bound
 * by kernel_source.cpp (binary_body, unary_body, where_body, convert_body:
 * the macros of backplane/kernels/elementwise_ops.h), the walk by BP_WALK
 * and BP_AT (common.cl). Sections, one per shape of operator (README.md):
 *
 *   BP_MAP_BINARY: out = OP(x, y); mode 0: two tensors, 1: OP(a, s),
 *     2: OP(s, a); in the scalar modes the host passes the one tensor as
 *     both a and b
 *   BP_MAP_WHERE: out = OP(c, a, b), on stored values as they are
 *   BP_MAP_UNARY: out = OP(x), a unary operator (its output in the
 *     program's dtype, or bool for ISNAN and ISINF), or COPY into any dtype
 */

#ifdef BP_MAP_BINARY
__kernel void BP_NAME(__global OUT_S *o, __global const S *a, __global const S *b,
                      bp_layout L, long n, int mode, T s) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T x = mode == 2 ? s : LD(a[BP_AT(1)]);
    const T y = mode == 1 ? s : LD(b[BP_AT(2)]);
    o[BP_AT(0)] = OSV(OP(x, y));
  }
}
#endif

#ifdef BP_MAP_WHERE
__kernel void BP_NAME(__global S *o, __global const uchar *c, __global const S *a,
                      __global const S *b, bp_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    o[BP_AT(0)] = OP(c[BP_AT(1)], a[BP_AT(2)], b[BP_AT(3)]);
  }
}
#endif

#ifdef BP_MAP_UNARY
__kernel void BP_NAME(__global OUT_S *o, __global const S *a, bp_layout L, long n) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
    BP_WALK
    const T x = LD(a[BP_AT(1)]);
    o[BP_AT(0)] = OSV(OP(x));
  }
}
#endif
