/*
 * backplane/plugin.h — the backend ABI: what a Backplane plugin exports.
 *
 * A plugin is a shared library named libbackplane-<name>.so that exports one
 * symbol, BP_PLUGIN_ENTRY_SYMBOL, returning a table of function pointers
 * (bp_plugin_api). The core loads it at run time, checks abi_major, and
 * reads no field past the plugin's struct_size. Plain C99 only: fixed-width
 * integers, opaque handles, out-pointers; nothing ever throws across it.
 *
 * Versioning: abi_major changes only when an existing field changes meaning
 * (the core then rejects the plugin with a reason). New fields are appended
 * and bump abi_minor; a plugin built against an older minor simply has a
 * smaller struct_size, and the core treats every missing or NULL (optional)
 * entry as "not supported". Structs the core hands in (bp_op_attrs,
 * bp_plugin_device_info) carry the core's struct_size: read and write only
 * the fields that fit in it. bp_plugin_tensor and bp_property cross as arrays
 * without a size field: their layouts are frozen for major version 1.
 * "(since 1.x)" marks what each minor version added. See abi/CHANGELOG.md
 * and docs/abi-rules.md.
 *
 * Threads: unless the plugin sets BP_PLUGIN_THREAD_SAFE in `flags`, the core
 * never calls into it from two threads at once.
 */
#ifndef BACKPLANE_PLUGIN_H
#define BACKPLANE_PLUGIN_H

#include "backplane/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version this header describes. */
#define BP_PLUGIN_ABI_MAJOR 1
#define BP_PLUGIN_ABI_MINOR 6

/* Name of the single symbol a plugin exports (type bp_plugin_get_api_fn). */
#define BP_PLUGIN_ENTRY_SYMBOL "bp_plugin_get_api"

/* Put in front of the definition of bp_plugin_get_api (declared at the end
 * of this header) so that it is exported even when the plugin is built with
 * hidden visibility (since 1.1). The non-Windows form is the GCC/Clang
 * attribute every supported compiler takes. */
#if defined(_WIN32)
#define BP_PLUGIN_EXPORT __declspec(dllexport)
#else
#define BP_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Opaque device memory owned by the plugin. The core never dereferences it. */
typedef struct bp_buffer_s *bp_buffer;

/* A tensor argument as a plugin sees it: a strided view into a buffer.
 * Passed by pointer (execute's inputs as an array); valid only for the
 * duration of the call. Frozen for major version 1: no size field, never
 * extended (since 1.0). When the view has elements, offset is a multiple of
 * the dtype's size and every element it reaches lies inside the buffer:
 * offset + (sum of (shape[d]-1) * strides[d]) * dtype size + dtype size <=
 * the buffer's allocated bytes. A view without elements may have any
 * strides and a NULL buffer. */
typedef struct bp_plugin_tensor {
  bp_buffer buffer;                /* from this plugin's alloc; may be NULL when numel is 0 */
  uint64_t offset;                 /* bytes from the buffer start to element [0,...,0] */
  int32_t dtype;                   /* a bp_dtype */
  int32_t rank;                    /* 0..BP_MAX_RANK; rank 0 is a scalar of one element */
  int64_t shape[BP_MAX_RANK];      /* extents; entries >= rank are 0 */
  int64_t strides[BP_MAX_RANK];    /* in elements, >= 0; 0 on broadcast axes */
} bp_plugin_tensor;

/* How a scalar operand given by value combines with the single tensor input. */
typedef enum bp_scalar_mode {
  BP_SCALAR_NONE = 0, /* binary ops take two tensor inputs */
  BP_SCALAR_RHS = 1,  /* out = op(input0, scalar) */
  BP_SCALAR_LHS = 2   /* out = op(scalar, input0) */
} bp_scalar_mode;

/* Operator attributes. The core zero-fills and sets struct_size; a plugin
 * must not read fields past struct_size. */
typedef struct bp_op_attrs {
  uint32_t struct_size;  /* sizeof(bp_op_attrs) as the core built it (since 1.0) */
  int32_t scalar_mode;   /* a bp_scalar_mode, binary ops only (since 1.0) */
  double scalar;         /* scalar operand; FILL value; ARANGE start; UNIFORM low; NORMAL mean (since 1.0) */
  double scalar2;        /* ARANGE step; UNIFORM high; NORMAL standard deviation (since 1.0) */
  uint64_t seed;         /* RANDOM_* seed (since 1.0) */
  uint64_t flags;        /* BP_ATTRS_* bits; 0 from a 1.2 or older core (since 1.3) */
  int32_t option;        /* the form of the operator its semantics name (BP_OPTION_* bits of
                            the operator), else 0 (since 1.6) */
  int32_t reserved;      /* 0 (since 1.6) */
  const void *params;    /* the family's parameter struct, which starts with its own
                            struct_size (bp_window_params for the families plugin.h says),
                            else NULL; valid for the call only (since 1.6) */
} bp_op_attrs;
#define BP_OP_ATTRS_SIZE_1_0 (offsetof(bp_op_attrs, seed) + sizeof(uint64_t))
#define BP_OP_ATTRS_SIZE_1_3 (offsetof(bp_op_attrs, flags) + sizeof(uint64_t))
#define BP_OP_ATTRS_SIZE_1_6 (offsetof(bp_op_attrs, params) + sizeof(void *))
/* C99 has no static_assert: a negative array size stops the build instead. */
typedef char bp_op_attrs_size_check[sizeof(bp_op_attrs) == BP_OP_ATTRS_SIZE_1_6 ? 1 : -1];

/* The sliding window of a convolution or pooling operator (bp_op_attrs.params
 * of the families whose semantics say so; since 1.6). The core zero-fills
 * it and sets struct_size; a plugin reads no field past struct_size. The
 * operator's spatial axes are the last spatial_rank axes of its views (the
 * channels-first layouts of plugin.h: [N, C, spatial...]); entry i of each
 * array is spatial axis i, and entries past spatial_rank are 0. Along
 * spatial axis i, output position o reads the input positions
 * o * stride[i] - pad_begin[i] + k * dilation[i], k = 0 .. kernel[i] - 1;
 * a position below 0 or past the input's extent is padding (how padding
 * counts is the operator's rule). pad_end[i] is the padding the caller
 * asked for after the input's end: the output extents the core passes
 * follow from it (plugin.h gives the formula per operator), and a window
 * may reach past it only where the output extent says so (ceil mode). */
#define BP_WINDOW_MAX_RANK 3
typedef struct bp_window_params {
  uint32_t struct_size;                 /* sizeof(bp_window_params) as the core built it (since 1.6) */
  int32_t spatial_rank;                 /* 1..BP_WINDOW_MAX_RANK (since 1.6) */
  int32_t groups;                       /* channel groups of a convolution, >= 1; 1 for pooling (since 1.6) */
  uint32_t flags;                       /* BP_WINDOW_* bits (since 1.6) */
  int64_t kernel[BP_WINDOW_MAX_RANK];   /* window extents, >= 1 (a convolution's: its weight's) (since 1.6) */
  int64_t stride[BP_WINDOW_MAX_RANK];   /* >= 1 (since 1.6) */
  int64_t dilation[BP_WINDOW_MAX_RANK]; /* >= 1 (since 1.6) */
  int64_t pad_begin[BP_WINDOW_MAX_RANK]; /* >= 0 (since 1.6) */
  int64_t pad_end[BP_WINDOW_MAX_RANK];  /* >= 0 (since 1.6) */
} bp_window_params;
#define BP_WINDOW_PARAMS_SIZE_1_6 (offsetof(bp_window_params, pad_end) + BP_WINDOW_MAX_RANK * sizeof(int64_t))
typedef char bp_window_params_size_check
    [sizeof(bp_window_params) == BP_WINDOW_PARAMS_SIZE_1_6 ? 1 : -1];
