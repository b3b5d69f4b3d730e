/*
 * backplane/kernels/elementwise.cl — elementwise_ops.h in OpenCL C: what
 * elementwise.hpp is to the C++ and CUDA backends. The OpenCL backend
 * embeds this text followed by elementwise_ops.h's at build time
 * (plugins/opencl/CMakeLists.txt) and writes BP_EW_<id>(BP_EW_KIND, ...)
 * for operator BP_OP_<id>, in op-by-op and fused kernels alike, so both
 * compute the same bits as each other and as the C++ functors.
 *
 * Expanded where T (the compute type: float for float16 and bfloat16), UT
 * (an unsigned type that wraps like T), IS_NAN and exactly one of
 * BP_KIND_FLOAT, BP_KIND_INT and BP_KIND_BOOL (T's kind) are defined: one
 * text per element type. The math is OpenCL C's built-ins.
 */
#define BP_EW_DECLARE_MATH
#define BP_EW_UT UT
#define BP_EW_FN inline
#define BP_EW_IS_NAN(v) IS_NAN(v)
#define BP_EW_TRUTH(b) ((b) != 0)
#define BP_EW_MAKE_BOOL(c) ((uchar)(c))
#define BP_EW_FLOAT_HELPERS BP_KIND_FLOAT
#define BP_EW_INT_HELPERS BP_KIND_INT
#if BP_KIND_FLOAT
#define BP_EW_KIND F
#elif BP_KIND_INT
#define BP_EW_KIND I
#else
#define BP_EW_KIND B
#endif