/* bp_window_params.flags: average pooling divides by the whole window,
 * padding within pad_begin and pad_end included (PyTorch's and ONNX's
 * count_include_pad), instead of by the input elements it covers. Positions
 * past pad_end (ceil mode) never count. (since 1.6) */
#define BP_WINDOW_COUNT_INCLUDE_PAD 1u

/* bp_op_attrs.option of TOPK (since 1.6): select the largest elements,
 * written in descending order; without it the smallest, in ascending order
 * (the semantics below). No other bit is defined: a plugin refuses one with
 * BP_ERR_INVALID_ARGUMENT. */
#define BP_OPTION_LARGEST 1

/* bp_op_attrs.option of ATTENTION (since 1.6): the causal mask, key j
 * hidden from query i when j > i (see ATTENTION in the semantics below). */
#define BP_OPTION_CAUSAL 1

/* bp_op_attrs.flags (since 1.3).
 * BP_ATTRS_VALIDATED: the caller promises that the call breaks none of the
 * rules below (the Errors paragraph): the device index is one of the
 * plugin's, supports() answered 1 for (op, dtype, out_dtype), attrs and the
 * input count fit the operator, every view is well-formed and inside a live
 * buffer of this plugin, shapes and dtypes are as the operator's semantics
 * require and the output overlaps no input unless it is the same view. The
 * core sets it on every execute() call, having checked all of that itself,
 * so a plugin may skip its own checks (the per-operator cost of routing a
 * tiny tensor); a plugin that checks anyway stays correct. Without the bit a
 * plugin must check everything (bp check calls without it, and with it only
 * on valid calls). */
#define BP_ATTRS_VALIDATED 1u
/* Size of bp_plugin_tensor, frozen (since 1.1). */
#define BP_PLUGIN_TENSOR_SIZE_1_0 (offsetof(bp_plugin_tensor, strides) + BP_MAX_RANK * sizeof(int64_t))
typedef char bp_plugin_tensor_size_check
    [sizeof(bp_plugin_tensor) == BP_PLUGIN_TENSOR_SIZE_1_0 ? 1 : -1];

/* Arguments of a collective (bp_plugin_api.collective, since 1.2). The core
 * zero-fills and sets struct_size; a plugin must not read fields past
 * struct_size.
 *
 * Every view is contiguous (dense C-order strides) and all inputs share one
 * dtype and one shape S; outputs have the inputs' dtype. With group 0 the
 * collective runs among `count` devices of this plugin in this process,
 * pairwise distinct, participant i being devices[i], inputs[i] and
 * outputs[i]. With a group from group_join, count is 1: this process's
 * participant, and the others are the group's other ranks, in rank order.
 * Below, n is the number of participants and x_j participant j's input.
 *
 * - ALL_REDUCE: every output (shape S) is reduce_op over j of x_j.
 * - BROADCAST: every output (shape S) is a copy of the input of participant
 *   `root` (the other inputs are not read).
 * - ALL_GATHER: every output has shape [n, S...]; its row j is x_j.
 * - REDUCE_SCATTER: inputs have shape [n, S...]; output i (shape S) is
 *   reduce_op over j of row i of x_j.
 *
 * An output is either exactly its participant's input view (in place) or
 * overlaps no input. Reductions: SUM adds (floats in an order the backend
 * picks, so within n - 1 roundings of the exact sum; integers wrap as ADD
 * does); MEAN is SUM divided by n (floats: within n + 1 roundings, so a
 * backend may scale each term first, as ncclAvg does; integers: truncated
 * toward zero, as C divides); MAX and MIN are elementwise (on bool: or,
 * and). Which value a float MAX or MIN gives when an input is NaN is
 * unspecified. The core passes only collective and reduce_op numbers of the
 * plugin's own abi_minor or older, never SUM or MEAN of bool and never a
 * non-contiguous view; a plugin given one anyway answers BP_ERR_DTYPE (bool)
 * or BP_ERR_INVALID_ARGUMENT (the rest) and writes nothing. In a group
 * collective, devices[0] is the device the group was joined on. Neither
 * group_join nor a group collective has a timeout of its own: a missing
 * peer is found by the core's transport, which bounds its own waits. The
 * collective is ordered after earlier work
 * on every device involved, and later work on those devices sees its
 * results. BP_ERR_UNSUPPORTED returned before any output is written makes
 * the core do the collective itself (staged through host memory), so a
 * backend may implement only some dtypes, reductions or device sets. */
typedef struct bp_collective_args {
  uint32_t struct_size;            /* sizeof(bp_collective_args) as the core built it (since 1.2) */
  int32_t collective;              /* a BP_COLLECTIVE_* (since 1.2) */
  int32_t reduce_op;               /* a BP_REDUCE_* for ALL_REDUCE and REDUCE_SCATTER, else 0 (since 1.2) */
  int32_t root;                    /* BROADCAST: the source participant, else 0 (since 1.2) */
  int32_t count;                   /* participants in this call, >= 1 (since 1.2) */
  const int32_t *devices;          /* count device indices of this plugin (since 1.2) */
  const bp_plugin_tensor *inputs;  /* count views, inputs[i] on devices[i] (since 1.2) */
  const bp_plugin_tensor *outputs; /* count views, outputs[i] on devices[i] (since 1.2) */
  uint64_t group;                  /* 0, or a group from group_join (since 1.2) */
} bp_collective_args;
#define BP_COLLECTIVE_ARGS_SIZE_1_2 (offsetof(bp_collective_args, group) + sizeof(uint64_t))
typedef char bp_collective_args_size_check
    [sizeof(bp_collective_args) == BP_COLLECTIVE_ARGS_SIZE_1_2 ? 1 : -1];

/* Fused elementwise programs (bp_plugin_api.execute_fused, since 1.3).
 *
 * A program is a straight-line list of elementwise instructions over
 * n_inputs input views, writing n_outputs output views, all of one shape
 * (the program's shape, outputs[0]'s; inputs are broadcast to it with
 * stride 0 on broadcast axes, as execute's inputs are). Values are numbered:
 * value v < n_inputs is input v (its dtype is inputs[v].dtype); value
 * n_inputs + k is the result of instruction k (dtype instrs[k].out_dtype).
 * Output j receives value output_values[j], whose dtype is outputs[j].dtype.
 *
 * Instruction k is execute(op) on its operands args[0..arity-1], each a
 * value number below n_inputs + k (unused entries are -1), with the
 * operator's family arity (plugin.h's semantics above; BINARY and COMPARE
 * with scalar_mode RHS or LHS take one operand and `scalar`, converted to
 * `dtype` as by COPY from float64). Its operands have dtype `dtype`, except
 * WHERE's args[0], which is bool; (op, dtype, out_dtype) is a triple
 * supports() answered 1 for. Families allowed: BINARY, COMPARE, WHERE,
 * UNARY and COPY (a conversion from dtype to out_dtype).
 *
 * Meaning: every output element is bit for bit what running the
 * instructions one by one with execute(), each into a temporary of its
 * out_dtype, would leave there; the functions plugin.h lets differ in the
 * last bits (EXP, LOG, ...) may differ as they may in execute. Element e of
 * an output depends only on element e of the inputs, so a plugin may split
 * the work in any order (tiles, threads). Intermediate values live where
 * the plugin likes (registers): only outputs are written.
 *
 * Aliasing: outputs are dense, overlap no other output, and each either
 * overlaps no input or is the very same view as an input (in place: every
 * element is read before it is written). Inputs may overlap each other.
 *
 * The core passes at most BP_FUSED_MAX_INPUTS inputs, BP_FUSED_MAX_OUTPUTS
 * outputs and BP_FUSED_MAX_INSTRS instructions, n_outputs >= 1, and views
 * that satisfy everything execute's do. A plugin may answer
 * BP_ERR_UNSUPPORTED for any program (too long for its code generator, a
 * dtype it only runs op by op) provided it has written nothing: the core
 * then runs the instructions one by one through execute. Ordering is
 * execute's: after earlier work on the device, before later work. */
#define BP_FUSED_MAX_INPUTS 16
#define BP_FUSED_MAX_OUTPUTS 8
#define BP_FUSED_MAX_INSTRS 64

/* One instruction. Crosses in arrays without a size field: frozen for
 * major version 1 (since 1.3). */
typedef struct bp_fused_instr {
  int32_t op;          /* an elementwise BP_OP_* (families above) (since 1.3) */
  int32_t dtype;       /* the operands' dtype (WHERE: of args[1] and args[2]) (since 1.3) */
  int32_t out_dtype;   /* the result's dtype, as execute's output would have (since 1.3) */
  int32_t scalar_mode; /* a bp_scalar_mode: BINARY and COMPARE only, else BP_SCALAR_NONE (since 1.3) */
  int32_t args[3];     /* operand value numbers; -1 past the arity (since 1.3) */
  int32_t reserved;    /* 0 (since 1.3) */
  double scalar;       /* the scalar operand when scalar_mode is not NONE, else 0 (since 1.3) */
} bp_fused_instr;
#define BP_FUSED_INSTR_SIZE_1_3 (offsetof(bp_fused_instr, scalar) + sizeof(double))
typedef char bp_fused_instr_size_check[sizeof(bp_fused_instr) == BP_FUSED_INSTR_SIZE_1_3 ? 1 : -1];

/* A program (since 1.3). The core zero-fills and sets struct_size; a plugin
 * must not read fields past struct_size. Every pointer is valid for the
 * duration of the call only. */
typedef struct bp_fused_program {
  uint32_t struct_size;             /* sizeof(bp_fused_program) as the core built it (since 1.3) */
  int32_t n_inputs;                 /* 0..BP_FUSED_MAX_INPUTS (since 1.3) */
  int32_t n_instrs;                 /* 1..BP_FUSED_MAX_INSTRS (since 1.3) */
  int32_t n_outputs;                /* 1..BP_FUSED_MAX_OUTPUTS (since 1.3) */
  const bp_plugin_tensor *inputs;   /* n_inputs views (since 1.3) */
  const bp_fused_instr *instrs;     /* n_instrs instructions, in order (since 1.3) */
  const bp_plugin_tensor *outputs;  /* n_outputs dense views of the program's shape (since 1.3) */
  const int32_t *output_values;     /* n_outputs value numbers (since 1.3) */
} bp_fused_program;
#define BP_FUSED_PROGRAM_SIZE_1_3 (offsetof(bp_fused_program, output_values) + sizeof(void *))
typedef char bp_fused_program_size_check
    [sizeof(bp_fused_program) == BP_FUSED_PROGRAM_SIZE_1_3 ? 1 : -1];

/* Plugin-level flags (bp_plugin_api.flags). */
#define BP_PLUGIN_THREAD_SAFE 1u /* every entry may be called from many threads at once */

/* Device description filled by device_info. The core zero-fills it and sets
 * struct_size; the plugin writes only the fields that fit in struct_size.
 * The struct is a scratch copy of the core's followed by guard bytes: a
 * plugin that writes past struct_size fails the call with BP_ERR_PLUGIN
 * (and, while devices are enumerated, its backend's start). */
typedef struct bp_plugin_device_info {
  uint32_t struct_size;    /* set by the core (since 1.0) */
  int32_t kind;            /* a bp_device_kind (since 1.0) */
  char model[128];         /* NUL-terminated model name, e.g. "NVIDIA H100" (since 1.0) */
  uint64_t memory_total;   /* bytes the device can hold; 0 if unknown (since 1.0) */
  uint64_t memory_free;    /* bytes a new allocation could still get now, as the
                              driver or OS reports it (free device memory; for
                              host memory, available RAM), not counting this
                              plugin's cached blocks; 0 if unknown (since 1.0) */
  uint64_t memory_in_use;  /* bytes in live buffers of this plugin on this device; borrowed
                              ones (wrap_host, since 1.4) are the caller's and not counted
                              (since 1.0) */
} bp_plugin_device_info;
#define BP_PLUGIN_DEVICE_INFO_SIZE_1_0 (offsetof(bp_plugin_device_info, memory_in_use) + sizeof(uint64_t))
typedef char bp_plugin_device_info_size_check
    [sizeof(bp_plugin_device_info) == BP_PLUGIN_DEVICE_INFO_SIZE_1_0 ? 1 : -1];

/*
 * Operator semantics every backend implements (for the ops and dtypes it
 * declares in `supports`). The core has already checked devices, shapes and
 * dtypes, resolved broadcasting, and allocated the output; a plugin gets a
 * problem with no choices left in it. vocabulary.h lists every operator with
 * its family (how many inputs execute receives), the input dtypes it is
 * defined for and the rule for its output dtype; bp_vocab_allows(op, dtype,
 * out_dtype) tells whether a (dtype, out_dtype) pair is one the ABI defines.
 *
 * - Elementwise (the BINARY, COMPARE, WHERE, UNARY and COPY families): every input has the
 *   output's rank and shape (broadcast axes have stride 0). Integer ADD, SUB,
 *   MUL, NEG wrap around (two's complement). DIV is for float dtypes only.
 *   POW on integers: exact repeated multiplication, wrapping; a negative
 *   exponent gives 0 unless the base is 1 or -1. MAXIMUM/MINIMUM propagate
 *   NaN; of +0 and -0 they give either zero (which one is left open, as
 *   for MAX and MIN of a set holding both). Comparisons write bool (0/1)
 *   and follow IEEE (NaN compares unequal).
 *   WHERE: input 0 is bool, inputs 1 and 2 and the output share one dtype.
 *   RELU(x) = x > 0 ? x : 0. SIGMOID(x) = 1 / (1 + exp(-x)). SQUARE(x) =
 *   x * x (integers wrap). SIN and COS take float inputs.
 *   ERF (since 1.5) is the error function, 2/sqrt(pi) times the integral
 *   of exp(-t^2) from 0 to x, for float inputs: erf(-x) = -erf(x) (so
 *   erf(-0) = -0), erf(+-inf) = +-1, erf(NaN) = NaN.
 *   EXPM1 and LOG1P (since 1.5, float inputs) are exp(x) - 1 and
 *   log(1 + x) without the cancellation of computing them so (the C
 *   library's expm1 and log1p): exact for tiny x, log1p(-1) = -inf,
 *   log1p(x < -1) = NaN. RSQRT (since 1.5, float inputs) is 1 / sqrt(x),
 *   each step correctly rounded (not a hardware reciprocal square root), so
 *   it gives the same bits on every backend: rsqrt(+-0) = +-inf,
 *   rsqrt(x < 0) = NaN, rsqrt(inf) = 0. FLOOR, CEIL and ROUND (since 1.5)
 *   round to an integral value toward -inf, toward +inf and to nearest with
 *   ties to even (NumPy's rint and PyTorch's round: 0.5 -> 0, 1.5 -> 2,
 *   -2.5 -> -2); the sign of a zero result is the input's (floor(-0.5) =
 *   -1, ceil(-0.5) = -0); inf and NaN stay. SIGN (since 1.5) is 1 for x > 0,
 *   -1 for x < 0, +0 for +0 and -0 (as NumPy and PyTorch) and NaN for NaN.
 *   FLOOR, CEIL, ROUND and SIGN take integers as well: the first three are
 *   the identity on them, SIGN gives -1, 0 or 1.
 *   ISNAN and ISINF (since 1.6) take float inputs and write bool (the
 *   UNARY operators whose output dtype is not the input's): ISNAN(x) is 1
 *   for a NaN (any payload, either sign), ISINF(x) for +inf and -inf,
 *   else 0; a float16 or bfloat16 element is tested as the float32 it
 *   widens to, so every backend gives the same bits.
 *   FLOOR_DIVIDE and REMAINDER (since 1.1) are Python's // and %: on
 *   floats, FLOOR_DIVIDE(a, b) = floor(a / b) with a / b IEEE-divided in the
 *   dtype (so b = 0 gives +-inf or NaN), and REMAINDER(a, b) = r = fmod(a, b),
 *   plus b when r is nonzero and its sign differs from b's, and a zero r
 *   takes b's sign (b = 0 gives NaN); on integers, the quotient rounded
 *   toward -inf and the remainder with the divisor's sign (a == (a // b) * b
 *   + a % b), with b = 0 giving 0 for both and the most negative value // -1
 *   wrapping to itself (its % -1 is 0).
 *   BITWISE_AND, BITWISE_OR, BITWISE_XOR and BITWISE_NOT (since 1.1) take
 *   integer and bool inputs: on integers they combine (flip) the bits of the
 *   two's complement representation; on bool, BITWISE_NOT is logical not
 *   (1 - x) and the others are logical and, or, xor, so a bool stays 0 or 1.
 *   COPY converts input dtype to output dtype like a C cast, except that a
 *   bool output is (x != 0) and float to integer saturates (since 1.1; 1.0
 *   left a value out of range unspecified): it truncates
 *   toward zero, a value beyond the integer type's range gives its minimum or
 *   maximum (so -inf and +inf do), and NaN gives 0. A bool element is one
 *   byte holding 0 or 1: the core writes no other value into bool storage
 *   and every operator writes only those. An output may be the very same
 *   view as an input (in-place);
 *   the core never passes partially overlapping views. A scalar operand
 *   (attrs.scalar) is first converted to the input dtype as by COPY from
 *   float64; the core never pairs a non-integral scalar with an integer dtype.
 * - Reductions (SUM..NORM, PROD, ARGMIN, LOGSUMEXP, VAR): the output has the
 *   input's rank;
 *   every axis where the output's extent is 1 is reduced, the others are
 *   kept. SUM of an integer or bool input and PROD of an integer input
 *   write int64 (wrapping); of a float input, the same dtype. MEAN and NORM take float inputs. MAX/MIN keep the
 *   dtype and propagate NaN. ARGMAX (ARGMIN) writes int64: the position of
 *   the first maximum (minimum) in the C-order walk of the reduced axes (a
 *   NaN counts as the maximum, and as the minimum). The core never asks MAX,
 *   MIN, ARGMAX or ARGMIN to reduce an empty set; SUM of one is 0, PROD 1,
 *   MEAN NaN.
 *   LOGSUMEXP (since 1.1) takes float inputs and keeps their dtype:
 *   log(sum(exp(x))) computed without overflow as m + log(sum(exp(x - m)))
 *   with m the maximum of the reduced set. Where m is not finite it is the
 *   result: a NaN anywhere in the set gives NaN, else a +inf gives +inf, and
 *   a set of -inf only gives -inf, as does the empty set (NumPy's and
 *   PyTorch's values). The sum of exp(x - m) accumulates as the
 *   Accumulation rule below says; exp and log are the math library's.
 *   VAR (since 1.6) takes float inputs and keeps their dtype: the variance
 *   m2 / max(0, n - c) of the n elements of the reduced set, with m2 =
 *   sum((x - mean)^2), mean = sum(x) / n, and the correction c =
 *   attrs.scalar, a non-negative integer given as a double (0: the
 *   population variance; 1: Bessel's, the sample variance). m2 must be
 *   computed stably, as the sum of squared deviations from the mean (two
 *   passes over the set, or Welford's update with Chan's merge), never as
 *   sum(x^2) - sum(x)^2 / n, which cancels; its sums accumulate as the
 *   Accumulation rule below says (float16 and bfloat16 in float32 or wider).
 *   Where n - c <= 0 the division is by 0, as PyTorch and NumPy give it: m2
 *   > 0 gives +inf, m2 = 0 (one element with c = 1, the empty set) NaN. A
 *   NaN or an infinity in the set gives NaN (inf - inf).
 * - Scans (since 1.1), CUMSUM: input and output have one shape, of rank >= 1,
 *   and the scan runs along the LAST axis of the views (the core moves the
 *   caller's axis there by permuting both views' axes):
 *   out[..., j] = in[..., 0] + ... + in[..., j]. Output dtypes as for SUM
 *   (integer and bool inputs into int64, wrapping; floats keep their dtype);
 *   float terms accumulate as the Accumulation rule below says, each output
 *   element on its own.
 * - SOFTMAX and LOG_SOFTMAX (since 1.6, family SOFTMAX; float dtypes, the
 *   output of the input's dtype): input and output have one shape, of rank
 *   >= 1, and each row along the LAST axis of the views (the core moves the
 *   caller's axis there, as for scans) is normalised on its own. With m the
 *   row's maximum and s = sum over the row of exp(x[k] - m):
 *     SOFTMAX:     out[..., j] = exp(x[j] - m) / s
 *     LOG_SOFTMAX: out[..., j] = (x[j] - m) - log(s)
 *   in one stable pass: every exp argument is <= 0, so no term overflows,
 *   however close the inputs are to the dtype's largest value, and 1 <= s
 *   <= the row's length. A result past the dtype's range rounds as any
 *   does: where x[j] - m is below the lowest finite value, LOG_SOFTMAX gives
 *   -inf (and SOFTMAX 0). A row that holds a NaN or a +inf, or nothing but
 *   -inf, gives NaN in every element (PyTorch's values: m - m is NaN
 *   there); any other -inf element gives 0 and -inf. An empty last axis
 *   writes nothing. The output is either the very same view as the input
 *   (in place: a row is read before it is written) or overlaps it nowhere.
 *   The sum accumulates as the Accumulation rule below says (its terms are
 *   at most 1, so it never overflows); exp and log are the math library's
 *   (a backend's own vector exp is its math library), and SOFTMAX may
 *   divide by s or multiply by 1 / s. float16 and bfloat16 compute every
 *   step in float32 (or wider) and round once, at the end.
 * - TOPK (since 1.6, family TOPK; every dtype): sorting and selection
 *   along the LAST axis of the views (the core moves the caller's axis
 *   there, as for scans). Input 0 is x [..., n] (rank >= 1); the outputs,
 *   in this order, are the values [..., k] in x's dtype and their int64
 *   positions along the axis [..., k], of x's rank and with x's extents on
 *   every other axis: k is the outputs' last extent, 0 <= k <= n (the core
 *   passes k = n to sort). For each row (every index of the axes before the
 *   last) the n elements are put in order and the first k written:
 *   indices[..., j] is the position p of the j-th element in that order and
 *   values[..., j] = x[..., p], the element's own bits. The order is
 *   ascending, or descending when attrs.option has BP_OPTION_LARGEST, and
 *   always stable: equal elements keep their positions' order, the lower
 *   position first, in both directions. So the result is unique: every
 *   backend writes the same values and indices. Ascending, a < b as numbers
 *   (integers exactly; bool false before true; float16 and bfloat16 as the
 *   values they hold), -0 and +0 equal (a tie, kept in position order), and
 *   every NaN (any sign or payload) after every number and equal to every
 *   other NaN, as NumPy's sort puts them; descending is that order reversed
 *   between unequal elements (NaN first, as torch.topk takes NaN for the
 *   largest, then +inf, ...), ties still by position. An empty row (n = 0)
 *   or k = 0 writes nothing. Neither output overlaps the input or the other
 *   output. NumPy's np.sort and np.argsort with kind='stable' give the
 *   ascending result. Shapes that break these rules are BP_ERR_SHAPE, an
 *   indices output that is not int64 BP_ERR_DTYPE, and an attrs.option
 *   holding a bit other than BP_OPTION_LARGEST BP_ERR_INVALID_ARGUMENT.
 * - GATHER_ND (since 1.1, family GATHER): input 0 is the data, of rank k + m;
 *   input 1 the index, int64 of shape [N, k] with 1 <= k <= the data's rank;
 *   the output has shape [N, data.shape[k], ..., data.shape[k+m-1]] and the
 *   data's dtype: out[n, r...] = data[index[n, 0], ..., index[n, k-1], r...].
 * - SCATTER_ND (since 1.1, family SCATTER): input 0 is the index, int64 of
 *   shape [N, k] with 1 <= k <= the output's rank; input 1 the values, of the
 *   output's dtype and shape [N, out.shape[k], ..., out.shape[rank-1]]. The
 *   output is updated in place: out[index[n, 0], ..., index[n, k-1], r...] =
 *   values[n, r...] for every n, and every element no index row names keeps
 *   its value. When rows of the index name one element more than once, it
 *   ends up holding the value of one of them (which one is unspecified).
 *   N may be 0 for both (nothing to do).
 * - SCATTER_ADD_ND (since 1.1, family SCATTER, numeric dtypes): index,
 *   values and output as for SCATTER_ND, the output updated in place, but
 *   each index row adds its values instead of storing them:
 *   out[index[n, 0], ..., index[n, k-1], r...] += values[n, r...] for every
 *   n. Index rows that name one element more than once all add into it
 *   (gather_nd's gradient): integers wrap around, and float terms (the
 *   element's old value among them) accumulate as the Accumulation rule
 *   below says.
 *   Index values (GATHER_ND, SCATTER_ND, SCATTER_ADD_ND): the core passes
 *   only 0 <= index[n, j] < extent of axis j (it has checked the range and
 *   turned negative indices into positive ones). A plugin called with an index out of range, by a caller other
 *   than the core, must still never read or write outside its views:
 *   host-memory backends return BP_ERR_INDEX; a device backend may instead
 *   skip that row, leaving the output elements it names unspecified.
 * - Normalisation (since 1.6, family NORMALIZE: LAYER_NORM, RMS_NORM), along
 *   the LAST axis of the views (the core flattens the caller's normalised
 *   trailing axes into one). Inputs: x [..., n] (rank >= 1, float dtypes),
 *   weight [n] and bias [n] of x's dtype, each optional (absent: weight 1,
 *   bias 0). Outputs, in this order: y of x's shape and dtype; mean and
 *   rstd of shape [..., 1] (x's rank, last extent 1) in the statistics'
 *   dtype, float32 for float16, bfloat16 and float32 inputs and float64 for
 *   float64; each of mean and rstd optional (absent when the caller does
 *   not need them, as in inference). eps = attrs.scalar, finite and >= 0.
 *   For each row r (every index of the axes before the last):
 *     LAYER_NORM: mean = sum(x) / n, var = sum((x - mean)^2) / n (the
 *       biased variance, computed stably as for VAR), rstd = 1 / sqrt(var +
 *       eps), y[j] = (x[j] - mean) * rstd * weight[j] + bias[j].
 *     RMS_NORM: rstd = 1 / sqrt(sum(x^2) / n + eps), y[j] = x[j] * rstd *
 *       weight[j] + bias[j]; output 1 (mean) is always absent (the core
 *       never passes one; a plugin given one answers BP_ERR_INVALID_ARGUMENT).
 *   The statistics are computed in the statistics' dtype or wider (float32
 *   or wider for the halves), their sums as the Accumulation rule says; y
 *   is computed in that dtype too, and a float16 or bfloat16 y is rounded
 *   once, at the end. n = 0 (empty rows) writes mean NaN and rstd
 *   1 / sqrt(NaN) = NaN for each row (no y elements); a row holding a NaN
 *   or an infinity gives NaN statistics and y. y may be the very same view
 *   as x (in place); no output overlaps another or any other input.
 * - MATMUL: inputs a[..., M, K] and b[..., K, N], output [..., M, N], all
 *   three of the same rank >= 2 and the same batch extents (broadcast batch
 *   axes have stride 0). Transposes arrive as swapped strides.
 * - ATTENTION (since 1.6, family ATTENTION): scaled dot-product attention,
 *   the optional fused form of the core's bp_attention (backplane.h). A
 *   plugin may leave it out of supports(): the core then runs its
 *   composite of MATMUL, softmax and WHERE instead, so no backend needs it.
 *   Inputs: q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv], and input 3,
 *   the mask: absent, or an additive mask [..., Lq, Lk]; the output is
 *   [..., Lq, Dv]. Every present view has one rank >= 2, the output's
 *   batch extents (broadcast axes, the mask's included, have stride 0) and
 *   the output's float dtype; the output overlaps no input. With s =
 *   attrs.scalar (the scale, any finite number: the core has resolved
 *   bp_attention's default), for each batch element
 *     S[i, j] = s * (q[i, :] . k[j, :]) + mask[i, j]   (mask 0 when absent)
 *   and, with BP_OPTION_CAUSAL in attrs.option, S[i, j] = -inf for j > i
 *   (PyTorch's is_causal: the top-left aligned lower triangle, also when
 *   Lq != Lk). Then, with m_i = max_j S[i, j],
 *     P[i, j] = exp(S[i, j] - m_i) / sum_j' exp(S[i, j'] - m_i)
 *     out[i, c] = sum_j P[i, j] * v[j, c].
 *   A row whose scores are all -inf (every key masked) is NaN in every
 *   element, as 0 / 0 (PyTorch's math path gives the same); a NaN score
 *   makes its row NaN; Lk = 0 gives zeros (empty sums). Precision: the
 *   scores, m_i, the sums and the products with v are computed in float32
 *   or wider, in any order and association (s may scale q before the dot
 *   product; a flash-style kernel rescales partial sums as its running
 *   maximum grows), the sums accumulating as the Accumulation rule below
 *   says; exp may be an approximation within a few float32 units in the
 *   last place. FLOAT16 and BFLOAT16 inputs are widened exactly and the
 *   output rounded once. So the result equals the core's composite within
 *   rounding; bp check compares it with the reference's (float64
 *   throughout) within the accumulating tolerance of Lk + D terms.
 * - Convolution (since 1.6, family CONV: CONV, CONV_TRANSPOSE,
 *   CONV_WEIGHT_GRAD; float dtypes, every input and the output of one
 *   dtype). Channels-first views as PyTorch and ONNX lay them out, with r =
 *   1, 2 or 3 spatial axes: an activation x is [N, C_in, S_1..S_r], a
 *   gradient or result y [N, C_out, O_1..O_r], a weight w [C_out, C_in / G,
 *   K_1..K_r] (PyTorch's Conv weight; ConvTranspose's weight has this same
 *   layout, its in_channels first). attrs.params is a bp_window_params
 *   (spatial_rank r, groups G, stride s, dilation d, pad_begin pb, pad_end
 *   pe; kernel K equal to the weight's spatial extents; flags ignored).
 *   G divides C_in and C_out; group g = 0..G-1 joins input channels
 *   [g C_in/G, (g+1) C_in/G) with output channels [g C_out/G, (g+1)
 *   C_out/G) (G = C_in is depthwise). Input channel c of group g is
 *   c' = c - g C_in/G in the weight. Along every spatial axis i, y
 *   position o reads x position p = o s_i - pb_i + k d_i for k = 0..K_i-1;
 *   a p outside 0..S_i-1 reads zero (padding). The extents relate as
 *   O_i >= 1, S_i >= 1 and 0 <= S_i + pb_i + pe_i - d_i (K_i - 1) - 1 -
 *   (O_i - 1) s_i < max(s_i, d_i): the core's CONV output is O_i =
 *   floor((S_i + pb_i + pe_i - d_i (K_i - 1) - 1) / s_i) + 1 (PyTorch's and
 *   ONNX's), and the remainder is what ConvTranspose calls output padding
 *   (PyTorch lets it reach max(s_i, d_i) - 1). N may be 0.
 *     CONV: inputs x, w and an optional bias [C_out] (input 2, absent
 *       when there is none); output y:
 *       y[n, co, o] = bias[co] + sum over c' < C_in/G and every k of
 *       x[n, g C_in/G + c', o s - pb + k d] * w[co, c', k], g = co / (C_out/G).
 *     CONV_TRANSPOSE: the gradient of CONV with respect to x, and
 *       ConvTranspose: inputs dy (shaped as y), w and an optional bias
 *       [C_in] (absent when there is none); output dx (shaped as x, its
 *       extents S_i passed by the core: they carry the output padding):
 *       dx[n, c, p] = bias[c] + sum over every (co of c's group, o, k) with
 *       o s - pb + k d = p of dy[n, co, o] * w[co, c', k].
 *     CONV_WEIGHT_GRAD: the gradient of CONV with respect to w: inputs x
 *       and dy, input 2 absent; output dw shaped as w (its spatial extents
 *       are the window's kernel): dw[co, c', k] = sum over n and every o of
 *       dy[n, co, o] * x[n, g C_in/G + c', o s - pb + k d] (padding reads 0).
 *   Every output element is written, also those no term reaches (the bias,
 *   or 0). The products are summed as the Accumulation rule below says
 *   (float16 and bfloat16 multiply and add in float32 or wider, the bias
 *   included, and round once), in any order; a plugin may keep internal
 *   layouts of its own (blocked formats) as long as the views above are
 *   what it reads and writes. The window's fields outside their ranges
 *   (spatial_rank not 1..3, groups, kernel, stride or dilation below 1,
 *   negative padding) are BP_ERR_INVALID_ARGUMENT, as are attrs.params
 *   missing or shorter than 1.6's bp_window_params and a bias given to
 *   CONV_WEIGHT_GRAD; views whose rank is not spatial_rank + 2, channel
 *   counts G does not divide, a bias or kernel of other extents and
 *   extents that break the relation above are BP_ERR_SHAPE.
 * - Pooling (since 1.6), family POOL: MAX_POOL (numeric dtypes) and AVG_POOL
 *   (float dtypes) over channels-first views. attrs.params is a
 *   bp_window_params w with spatial_rank r (1..3), groups 1, kernel,
 *   stride and dilation >= 1 and pads >= 0 on axes 0..r-1 (else
 *   BP_ERR_INVALID_ARGUMENT). Input 0 is x, [N, C, S0..Sr-1]; output 0 is
 *   y, [N, C, O0..Or-1] of x's dtype; output 1 is MAX_POOL's indices, int64
 *   of y's shape, or absent when the caller needs no gradient (it writes
 *   nothing then); AVG_POOL's output 1 is always absent. Along spatial axis
 *   i, output position o reads the taps p = o * stride - pad_begin + k *
 *   dilation, k = 0..kernel-1; a tap outside [0, S) is padding. An output
 *   element's window is the product of its axes' taps, walked in C order
 *   (the last axis fastest). Output extents: with q = S + pad_begin +
 *   pad_end - dilation * (kernel - 1) - 1, which must be >= 0, O is
 *   floor(q / stride) + 1 (floor mode) or ceil(q / stride) + 1 (ceil mode),
 *   the ceil-mode extent less one when (O - 1) * stride >= S + pad_begin
 *   (its last window would start in the end padding: PyTorch's rule). The
 *   core passes one of these two per axis (a plugin refuses any other
 *   extent with BP_ERR_SHAPE); a ceil-mode window may reach past pad_end.
 *   MAX_POOL: y is the largest x among the window's taps inside the input;
 *   padding never wins (it counts as -inf, below every value, so an
 *   all -inf window gives -inf at its first tap inside the input). Ties go
 *   to the first tap in the window's C-order walk; a NaN is larger than
 *   everything (NaN propagates: the first NaN of the walk is the result).
 *   indices holds the winner's flat position in its (n, c) input plane,
 *   p0 * S1 * S2 + p1 * S2 + p2 for r = 3 (PyTorch's convention; its CPU
 *   kernel reports the last NaN of a window where this says the first).
 *   Every window must reach the input: a window whose taps on some axis
 *   all fall in the padding has no maximum and is refused (BP_ERR_SHAPE;
 *   PyTorch, whose rule pad <= kernel / 2 the core applies, gives -inf and
 *   a position outside the plane there). Values are exact: every backend
 *   gives the same bits and indices, except that a zero maximum of a window
 *   holding both +0 and -0 may be either zero (as MAX's: which one is left
 *   open; the index is still the first tap holding a zero).
 *   AVG_POOL: y = s / n with s the sum of x over the window's taps inside
 *   the input and n their number, or, with BP_WINDOW_COUNT_INCLUDE_PAD in
 *   w.flags, the number of taps in [-pad_begin, S + pad_end) (padding
 *   within pad_begin and pad_end counts; the taps past pad_end that a
 *   ceil-mode window reaches never do), n being the product of the axes'
 *   counts. A window with n = 0 (only possible without the flag) gives 0,
 *   PyTorch's value. s accumulates as the Accumulation rule below says
 *   (float16 and bfloat16 in float32 or wider), s / n is divided in the
 *   accumulator's type and rounded once.
 *   Family POOL_GRAD (since 1.6): the gradients, with the same attrs.params
 *   as the forward. Input 0 is dy, [N, C, O...] (float dtypes), the output
 *   dx, [N, C, S...] of dy's dtype, whose extents S give O by the rule
 *   above; every element of dx is written. MAX_POOL_GRAD: input 1 is the
 *   int64 indices of MAX_POOL, of dy's shape; dx[n, c, s] is the sum of
 *   dy[n, c, o] over the o whose index is s (flat, as above), 0 where there
 *   is none. AVG_POOL_GRAD: input 1 is absent; dx[n, c, s] is the sum of
 *   dy[n, c, o] / n(o) over every window tap at s (n(o) as in AVG_POOL with
 *   w.flags), 0 where no window reaches. The terms accumulate as the
 *   Accumulation rule says, float16 and bfloat16 in float32 rounded once.
 *   The core passes only indices MAX_POOL wrote (taps of o's window inside
 *   the input); a plugin called with an index outside [0, S0 * .. * Sr-1)
 *   must still never read or write outside its views: host-memory backends
 *   return BP_ERR_INDEX before writing anything, a device backend may drop
 *   the term. An index inside the plane but outside o's window adds its
 *   term there or nowhere (which is unspecified).
 * - Accumulation (float SUM, MEAN, NORM, CUMSUM, MATMUL, LOGSUMEXP's sum,
 *   SCATTER_ADD_ND, VAR's and NORMALIZE's sums, SOFTMAX's and LOG_SOFTMAX's
 *   sum, AVG_POOL and the POOL_GRAD family; float PROD multiplies its terms the same way): terms are added in
 *   any order and grouping, in the output's dtype or wider, so results differ
 *   between backends by rounding (bp check allows a few units of rounding
 *   of the sum of the terms' magnitudes). When that sum exceeds the dtype's
 *   largest finite value, a partial sum may overflow in one order and not in
 *   another, and the result is unspecified: +-inf, NaN or finite.
 * - Elsewhere float arithmetic is IEEE 754 in the dtype, correctly rounded,
 *   with no fused multiply-add: ADD..DIV, SQRT, COPY, FILL, ARANGE and
 *   RANDOM_UNIFORM, SQUARE, FLOOR_DIVIDE and REMAINDER, and RSQRT, FLOOR,
 *   CEIL, ROUND, SIGN, ISNAN and ISINF give the same bits on every backend;
 *   EXP, LOG, TANH, SIGMOID, SIN, COS, ERF, EXPM1, LOG1P, POW, RANDOM_NORMAL,
 *   LOGSUMEXP, SOFTMAX and LOG_SOFTMAX use the backend's math library and
 *   may differ in the last bits; NORMALIZE's 1 / sqrt may be a division by a
 *   correctly rounded square root or a reciprocal square root of the
 *   backend's math library (one ulp of the statistics' dtype).
 * - 8- and 16-bit dtypes (since 1.4). INT8, UINT8 and INT16 follow the
 *   integer rules above in their own width (ADD, SUB, MUL, NEG, SQUARE,
 *   POW and MATMUL wrap around; SUM, PROD and CUMSUM write int64). FLOAT16
 *   and BFLOAT16 compute in float32: every operand is widened exactly
 *   (backplane/half.h), the operator runs as it does for FLOAT32, and the
 *   result is rounded once to the dtype, to nearest even. For ADD, SUB,
 *   MUL, DIV, SQRT and SQUARE that is the correctly rounded result in the
 *   dtype, so these give the same bits on every backend, as do the
 *   comparisons, MAXIMUM, MINIMUM, ABS, NEG, RELU, WHERE, FLOOR_DIVIDE and
 *   REMAINDER (computed on the float32 values, then rounded). The
 *   Accumulation rule's sums (and PROD's products) run in float32 or wider
 *   and are rounded once at the end, except that SCATTER_ADD_ND may round
 *   after each term. MATMUL multiplies and adds in float32 or wider.
 *   RANDOM_UNIFORM and RANDOM_NORMAL draw the float32 value of element i
 *   (as below) and round it to the dtype, so a uniform draw may round up to
 *   `high`.
 *   COPY to FLOAT16 or BFLOAT16 rounds the source value once, to nearest
 *   even (from float64 and int64 too: never through a float32 rounded on
 *   the way), a finite value past the largest finite one after rounding
 *   becoming infinity of its sign and NaN a quiet NaN; subnormals are kept
 *   and never flushed to zero. COPY from them widens exactly (a NaN comes
 *   out quiet, as from half.h), and to an
 *   integer dtype follows the float-to-integer rule above. Between integer
 *   dtypes COPY keeps the value modulo 2^bits (two's complement, as a C
 *   cast to a narrower type does on every compiler Backplane supports).
 *   A scalar operand, a FILL value and an ARANGE element convert to these
 *   dtypes as by COPY from float64. backplane/half.h holds the reference
 *   conversions; bp check compares every backend's bits with them.
 * - Creation (FILL, ARANGE, RANDOM_*), no inputs; i below is an element's
 *   C-order position in the output:
 *     FILL: attrs.scalar converted as by COPY from float64.
 *     ARANGE: scalar + i * scalar2, computed in float64, converted as by COPY.
 *     RANDOM_UNIFORM (float dtypes): low + (high - low) * u(i), with
 *       r(j) = splitmix64(seed + 0x9E3779B97F4A7C15 * (j + 1)) and
 *       u(j) = (r(j) >> 11) * 2^-53 (float64) or (r(j) >> 40) * 2^-24
 *       (float32, computed in float with low and high rounded to float);
 *       so every backend draws one stream. All arithmetic is on uint64_t,
 *       wrapping modulo 2^64; splitmix64(z) is the finaliser
 *         z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *         z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
 *         return z ^ (z >> 31);
 *     RANDOM_NORMAL (float dtypes): mean + std * sqrt(-2 ln(1 - u(2i))) *
 *       cos(2 pi u(2i+1)), Box-Muller in the output's dtype.
 *
 * Asynchrony: execute, write and copy may return before the work is done,
 * but work on one device runs in the order it was issued. read waits for all
 * earlier work that touches its source. free may be called while work using
 * the buffer is pending; the plugin delays the release.
 */

/*
 * Errors: every entry returns a bp_status and, on failure, leaves a message
 * for last_error(). An operator number or dtype the plugin does not know (a
 * newer core's) is not an error for supports(): the answer is 0. execute()
 * with an operator/dtype pair the plugin does not implement returns
 * BP_ERR_UNSUPPORTED (also for a pair the ABI does not define); shapes that
 * disagree with the operator's semantics, a negative extent or a rank out of
 * range BP_ERR_SHAPE; inputs whose dtypes disagree (or a WHERE condition
 * that is not bool) BP_ERR_DTYPE; other malformed arguments (wrong input
 * count, NULL pointers, an unknown dtype number, an absent view where the
 * family requires one, attrs.params missing or too small for a family that
 * takes them (since 1.6), VAR's correction not a non-negative integer and
 * NORMALIZE's eps not finite and >= 0 (since 1.6), negative strides, a view
 * outside its buffer) BP_ERR_INVALID_ARGUMENT; a GATHER or SCATTER index
 * that is not int64 BP_ERR_DTYPE; an index value out of range BP_ERR_INDEX
 * (see GATHER_ND); an unknown device index
 * BP_ERR_UNKNOWN_DEVICE. The plugin SDK's bp_sdk_check_execute() applies
 * exactly these rules.
 */

/* Entry point exported by every plugin. The host passes the ABI version it
 * was built with; return NULL to refuse it (the core reports the refusal). */
typedef const struct bp_plugin_api *(*bp_plugin_get_api_fn)(uint32_t host_abi_major,
                                                           uint32_t host_abi_minor);

/* The function table. All strings are NUL-terminated, owned by the plugin
 * and valid for as long as the plugin is loaded unless stated otherwise.
 * Device indices are the plugin's own, 0..count-1. */
typedef struct bp_plugin_api {
  uint32_t struct_size;  /* sizeof the table the plugin built (since 1.0) */
  uint32_t abi_major;    /* must equal BP_PLUGIN_ABI_MAJOR of the core (since 1.0) */
  uint32_t abi_minor;    /* minor version the plugin was built against (since 1.0) */
  uint32_t flags;        /* BP_PLUGIN_* bits (since 1.0) */
  const char *name;      /* backend name, unique among loaded plugins: "cpu-openblas" (since 1.0) */
  const char *version;   /* plugin's own version, e.g. "0.1.0" (since 1.0) */
  const char *device_prefix; /* device names are <prefix>:<index>, e.g. "cpu" (since 1.0) */

  /* Message of the last failed call on the calling thread; valid until the
   * next call into this plugin on this thread. Required (since 1.0). */
  const char *(*last_error)(void);

  /* Starts the backend once, before any other call below; options are the
   * config table [backend.<name>] as key/value strings, valid during the
   * call only. An unknown key or a value the plugin cannot use is
   * BP_ERR_CONFIG, with a message naming the key and the keys it knows. The
   * core calls it once per process, but a second call (bp check opens the
   * reference plugin twice when it checks the reference against itself)
   * must not fail for that reason alone. Required (since 1.0). */
  bp_status (*init)(const char *const *option_keys, const char *const *option_values,
                    int32_t option_count);

  /* Number of devices. When it is 0, *why_none may point to a plugin-owned
   * reason ("cudaErrorInsufficientDriver: ..."), else it is set to NULL.
   * Required (since 1.0). */
  bp_status (*device_count)(int32_t *count, const char **why_none);

  /* Fills *info (see bp_plugin_device_info). Required (since 1.0). */
  bp_status (*device_info)(int32_t device, bp_plugin_device_info *info);

  /* Writes up to `capacity` free-form properties into props and the number
   * it wrote (at most capacity, never the total it has) into *count; the
   * core passes the caller's capacity through and never trusts a larger
   * count. props may be NULL when capacity is 0. (optional) (since 1.0) */
  bp_status (*device_properties)(int32_t device, bp_property *props, int32_t capacity,
                                 int32_t *count);

  /* Allocates `bytes` (0 allowed) on `device`. Out of memory is
   * BP_ERR_OUT_OF_MEMORY with a message naming device and bytes. Required (since 1.0). */
  bp_status (*alloc)(int32_t device, uint64_t bytes, bp_buffer *out);

  /* Releases a buffer from alloc (after pending work on it). Required (since 1.0). */
  bp_status (*free)(bp_buffer buffer);

  /* Copies `bytes` from host memory into the buffer at `offset`; src may be
   * reused as soon as this returns. Required (since 1.0). */
  bp_status (*write)(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes);

  /* Copies `bytes` from the buffer at `offset` to host memory, after all
   * earlier work on that buffer's device. Required (since 1.0). */
  bp_status (*read)(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes);

  /* Copies between two buffers of this plugin, possibly on different devices,
   * ordered after earlier work on both. (optional: without it the core stages
   * through host memory) (since 1.0) */
  bp_status (*copy)(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                    uint64_t bytes);

  /* Sets *answer to 1 when `device` implements `op` for input dtype `dtype`
   * and output dtype `out_dtype`, else 0. `dtype` is that of input 0, except
   * for WHERE (the dtype of the two value inputs 1 and 2; the condition is
   * always bool), creation ops (the output dtype, equal to out_dtype) and
   * SCATTER ops (the dtype of the values, input 1; the index is int64).
   * The answer must not change while the plugin is loaded: the core caches
   * it per (device, op, dtype, out_dtype) for the life of the process and
   * never asks again. Unknown op or dtype numbers are answered 0, not an
   * error. Required (since 1.0). */
  bp_status (*supports)(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype,
                        int32_t *answer);

  /* Runs (or enqueues) `op` on `device` with the semantics written above.
   * inputs: n_inputs views, n_inputs being the family's arity
   * (vocabulary.h: 0 for creation ops, 1 for unary ops, reductions, COPY,
   * scans and scalar-mode binary ops, 2 for binary ops, MATMUL, GATHER and
   * SCATTER, 3 for WHERE). output: the family's outputs, one view for every
   * family of 1.0 to 1.5; for a family of BP_OP_FAMILY_OUTPUTS_LIST
   * (since 1.6) it points at the first of that many views, in the order
   * the family's semantics give. An input or output the family's semantics
   * call optional may be absent (since 1.6): a view of dtype
   * BP_DTYPE_INVALID, rank 0 and a NULL buffer, which the plugin neither
   * reads nor writes. supports() is asked with input 0's dtype and output
   * 0's (the exceptions are written at supports). Required (since 1.0). */
  bp_status (*execute)(int32_t device, int32_t op, const bp_op_attrs *attrs,
                       const bp_plugin_tensor *inputs, int32_t n_inputs,
                       const bp_plugin_tensor *output);

  /* Blocks until all work issued to `device` is complete. Required (since 1.0). */
  bp_status (*synchronize)(int32_t device);

  /* For backends whose buffers are ordinary host memory: the address of the
   * buffer's first byte, valid until free. Lets the core read without a copy.
   * (optional) (since 1.0) */
  bp_status (*host_address)(bp_buffer buffer, void **address);

  /* Runs a collective (bp_collective_args says what and with which
   * semantics). Without it, or when it answers BP_ERR_UNSUPPORTED, the core
   * stages the collective through host memory. (optional) (since 1.2) */
  bp_status (*collective)(const bp_collective_args *args);

  /* Collectives across processes (the CUDA backend: NCCL). group_id, on one
   * process, writes an opaque bootstrap id of at most `capacity` bytes and
   * its size; the core sends it to every process of the group (over MPI),
   * and each calls group_join with it, its rank among nranks and its local
   * device, which returns a group number for bp_collective_args.group. All
   * processes must call group_join; it may block until they have.
   * group_leave frees the group. The three are optional together; without
   * them the core stages cross-process collectives through host memory and
   * its own transport. (optional) (since 1.2) */
  bp_status (*group_id)(int32_t device, void *id, uint32_t capacity, uint32_t *size);
  bp_status (*group_join)(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks,
                          uint64_t *group);
  bp_status (*group_leave)(uint64_t group);

  /* Runs (or enqueues) a fused elementwise program on `device` (see
   * bp_fused_program for its meaning and what the core promises). Errors as
   * for execute, naming the instruction at fault; BP_ERR_UNSUPPORTED before
   * anything is written makes the core run the instructions one by one.
   * Without it the core never fuses work on this plugin's devices.
   * (optional) (since 1.3) */
  bp_status (*execute_fused)(int32_t device, const bp_fused_program *program);

  /* Makes a buffer of `bytes` on `device` out of host memory someone else
   * owns, without copying (zero-copy import, e.g. of a PyTorch tensor
   * through DLPack): `data` is valid for reading and writing for `bytes`
   * bytes (NULL only when bytes is 0) and aligned to the size of the
   * elements the core views it as (a plugin that needs more alignment
   * answers BP_ERR_UNSUPPORTED for what it cannot use). Reads,
   * writes, copies and operators on the buffer use that memory, and
   * host_address gives `data`. free() on such a buffer frees none of that
   * memory: once free was called and no pending work uses the buffer any
   * more, the plugin calls release(context) exactly once (from any thread;
   * release may be NULL: then nothing is called) and never touches `data`
   * again. Only for devices whose buffers are host memory. Any status but
   * BP_OK (BP_ERR_UNSUPPORTED for memory the device cannot use) means no
   * buffer was made and release will never be called: the memory stays the
   * caller's. (optional) (since 1.4) */
  bp_status (*wrap_host)(int32_t device, void *data, uint64_t bytes, void (*release)(void *context),
                         void *context, bp_buffer *out);
} bp_plugin_api;

/* struct_size of a version 1.0 table: through its last 1.0 field. */
#define BP_PLUGIN_API_SIZE_1_0 (offsetof(bp_plugin_api, host_address) + sizeof(void *))
/* struct_size of a version 1.2 table (1.1 added no entry). */
#define BP_PLUGIN_API_SIZE_1_2 (offsetof(bp_plugin_api, group_leave) + sizeof(void *))
/* struct_size of a version 1.3 table. */
#define BP_PLUGIN_API_SIZE_1_3 (offsetof(bp_plugin_api, execute_fused) + sizeof(void *))
/* struct_size of a version 1.4 table. */
#define BP_PLUGIN_API_SIZE_1_4 (offsetof(bp_plugin_api, wrap_host) + sizeof(void *))
typedef char bp_plugin_api_size_check[sizeof(bp_plugin_api) == BP_PLUGIN_API_SIZE_1_4 ? 1 : -1];

/* The entry point, declared here so that a C++ plugin defining it gets C
 * linkage (an unmangled symbol) without writing extern "C" itself. Define it
 * as BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(...) { ... }
 * (declared since 1.1; the symbol is the 1.0 one). A definition must match
 * this declaration exactly (C++ refuses one that adds noexcept, say); a
 * plugin whose own declaration differs defines
 * BP_PLUGIN_NO_ENTRY_DECLARATION before including this header. */
#ifndef BP_PLUGIN_NO_ENTRY_DECLARATION
BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                        uint32_t host_abi_minor);
#endif

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_PLUGIN_H */
