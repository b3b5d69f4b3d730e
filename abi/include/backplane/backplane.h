/*
 * backplane/backplane.h — the user-facing C API of Backplane (prefix bp_).
 *
 * Tensors live on devices ("cpu:0", "opencl:1", "cuda:0"). Every operator
 * runs on the device that holds its inputs; inputs on different devices are
 * an error (BP_ERR_DEVICE_MISMATCH), never a silent copy. Moving data is
 * explicit: bp_copy_to() always copies, bp_to() returns the same tensor when
 * it already lives on the target device.
 *
 * Conventions:
 * - Every function returns bp_status (or a value documented otherwise) and
 *   never throws, aborts or crashes on bad input. On failure, bp_last_error()
 *   and the bp_last_error_* accessors describe it for the calling thread.
 * - Results are written through out-pointers, only on success.
 * - A bp_tensor is a reference-counted handle. Each handle a function gives
 *   you is yours: release it with bp_tensor_release(). Zero, released and
 *   never-issued handles are reported as BP_ERR_INVALID_HANDLE.
 * - Every function may be called from any thread. A handle released on one
 *   thread while another thread passes it to a call gives that call either
 *   its normal result (the tensor is freed when the call is done with it) or
 *   BP_ERR_INVALID_HANDLE; never a crash. Two calls that write into one
 *   tensor at the same time leave its contents unspecified.
 * - Operators return as soon as the work is queued on the device; reading a
 *   tensor (bp_to_host) waits for the work that produces it. Large
 *   elementwise operators may even be recorded and run later, several as
 *   one pass over memory (lazy fusion, since 1.3: bp_fusion_enable).
 * - Functions ending in _out write into an existing tensor (device, shape and
 *   dtype are checked) and allocate nothing: use them in hot loops.
 * - The runtime starts itself on first use (bp_init(NULL)); backends are
 *   started lazily when one of their devices is first needed.
 * - Enum values (bp_op, bp_dtype, bp_status) are passed as int32_t, so an
 *   out-of-range number is an error, never undefined behaviour: a number
 *   that is no dtype is BP_ERR_DTYPE (as the 1.0 core did, though 1.0's
 *   types.h called any bad enum value BP_ERR_INVALID_ARGUMENT), any other
 *   BP_ERR_INVALID_ARGUMENT.
 * - Structs the caller fills in start with struct_size: set it to sizeof the
 *   struct as your header declares it. The library accepts any size from the
 *   struct's *_SIZE_1_0 up and writes the fields of the newest version whose
 *   size fits (nothing past struct_size), so a program built against an
 *   older minor version keeps working (docs/abi-rules.md).
 * - "(since 1.x)" marks what each minor version added (everything unmarked
 *   is 1.0); bp_api_version() tells which version the loaded library
 *   implements. The headers need C99 or C++11 or later.
 */
#ifndef BACKPLANE_H
#define BACKPLANE_H

#include "backplane/half.h"
#include "backplane/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define BP_API
#else
#define BP_API __attribute__((visibility("default")))
#endif

/* Version of this API; the library's own is returned by bp_api_version(). */
#define BP_API_VERSION_MAJOR 1
#define BP_API_VERSION_MINOR 6

/* A tensor handle; 0 is never a valid tensor. */
typedef uint64_t bp_tensor;
#define BP_NO_TENSOR ((bp_tensor)0)

/* A device id, valid for the life of the process (not across processes: use
 * names for that). Ids are dense, starting at 0, in the order devices were
 * discovered. */
typedef int32_t bp_device;

/* Reduction axis meaning "every axis". Other axes may be negative (-1 = last). */
#define BP_AXIS_ALL INT32_MAX

/* ---- runtime ------------------------------------------------------------ */

/* (major << 16) | minor of the library actually loaded. */
BP_API uint32_t bp_api_version(void);

/* Starts the runtime with the TOML file at config_path; NULL means the file
 * named by BACKPLANE_CONFIG, or else built-in defaults. Optional: the first
 * call of any other function does bp_init(NULL). BP_ERR_STATE when already
 * started; BP_ERR_CONFIG with file, line, column and key when the file (or a
 * BACKPLANE_* variable, named) is bad: also for a file that is not regular or
 * exceeds the bounds of config/backplane.toml, a plugin directory that does
 * not exist, a default device that does not, and backend options the
 * backend's init refuses. After a failed bp_init the runtime is not
 * running: bp_init may be called again. A backend is started once per
 * process (plugin.h): one that a failed bp_init started keeps the options it
 * started with, and a later configuration giving it others fails with
 * BP_ERR_CONFIG. */
BP_API bp_status bp_init(const char *config_path);

/* Like bp_init, from TOML text; source_name appears in error messages. */
BP_API bp_status bp_init_from_string(const char *toml_text, const char *source_name);

/* Number of effective configuration entries (for `bp config`). */
BP_API int32_t bp_config_count(void);

/* Entry i: dotted key ("devices.default"), value as TOML text, and where it
 * came from ("default", "file.toml:3:1", "env BACKPLANE_TRACE"). Strings live
 * as long as the process. Like every out-pointer, none of the three may be
 * NULL (BP_ERR_INVALID_ARGUMENT). */
BP_API bp_status bp_config_entry(int32_t i, const char **key, const char **value,
                                 const char **origin);

/* ---- errors ------------------------------------------------------------- */

/* Message of the calling thread's last failure ("" if none). Valid until the
 * next failing call on this thread. Text the caller passed (a name, a value,
 * a key) appears as at most 64 bytes of it, a path at most 4096, followed by
 * "... (N bytes)" when cut. */
BP_API const char *bp_last_error(void);

/* Status of that failure (BP_OK if none). */
BP_API bp_status bp_last_error_status(void);

/* Operator name of that failure ("add", "matmul"), or "" if not an operator. */
BP_API const char *bp_last_error_op(void);

/* Index of the offending input of that failure, or -1 (for a device
 * mismatch: the first input not on input 0's device; -1 when only an _out
 * call's output is elsewhere). */
BP_API int32_t bp_last_error_input(void);

/* Number of devices recorded with that failure, and each of them. For a
 * device mismatch: one per tensor input in order, then, for an _out call,
 * the output's device last (so the count is the number of inputs plus one). */
BP_API int32_t bp_last_error_device_count(void);
BP_API bp_device bp_last_error_device(int32_t i);

/* Constant name of a status ("BP_ERR_DEVICE_MISMATCH"), "?" when unknown. The
 * static inline bp_vocab_* lookups of types.h give the same names (and
 * families, sizes, kinds) without a call into the library. */
BP_API const char *bp_status_name(int32_t status);

/* Constant name of a dtype ("float32") or op ("add"); "?" when unknown. */
BP_API const char *bp_dtype_name(int32_t dtype);
BP_API const char *bp_op_name(int32_t op);

/* Bytes per element of a dtype, 0 when unknown. */
BP_API int32_t bp_dtype_size(int32_t dtype);

/* ---- plugins ------------------------------------------------------------ */

/* What happened to one plugin candidate file. Strings live as long as the
 * process. The caller sets struct_size (since 1.0). */
typedef struct bp_plugin_report {
  uint32_t struct_size;  /* sizeof(bp_plugin_report) as the caller knows it (since 1.0) */
  int32_t loaded;        /* 1 loaded, 0 rejected (since 1.0) */
  const char *path;      /* absolute path of the file (since 1.0) */
  const char *name;      /* backend name, "" if it never said (since 1.0) */
  const char *version;   /* plugin version, "" if unknown (since 1.0) */
  const char *reason;    /* why it was rejected, or a note ("0 devices: ..."); "" if none (since 1.0) */
  int32_t device_count;  /* devices found; -1 when the backend is not started yet (since 1.0) */
  uint32_t abi_major;    /* plugin ABI version of the plugin's table; 0 when it gave none (since 1.1) */
  uint32_t abi_minor;    /* minor version the plugin was built against (since 1.1) */
} bp_plugin_report;
/* struct_size of a 1.0 and of a 1.1 report: through each version's last field (since 1.1). */
#define BP_PLUGIN_REPORT_SIZE_1_0 (offsetof(bp_plugin_report, device_count) + sizeof(int32_t))
#define BP_PLUGIN_REPORT_SIZE_1_1 (offsetof(bp_plugin_report, abi_minor) + sizeof(uint32_t))
typedef char bp_plugin_report_size_check
    [sizeof(bp_plugin_report) >= BP_PLUGIN_REPORT_SIZE_1_1 &&
             BP_PLUGIN_REPORT_SIZE_1_0 <= BP_PLUGIN_REPORT_SIZE_1_1 ? 1 : -1];

/* Number of plugin candidates seen by discovery, loaded or rejected. */
BP_API int32_t bp_plugin_report_count(void);

/* Candidate i (0..count-1). Starts the backend to count its devices when
 * count_devices is non-zero. report->struct_size must be at least
 * BP_PLUGIN_REPORT_SIZE_1_0; fields past it are not written. */
BP_API bp_status bp_plugin_report_get(int32_t i, int32_t count_devices, bp_plugin_report *report);

/* ---- devices ------------------------------------------------------------ */

/* A device as the user sees it. The caller sets struct_size; strings live as
 * long as the process (since 1.0). */
typedef struct bp_device_info {
  uint32_t struct_size;    /* sizeof(bp_device_info) as the caller knows it (since 1.0) */
  int32_t kind;            /* bp_device_kind (since 1.0) */
  int32_t is_accelerator;  /* 1 when counted by bp_gpu()/bp_num_gpus() (since 1.0) */
  int32_t index;           /* index within its backend (since 1.0) */
  const char *name;        /* "opencl:1" (since 1.0) */
  const char *backend;     /* "opencl" plugin name (since 1.0) */
  const char *model;       /* device model from the backend (since 1.0) */
  const char *plugin_path; /* file the backend was loaded from (since 1.0) */
  uint64_t memory_total;   /* bytes, 0 if unknown (since 1.0) */
  uint64_t memory_free;    /* bytes the backend reports as available now, 0 if unknown (since 1.0) */
  uint64_t memory_in_use;  /* bytes in live buffers of the backend on this device (since 1.0) */
} bp_device_info;
/* struct_size of a 1.0 bp_device_info (since 1.1). */
#define BP_DEVICE_INFO_SIZE_1_0 (offsetof(bp_device_info, memory_in_use) + sizeof(uint64_t))
typedef char bp_device_info_size_check[sizeof(bp_device_info) == BP_DEVICE_INFO_SIZE_1_0 ? 1 : -1];

/* Starts every backend and lists every device: up to capacity ids into out
 * (out may be NULL when capacity is 0), the total into *count. */
BP_API bp_status bp_devices(bp_device *out, int32_t capacity, int32_t *count);

/* Resolves a name: "cpu" (= "cpu:0"), "<prefix>:<i>", "gpu" / "gpu:<i>" (the
 * i-th accelerator in fallback order), "default" (the configured default,
 * [devices] default), "auto" (the first accelerator in fallback order, else
 * cpu:0, else the first device of any backend; since 1.1: before, "auto"
 * was the configured default too). Unknown names give BP_ERR_UNKNOWN_DEVICE
 * listing the devices. */
BP_API bp_status bp_device_get(const char *name, bp_device *out);

/* Canonical name ("cpu:0"), or NULL (with an error set) for a bad id. */
BP_API const char *bp_device_name(bp_device device);

/* Fills *info for a device; info->struct_size must be at least
 * BP_DEVICE_INFO_SIZE_1_0, fields past it are not written. */
BP_API bp_status bp_device_info_get(bp_device device, bp_device_info *info);

/* Backend-specific properties of a device (model, cores, library versions):
 * up to `capacity` of them into props (NULL allowed when capacity is 0), how
 * many into *count. The backend is asked for at most 1024 and fills a
 * scratch array of the core's, copied into props with each key and value
 * NUL-terminated. */
BP_API bp_status bp_device_properties(bp_device device, bp_property *props, int32_t capacity,
                                      int32_t *count);

/* The seed chapter's functions. bp_cpu: cpu:0. bp_gpu: i-th accelerator or
 * BP_ERR_UNKNOWN_DEVICE. bp_num_gpus: accelerator count (never fails).
 * bp_try_gpu: gpu(i) if it exists, else cpu:0. bp_try_all_gpus: every
 * accelerator (possibly none). */
BP_API bp_status bp_cpu(bp_device *out);
BP_API bp_status bp_gpu(int32_t i, bp_device *out);
BP_API int32_t bp_num_gpus(void);
BP_API bp_status bp_try_gpu(int32_t i, bp_device *out);
BP_API bp_status bp_try_all_gpus(bp_device *out, int32_t capacity, int32_t *count);

/* Device new tensors go to when none is named ([devices] default: "cpu"
 * unless configured, since 1.1; "auto" before). */
BP_API bp_status bp_default_device(bp_device *out);

/* Blocks until every operation queued on the device has finished. */
BP_API bp_status bp_synchronize(bp_device device);

/* Whether the device's own backend runs operator `op` (a BP_OP_*) with
 * input dtype `dtype` writing `out_dtype`: *supported gets 1 or 0 (since
 * 1.6). out_dtype BP_DTYPE_INVALID (0) means the dtype the operator's
 * output rule gives (vocabulary.h); COPY needs it given. The answer is the
 * plugin's `supports`, the one every operator's call consults (plugin.h:
 * fixed while the plugin is loaded), asked once and cached; a pair the
 * ABI does not define (bp_vocab_allows) or an operator newer than the
 * plugin is 0. The host fallback ([dispatch] host_fallback) is not
 * counted: this says what runs on the device itself, so a model compiler
 * (backplane.onnx) can refuse before running anything. A bad device id is
 * BP_ERR_INVALID_HANDLE; an op or dtype that is no number of the
 * vocabulary gives 0, not an error. */
BP_API bp_status bp_device_supports(bp_device device, int32_t op, int32_t dtype, int32_t out_dtype,
                                    int32_t *supported);

/* ---- tensors: creation and data ----------------------------------------- */

/* Uninitialised tensor of the given shape (rank 0..BP_MAX_RANK, extents >= 0,
 * at most 2^56 elements: a larger shape is BP_ERR_SHAPE here as in
 * bp_reshape; BP_ERR_OUT_OF_MEMORY is an allocation the device refused). */
BP_API bp_status bp_empty(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                          bp_tensor *out);
BP_API bp_status bp_zeros(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                          bp_tensor *out);
BP_API bp_status bp_ones(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                         bp_tensor *out);
BP_API bp_status bp_full(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                         double value, bp_tensor *out);

/* 1-D tensor start, start+step, ... while < stop (> stop for a negative step). */
BP_API bp_status bp_arange(bp_device device, int32_t dtype, double start, double stop,
                           double step, bp_tensor *out);

/* Random float tensors; the same seed gives the same values on every backend
 * (a counter-based generator, see plugin.h). */
BP_API bp_status bp_random_uniform(bp_device device, int32_t dtype, int32_t rank,
                                   const int64_t *shape, double low, double high, uint64_t seed,
                                   bp_tensor *out);
BP_API bp_status bp_random_normal(bp_device device, int32_t dtype, int32_t rank,
                                  const int64_t *shape, double mean, double stddev,
                                  uint64_t seed, bp_tensor *out);

/* New tensor holding a copy of C-order host data of numel * dtype size bytes. */
BP_API bp_status bp_from_host(bp_device device, int32_t dtype, int32_t rank,
                              const int64_t *shape, const void *data, bp_tensor *out);

/* Copies C-order host data into an existing tensor (or view), after the work
 * already queued on it; bytes must equal numel * dtype size. Allocates
 * nothing when the tensor is contiguous: the upload for hot loops. */
BP_API bp_status bp_from_host_into(bp_tensor tensor, const void *data, uint64_t bytes);

/* Copies the tensor's elements in C order to host memory, after pending work.
 * bytes must equal numel * dtype size. */
BP_API bp_status bp_to_host(bp_tensor tensor, void *data, uint64_t bytes);

/* Address of element [0,...,0] for tensors on devices whose memory is host
 * memory (cpu, reference), else BP_ERR_UNSUPPORTED. Valid while the tensor
 * lives; read or write through it only after bp_tensor_wait (since 1.3 a
 * write made without waiting may be seen by operators recorded before it:
 * lazy fusion, below). For zero-copy exchange (DLPack). */
BP_API bp_status bp_tensor_host_address(bp_tensor tensor, void **address);

/* A tensor over host memory the caller owns, without a copy (since 1.4):
 * PyTorch's from_blob, DLPack's import. Element (i0, ..., ik) is the dtype
 * value at data + (i0 * strides[0] + ... + ik * strides[k]) * dtype size;
 * strides count elements, are >= 0, and NULL means dense C order. data must
 * be aligned to the dtype's size and hold every element the view reaches
 * (it may be NULL only for an empty tensor). The device's backend must take
 * host memory (the entry wrap_host: cpu and reference do); elsewhere the
 * answer is BP_ERR_UNSUPPORTED and nothing happens (copy with bp_from_host).
 * The tensor and every view of it read and write that memory; its owner
 * sees Backplane's writes after bp_tensor_wait, and Backplane sees the
 * owner's writes made before the next call that uses the tensor (an owner
 * about to write while results computed from the tensor may still be
 * pending, lazy fusion below, waits for them first: bp_synchronize). When the
 * last view is released and no work uses the memory, Backplane calls
 * release(context) exactly once, from any thread (release may be NULL).
 * On any error release is not called and the memory stays the caller's. */
BP_API bp_status bp_wrap_host(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                              const int64_t *strides, void *data, void (*release)(void *context),
                              void *context, bp_tensor *out);

/* ---- tensors: handles and metadata ------------------------------------- */

/* Adds a reference / drops one; the storage is freed with its last view. */
BP_API bp_status bp_tensor_retain(bp_tensor tensor);
BP_API bp_status bp_tensor_release(bp_tensor tensor);

BP_API bp_status bp_tensor_device(bp_tensor tensor, bp_device *device);
BP_API bp_status bp_tensor_dtype(bp_tensor tensor, int32_t *dtype);
BP_API bp_status bp_tensor_rank(bp_tensor tensor, int32_t *rank);
/* Writes rank extents (shape) or element strides (strides) into the array. */
BP_API bp_status bp_tensor_shape(bp_tensor tensor, int64_t *shape);
BP_API bp_status bp_tensor_strides(bp_tensor tensor, int64_t *strides);
BP_API bp_status bp_tensor_numel(bp_tensor tensor, int64_t *numel);
/* 1 when the elements are dense in C order. */
BP_API bp_status bp_tensor_is_contiguous(bp_tensor tensor, int32_t *contiguous);

/* Blocks until the work producing this tensor has finished. */
BP_API bp_status bp_tensor_wait(bp_tensor tensor);

/* Live tensor handles in this process (for leak checks in bindings). */
BP_API int64_t bp_live_tensor_count(void);

/* ---- views (share storage with their base) ----------------------------- */

/* New shape with the same number of elements; one extent may be -1. A view
 * when the strides allow it, else a contiguous copy on the same device. */
BP_API bp_status bp_reshape(bp_tensor tensor, int32_t rank, const int64_t *shape, bp_tensor *out);
/* Axes reordered: out axis i is input axis axes[i]. */
BP_API bp_status bp_permute(bp_tensor tensor, const int32_t *axes, bp_tensor *out);
/* All axes reversed (NumPy's .T). */
BP_API bp_status bp_transpose(bp_tensor tensor, bp_tensor *out);
/* Elements start, start+step, ... < stop along axis; negative start/stop
 * count from the end and are clamped like Python slices; step >= 1. */
BP_API bp_status bp_slice(bp_tensor tensor, int32_t axis, int64_t start, int64_t stop,
                          int64_t step, bp_tensor *out);
/* The sub-tensor at index along axis, with that axis removed (t[i]). */
BP_API bp_status bp_select(bp_tensor tensor, int32_t axis, int64_t index, bp_tensor *out);
/* A view with a new axis of extent 1 at position axis (0..rank; negative
 * counts from the end, -1 appends one): NumPy's expand_dims, t[None]
 * (since 1.1). */
BP_API bp_status bp_expand_dims(bp_tensor tensor, int32_t axis, bp_tensor *out);
/* The tensor itself (a new reference) when contiguous, else a dense copy. */
BP_API bp_status bp_contiguous(bp_tensor tensor, bp_tensor *out);

/* ---- moving between devices -------------------------------------------- */

/* Always a new tensor on device (MXNet copyto); within one backend the
 * backend copies, across backends it is staged through host memory. */
BP_API bp_status bp_copy_to(bp_tensor tensor, bp_device device, bp_tensor *out);
/* The same handle (a new reference) when tensor already lives on device,
 * else bp_copy_to (MXNet as_in_ctx, PyTorch .to). */
BP_API bp_status bp_to(bp_tensor tensor, bp_device device, bp_tensor *out);

/* ---- operators ---------------------------------------------------------- *
 * Inputs must share one device; the result is allocated there. Binary and
 * ternary operators broadcast like NumPy.
 *
 * Dtypes (promotion). Two tensors of different dtypes meet in the dtype
 * bp_vocab_promote() gives (types.h, where the whole table is written):
 * bool < integers < floats by category, the wider within one, int8 with
 * uint8 in int16 and float16 with bfloat16 in float32; it depends on the
 * dtypes only, never on values. Then: DIV, MEAN, NORM, LOGSUMEXP and the
 * float functions (exp, log, sqrt, tanh, sigmoid, sin, cos) turn integer
 * and bool inputs into the default float dtype, float64 (as NumPy; the
 * creation functions of the bindings default to float32); other arithmetic
 * on bool computes in int32; comparisons give bool; SUM, PROD and CUMSUM of
 * integers and bool give int64, ARGMAX and ARGMIN int64. float16 and
 * bfloat16 compute in float32 and round once (plugin.h); their sums and
 * products accumulate in float32.
 *
 * A scalar operand has a kind (bp_scalar_kind), explicit in
 * bp_binary_scalar_kind(), and the kind, never the value, decides:
 *
 *     tensor \ scalar   BOOL        INT                FLOAT
 *     bool              bool        int64              float64
 *     an integer        the tensor  the tensor         float64
 *     a float           the tensor  the tensor         the tensor
 *
 * The table gives the dtype the operands meet in; the rules above then
 * apply as for two tensors: arithmetic on bool computes in int32 (a bool
 * tensor + true is int32, as bool + bool is), BITWISE_AND, _OR, _XOR of
 * bool with a BOOL scalar stay bool, comparisons give bool. So int64 * 2.0
 * and int64 * 0.5 both give float64, bfloat16 * 0.5 stays
 * bfloat16, and the scalar is converted to that dtype (rounded to nearest
 * even for a float dtype). An INT scalar that the tensor's integer dtype
 * cannot hold (int8 + 300) is BP_ERR_INVALID_ARGUMENT, as is an INT scalar
 * with a fraction, a BOOL scalar other than 0 or 1, or a non-finite INT.
 * The older bp_binary_scalar() (1.0) keeps its rule, which is value-based:
 * the scalar takes the tensor's dtype unless it is not an integer in the
 * range of the computing integer dtype (int32 for bool), in which case it
 * computes in float64 (true + 1e10 is 1e10 + 1).
 *
 * Conversions (bp_cast, bp_full, bp_arange, bp_assign, scalars): to
 * float16/bfloat16 they round once to nearest even, overflow to infinity
 * and keep subnormals (backplane/half.h holds the reference routines);
 * float to integer truncates toward zero, saturates out of range (+-inf
 * too) and maps NaN to 0; integer to narrower integer wraps (keeps the low
 * bits); on every backend. Bool elements are 0 or 1: any other nonzero
 * byte from the host is stored as 1. */

/* op: any operator of the BINARY or COMPARE family (vocabulary.h): ADD, SUB,
 * MUL, DIV, POW, MAXIMUM, MINIMUM, FLOOR_DIVIDE, REMAINDER, BITWISE_AND,
 * BITWISE_OR, BITWISE_XOR, EQ, NE, LT, LE, GT, GE. The bitwise operators take
 * integer and bool tensors only (a float is BP_ERR_DTYPE); bool with bool
 * stays bool (logical); a bool tensor with a scalar computes in int32
 * through bp_binary_scalar, and in the kind table's dtype through
 * bp_binary_scalar_kind (bool with a BOOL scalar, int64 with an INT one). */
BP_API bp_status bp_binary(int32_t op, bp_tensor a, bp_tensor b, bp_tensor *out);
BP_API bp_status bp_binary_out(int32_t op, bp_tensor a, bp_tensor b, bp_tensor out);
/* op(a, scalar), or op(scalar, a) when scalar_is_lhs is non-zero. */
BP_API bp_status bp_binary_scalar(int32_t op, bp_tensor a, double scalar, int32_t scalar_is_lhs,
                                  bp_tensor *out);
BP_API bp_status bp_binary_scalar_out(int32_t op, bp_tensor a, double scalar,
                                      int32_t scalar_is_lhs, bp_tensor out);

/* What a scalar operand is (since 1.4): see "Dtypes (promotion)" above. */
typedef enum bp_scalar_kind {
  BP_SCALAR_KIND_BOOL = 1,  /* a truth value, 0 or 1 (Python's bool) */
  BP_SCALAR_KIND_INT = 2,   /* an integer (Python's int) */
  BP_SCALAR_KIND_FLOAT = 3  /* a floating-point number (Python's float) */
} bp_scalar_kind;

/* op(a, scalar), or op(scalar, a) when scalar_is_lhs is non-zero, with the
 * scalar's kind given: the dtype follows the table above, by kind alone
 * (since 1.4). An INT scalar must be an integer the computing dtype holds;
 * it travels as a double, so an integer past 2^53 arrives as the double
 * nearest to it. */
BP_API bp_status bp_binary_scalar_kind(int32_t op, bp_tensor a, double scalar,
                                       int32_t scalar_kind, int32_t scalar_is_lhs,
                                       bp_tensor *out);
BP_API bp_status bp_binary_scalar_kind_out(int32_t op, bp_tensor a, double scalar,
                                           int32_t scalar_kind, int32_t scalar_is_lhs,
                                           bp_tensor out);
/* op: any operator of the UNARY family: NEG, ABS, EXP, LOG, SQRT, TANH,
 * SIGMOID, RELU, SQUARE, SIN, COS, BITWISE_NOT (integers: ~x; bool: logical
 * not; a float is BP_ERR_DTYPE), and since 1.5 ERF, EXPM1, LOG1P, RSQRT
 * (integers give float64 like EXP), FLOOR, CEIL, ROUND (half to even),
 * SIGN (integers keep their dtype), and since 1.6 ISNAN and ISINF (a bool
 * result; integers convert to float64 first, so theirs is all false). A
 * device whose plugin was built for an ABI before the operator's is never
 * asked about it:
 * BP_ERR_UNSUPPORTED naming the backend, or the host when
 * dispatch.host_fallback is on. */
BP_API bp_status bp_unary(int32_t op, bp_tensor a, bp_tensor *out);
BP_API bp_status bp_unary_out(int32_t op, bp_tensor a, bp_tensor out);
/* cond ? a : b elementwise; cond is bool. */
BP_API bp_status bp_where(bp_tensor cond, bp_tensor a, bp_tensor b, bp_tensor *out);
BP_API bp_status bp_where_out(bp_tensor cond, bp_tensor a, bp_tensor b, bp_tensor out);
/* op: any operator of the REDUCE family (SUM, MEAN, MAX, MIN, ARGMAX, NORM,
 * PROD, ARGMIN, LOGSUMEXP, VAR) over one axis or BP_AXIS_ALL. LOGSUMEXP (since
 * 1.1) is log(sum(exp(a))) without overflow: NaN if the set holds a NaN,
 * +inf if it holds +inf, -inf for a set of -inf only or an empty one;
 * integer and bool inputs give float64. VAR (since 1.6) is the population
 * variance (correction 0; bp_var and bp_var_axes take one), computed
 * stably (plugin.h), recorded for autograd. */
BP_API bp_status bp_reduce(int32_t op, bp_tensor a, int32_t axis, int32_t keepdims,
                           bp_tensor *out);
BP_API bp_status bp_reduce_out(int32_t op, bp_tensor a, int32_t axis, int32_t keepdims,
                               bp_tensor out);
/* Frobenius norm of every element, a rank-0 tensor. */
BP_API bp_status bp_norm(bp_tensor a, bp_tensor *out);
BP_API bp_status bp_norm_out(bp_tensor a, bp_tensor out);
/* a @ b for rank >= 2 with NumPy batch broadcasting; a rank-1 operand is a
 * row (a) or column (b) vector as in NumPy. transpose_* swap the last two
 * axes of that operand first. */
BP_API bp_status bp_matmul(bp_tensor a, bp_tensor b, int32_t transpose_a, int32_t transpose_b,
                           bp_tensor *out);
BP_API bp_status bp_matmul_out(bp_tensor a, bp_tensor b, int32_t transpose_a,
                               int32_t transpose_b, bp_tensor out);
/* op: CUMSUM (the SCAN family). Running sums along axis, the result of a's
 * shape; with BP_AXIS_ALL along the C-order flattening, a 1-D result
 * (NumPy's axis=None). Dtypes as SUM: integers and bool into int64, floats
 * keep theirs (since 1.1). */
BP_API bp_status bp_scan(int32_t op, bp_tensor a, int32_t axis, bp_tensor *out);
BP_API bp_status bp_scan_out(int32_t op, bp_tensor a, int32_t axis, bp_tensor out);
/* The SOFTMAX family along axis (negative counts from the end; a rank-0
 * tensor is one row of one element, axis -1 or 0): bp_softmax gives
 * exp(a - m) / sum(exp(a - m)), bp_log_softmax (a - m) - log(sum(exp(a - m))),
 * m the maximum along the axis, each in one stable pass (plugin.h's SOFTMAX:
 * no overflow however close a is to its dtype's largest value). PyTorch's
 * values on special rows: a row holding a NaN or a +inf, or nothing but
 * -inf, is NaN throughout; another -inf element gives 0 and -inf. The
 * result has a's shape and dtype; integer and bool tensors give float64, as
 * EXP does. An axis out of range is BP_ERR_SHAPE naming the operator. The
 * _out forms write into out, of that shape and dtype, which may be a itself
 * (in place) but must overlap it nowhere else. Records for autograd
 * (softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g)). bp_softmax
 * came in 1.1 as a composite of reductions; since 1.6 it runs the
 * operator, and on a device whose backend does not (a plugin built before
 * 1.6, or one that leaves it out) bp_softmax and bp_log_softmax are still
 * made of MAX, SUB, EXP, SUM and DIV or LOG, with the same values and
 * gradients, so that they run on every backend; the _out forms need the
 * operator (else BP_ERR_UNSUPPORTED naming the backend, or the host when
 * dispatch.host_fallback is on). */
BP_API bp_status bp_softmax(bp_tensor a, int32_t axis, bp_tensor *out);
BP_API bp_status bp_softmax_out(bp_tensor a, int32_t axis, bp_tensor out);        /* since 1.6 */
BP_API bp_status bp_log_softmax(bp_tensor a, int32_t axis, bp_tensor *out);       /* since 1.6 */
BP_API bp_status bp_log_softmax_out(bp_tensor a, int32_t axis, bp_tensor out);    /* since 1.6 */
/* Sub-tensors of a picked by index (TensorFlow's and JAX's gather_nd).
 * index is an integer tensor of shape [..., k] with 1 <= k <= rank of a:
 * each of its rows (index[..., 0..k-1]) names the sub-tensor
 * a[i0, ..., ik-1, :, ...], a negative entry counting from the end of its
 * axis. *out is new, of a's dtype and shape index.shape[:-1] + a.shape[k:].
 * An entry outside its axis is BP_ERR_INDEX (nothing is computed); a bool
 * index is BP_ERR_DTYPE (bp_nonzero turns a mask into indices). Reads the
 * index's range back to the host first, so it waits for the index
 * (since 1.1). */
BP_API bp_status bp_gather_nd(bp_tensor a, bp_tensor index, bp_tensor *out);
/* The assignment form of bp_gather_nd: writes values, broadcast to
 * index.shape[:-1] + dst.shape[k:] and converted to dst's dtype, into the
 * sub-tensors of dst the index rows name; other elements of dst keep their
 * values. dst may be a view (c[mask] = v writes through). values may be dst
 * itself: they are read before anything is written. When index rows repeat,
 * the element gets the value of one of them (which one is unspecified)
 * (since 1.1). */
BP_API bp_status bp_scatter_nd(bp_tensor dst, bp_tensor index, bp_tensor values);
/* The adding form of bp_scatter_nd (the gradient of bp_gather_nd): adds
 * values, broadcast to index.shape[:-1] + dst.shape[k:] and converted to
 * dst's dtype, into the sub-tensors of dst the index rows name; rows that
 * repeat all add (NumPy's np.add.at). dst is numeric (a bool dst is
 * BP_ERR_DTYPE); integers wrap around, floats are summed in any order.
 * Index rules, views and aliasing as for bp_scatter_nd (since 1.1). */
BP_API bp_status bp_scatter_add_nd(bp_tensor dst, bp_tensor index, bp_tensor values);
/* The multi-indices of the nonzero (true) elements of a, in C order: a new
 * int64 tensor of shape [count, rank of a] (NumPy's argwhere,
 * torch.nonzero; its columns are NumPy's nonzero and one-argument where).
 * NaN counts as nonzero. Waits for a: count must be known to size *out
 * (since 1.1). */
BP_API bp_status bp_nonzero(bp_tensor a, bp_tensor *out);
/* ---- indexing (since 1.5) -----------------------------------------------
 * a[key] and a[key] = values with NumPy's rules, for C as for the bindings.
 * A key is an array of bp_index_key entries, one per entry of NumPy's key
 * tuple, read left to right against a's axes:
 *   - INT: one position (negative counts from the end) of the next axis; the
 *     axis goes away. Outside the axis: BP_ERR_INDEX naming the axis and its
 *     extent.
 *   - SLICE: start:stop:step of the next axis, each given or absent (the
 *     `given` bits) with Python's defaults and clamping; a negative step
 *     walks backwards; a step of 0 is BP_ERR_INVALID_ARGUMENT.
 *   - NEWAXIS: a new axis of extent 1 here (NumPy's None); takes no axis.
 *   - ELLIPSIS: full slices of as many axes as the other entries leave over;
 *     at most one.
 *   - TENSOR: an advanced index on a's device (else BP_ERR_DEVICE_MISMATCH).
 *     An integer tensor (any integer dtype; a negative entry counts from the
 *     end) indexes the next axis; a bool tensor of rank r (r >= 1) is a mask
 *     over the next r axes, whose extents it must have, and stands for the r
 *     integer tensors of its nonzero positions (bp_nonzero). Any other dtype,
 *     a rank-0 bool tensor or a mask of other extents is BP_ERR_INDEX.
 * More entries than axes (an ELLIPSIS and a NEWAXIS count none, a mask its
 * rank) is BP_ERR_INDEX; axes past the key are taken whole. Without a TENSOR
 * entry, indexing is basic; with one, every INT entry is an advanced index
 * too, and the advanced indices broadcast together (else BP_ERR_INDEX naming
 * the shapes) to a shape B that replaces the axes they index, in their
 * place when they are next to each other, at the front of the result when a
 * SLICE, NEWAXIS or ELLIPSIS stands between two of them (NumPy's rule).
 * An index tensor is read back to the host to check its range (an entry
 * outside its axis is BP_ERR_INDEX, nothing is computed), so these calls
 * wait for it. Nothing a call is given is kept: the key array and its
 * tensors are the caller's, borrowed for the call. */

/* What an entry of a key is (since 1.5). */
typedef enum bp_index_kind {
  BP_INDEX_INT = 1,      /* one position: bp_index_key.index */
  BP_INDEX_SLICE = 2,    /* start:stop:step, the `given` bits saying which are given */
  BP_INDEX_NEWAXIS = 3,  /* a new axis of extent 1 (None) */
  BP_INDEX_ELLIPSIS = 4, /* as many whole axes as the other entries leave (...) */
  BP_INDEX_TENSOR = 5    /* an integer or bool tensor: bp_index_key.tensor */
} bp_index_kind;

/* Bits of bp_index_key.given: which of a SLICE's start, stop and step are
 * given; an absent one takes Python's default (start 0 or, stepping
 * backwards, the last position; stop past the end, or before the first
 * position stepping backwards; step 1) (since 1.5). */
#define BP_INDEX_HAS_START 1u
#define BP_INDEX_HAS_STOP 2u
#define BP_INDEX_HAS_STEP 4u

/* One entry of a key (since 1.5). An array of these is passed by pointer
 * and count, so its layout is fixed for the 1.x API: later versions add
 * kinds, never fields. Fields the kind does not use are ignored. */
typedef struct bp_index_key {
  int32_t kind;     /* a bp_index_kind; another value is BP_ERR_INVALID_ARGUMENT (since 1.5) */
  uint32_t given;   /* SLICE: BP_INDEX_HAS_* bits of the values below that are given (since 1.5) */
  int64_t index;    /* INT: the position, negative from the end (since 1.5) */
  int64_t start;    /* SLICE, with BP_INDEX_HAS_START: first position, as Python's (since 1.5) */
  int64_t stop;     /* SLICE, with BP_INDEX_HAS_STOP: the position the slice ends before (since 1.5) */
  int64_t step;     /* SLICE, with BP_INDEX_HAS_STEP: nonzero stride, negative backwards (since 1.5) */
  bp_tensor tensor; /* TENSOR: the index, borrowed for the call (since 1.5) */
} bp_index_key;

/* a[key] (since 1.5). *out is a view of a (it shares a's storage: a write
 * into either shows in the other, as NumPy's basic indexing) when the key is
 * basic with no negative step; otherwise a new tensor (advanced indexing
 * copies; a negative step copies too, since views have non-negative
 * strides). The result has a's dtype. count may be 0 (keys then unused): *out
 * is a view of all of a. Records for autograd: the gradient of a[key] lands
 * in the positions the key read, repeated positions adding up (PyTorch's
 * index). */
BP_API bp_status bp_index(bp_tensor a, const bp_index_key *keys, int32_t count, bp_tensor *out);
/* A new tensor: a copy of a whose elements at a[key] are values, broadcast
 * to the shape of a[key] and converted to a's dtype (BP_ERR_SHAPE when they
 * do not broadcast) (since 1.5). With accumulate = 0 an element the key names
 * twice gets one of the values written there (which one is unspecified, as
 * torch.index_put with accumulate=False); with accumulate != 0 it gets a's
 * element plus every value the key sends there (np.add.at; a bool a is then
 * BP_ERR_DTYPE). Records for autograd as torch.index_put: a's gradient is
 * the output's, zero where values were written (accumulate = 0) or whole
 * (accumulate != 0); values' gradient is the output's gradient at a[key],
 * summed over the axes broadcasting added. */
BP_API bp_status bp_index_put(bp_tensor a, const bp_index_key *keys, int32_t count,
                              bp_tensor values, int32_t accumulate, bp_tensor *out);
/* bp_index_put into dst itself (a[key] = values; torch's index_put_): dst's
 * elements at dst[key] get the values, every view of dst sees them; dst may
 * be a view (since 1.5). values may be dst or a view of it: they are read
 * before anything is written. Like every write into an existing tensor it
 * records nothing: with grad mode on, a dst or values that needs a gradient
 * is BP_ERR_STATE. */
BP_API bp_status bp_index_put_into(bp_tensor dst, const bp_index_key *keys, int32_t count,
                                   bp_tensor values, int32_t accumulate);

/* ---- reductions over axes, scalar operands and fills (since 1.5) ------- */

/* op (a REDUCE operator, as bp_reduce) over every axis in axes[0..count):
 * negative axes count from the end; an axis out of range is BP_ERR_SHAPE, an
 * axis given twice BP_ERR_INVALID_ARGUMENT, and ARGMAX or ARGMIN over more
 * than one axis BP_ERR_INVALID_ARGUMENT (positions along one axis only).
 * keepdims keeps every reduced axis with extent 1. count 0 reduces nothing:
 * *out is a new copy of a. The dtype is bp_reduce's. Records for autograd
 * (the reductions run one axis at a time). The array is the caller's, read
 * during the call (since 1.5). */
BP_API bp_status bp_reduce_axes(int32_t op, bp_tensor a, const int32_t *axes, int32_t count,
                                int32_t keepdims, bp_tensor *out);
/* cond ? a : scalar elementwise, or cond ? scalar : a when scalar_is_a is
 * non-zero (NumPy's where with a Python number). The scalar becomes a
 * tensor of the dtype its kind meets a's in (the kind table of "Dtypes
 * (promotion)": an int tensor with an INT scalar stays int, with a FLOAT
 * one becomes float64; a bool tensor with an INT scalar int64), and the
 * result has the promotion of that dtype and a's. An INT scalar that dtype
 * cannot hold (an int8 tensor and 300) is BP_ERR_INVALID_ARGUMENT, as are a
 * scalar not of its kind and a kind that is no bp_scalar_kind. Records for
 * autograd as bp_where (since 1.5). */
BP_API bp_status bp_where_scalar(bp_tensor cond, bp_tensor a, double scalar, int32_t scalar_kind,
                                 int32_t scalar_is_a, bp_tensor *out);
/* bp_full with the value's bp_scalar_kind given (since 1.5): an INT value
 * into an integer dtype must be an integer the dtype holds (300 into int8 is
 * BP_ERR_INVALID_ARGUMENT, where bp_full's conversion saturates it to 127),
 * a BOOL value 0 or 1; a FLOAT value converts by the conversion rules. An
 * INT value travels as a double, as in bp_binary_scalar_kind. */
BP_API bp_status bp_full_kind(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                              double value, int32_t value_kind, bp_tensor *out);

/* ---- sorting and top-k (since 1.6) -------------------------------------- */

/* The k smallest (largest = 0) or largest (largest != 0) elements of every
 * row along axis (negative from the end), and their positions: *values is
 * a new tensor of a's dtype and *indices a new int64 one, both of a's shape
 * with k elements along axis (torch.topk's values and indices). Each row's
 * results are in order, ascending for the smallest and descending for the
 * largest, and the order is stable: equal elements keep their positions'
 * order, the lower position first, in both directions. NaN orders as in
 * NumPy's sort, after every number (so it is taken first with largest, as
 * torch.topk takes it), -0 and +0 are equal, and bool false comes before
 * true (plugin.h's TOPK gives the order exactly; every backend writes the
 * same bits). Every dtype is taken as it is. A rank-0 a is one element
 * (axis 0 or -1; results of rank 0 for k = 1). k outside 0..n (n the
 * extent of axis) and an axis out of range are BP_ERR_SHAPE, naming
 * "topk". Either of values and indices may be NULL when the caller does
 * not want that result (not both: BP_ERR_INVALID_ARGUMENT). Records for
 * autograd: the values' gradient goes back to the elements they came from,
 * 0 elsewhere (since 1.6). */
BP_API bp_status bp_topk(bp_tensor a, int64_t k, int32_t axis, int32_t largest, bp_tensor *values,
                         bp_tensor *indices);
/* bp_topk into existing tensors: values of a's dtype and indices int64,
 * both of the result's shape, on a's device, overlapping neither a nor each
 * other (else BP_ERR_DTYPE, BP_ERR_SHAPE or BP_ERR_INVALID_ARGUMENT).
 * Records nothing: with grad mode on, an a or output that needs a gradient
 * is BP_ERR_STATE (since 1.6). */
BP_API bp_status bp_topk_out(bp_tensor a, int64_t k, int32_t axis, int32_t largest, bp_tensor values,
                             bp_tensor indices);
/* The whole of every row along axis in order, ascending or descending
 * (descending != 0), and the positions the elements came from: bp_topk
 * with k the axis' extent, so always stable (torch.sort(stable=True),
 * np.sort and np.argsort with kind='stable'). Errors name "sort" (since
 * 1.6). */
BP_API bp_status bp_sort(bp_tensor a, int32_t axis, int32_t descending, bp_tensor *values,
                         bp_tensor *indices);
/* bp_sort's positions alone (np.argsort(kind='stable'), torch.argsort):
 * *indices is a new int64 tensor of a's shape. Errors name "argsort"
 * (since 1.6). */
BP_API bp_status bp_argsort(bp_tensor a, int32_t axis, int32_t descending, bp_tensor *indices);

/* ---- convolution (since 1.6) -------------------------------------------
 * PyTorch's conv1d/2d/3d and conv_transpose1d/2d/3d, ONNX's Conv and
 * ConvTranspose, over channels-first tensors: x [N, C_in, S_1..S_r] with
 * r = 1, 2 or 3 spatial axes, weight [C_out, C_in / groups, K_1..K_r]
 * (ConvTranspose's weight has the same layout: its input channels first),
 * optional bias. Semantics as plugin.h's CONV family: zeros outside x,
 * groups (C_in for depthwise), float16 and bfloat16 accumulated in float32.
 * Inputs of different dtypes are promoted; integer inputs compute in
 * float64. Records for autograd: x, weight and bias all get gradients (the
 * input's through CONV_TRANSPOSE, the weight's through CONV_WEIGHT_GRAD,
 * the bias's a sum). Errors: BP_ERR_SHAPE, naming the operator and the
 * shapes, for ranks that are not 3 to 5 or differ, channels that do not
 * match (C_in != weight[1] * groups), a groups that does not divide the
 * channels, a bias of other extents and an output size below 1 (the
 * dilated kernel larger than the padded input; a ConvTranspose whose
 * padding removes everything); BP_ERR_INVALID_ARGUMENT for options out of
 * range; BP_ERR_DEVICE_MISMATCH for operands on different devices. */

/* Spatial axes bp_conv takes at most (since 1.6). */
#define BP_CONV_MAX_RANK 3

/* The window of bp_conv and bp_conv_transpose (since 1.6). The caller sets
 * struct_size; entry i of each array is spatial axis i (axis 2 + i of x),
 * entries past the operands' spatial rank are ignored. Start from
 * BP_CONV_OPTIONS_INIT (stride 1, no padding, dilation 1, one group) and
 * set what differs; a NULL options pointer means those defaults. The
 * struct is the caller's, read during the call. */
typedef struct bp_conv_options {
  uint32_t struct_size;                      /* sizeof(bp_conv_options) as the caller knows it (since 1.6) */
  int32_t groups;                            /* channel groups, >= 1 (since 1.6) */
  int64_t stride[BP_CONV_MAX_RANK];          /* >= 1 (since 1.6) */
  int64_t padding_begin[BP_CONV_MAX_RANK];   /* zeros before each spatial axis of x, >= 0 (since 1.6) */
  int64_t padding_end[BP_CONV_MAX_RANK];     /* zeros after it, >= 0; PyTorch's padding p is p and p
                                                (since 1.6) */
  int64_t dilation[BP_CONV_MAX_RANK];        /* spacing of the kernel's taps, >= 1 (since 1.6) */
  int64_t output_padding[BP_CONV_MAX_RANK];  /* bp_conv_transpose: extent added at the end of each
                                                spatial axis of its result, 0 <= it < max(stride,
                                                dilation); bp_conv: 0 (since 1.6) */
} bp_conv_options;
#define BP_CONV_OPTIONS_SIZE_1_6 (offsetof(bp_conv_options, output_padding) + BP_CONV_MAX_RANK * sizeof(int64_t))
typedef char bp_conv_options_size_check[sizeof(bp_conv_options) == BP_CONV_OPTIONS_SIZE_1_6 ? 1 : -1];
/* bp_conv_options o = BP_CONV_OPTIONS_INIT; (since 1.6) */
#define BP_CONV_OPTIONS_INIT {sizeof(bp_conv_options), 1, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}}

/* Convolution (since 1.6): *out = y [N, C_out, O_1..O_r] with
 * O_i = floor((S_i + padding_begin_i + padding_end_i - dilation_i (K_i - 1)
 * - 1) / stride_i) + 1 and y[n, co, o] = bias[co] + sum over the input
 * channels of co's group and the kernel taps k of x[n, c, o stride -
 * padding_begin + k dilation] * weight[co, c', k]. bias is [C_out] or 0 for
 * none. */
BP_API bp_status bp_conv(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options,
                         bp_tensor *out);
/* bp_conv into an existing tensor of exactly the result's dtype and shape,
 * not overlapping the inputs (since 1.6). Records nothing (see _out). */
BP_API bp_status bp_conv_out(bp_tensor x, bp_tensor weight, bp_tensor bias, const bp_conv_options *options,
                             bp_tensor out);
/* Transposed convolution, the gradient of bp_conv with respect to its input
 * (since 1.6): x [N, C_out, O_1..O_r] (the channels of weight's axis 0),
 * weight [C_out, C_in / groups, K...], bias [C_in] or 0 -> *out [N, C_in,
 * S_1..S_r] with S_i = (O_i - 1) stride_i - padding_begin_i - padding_end_i
 * + dilation_i (K_i - 1) + 1 + output_padding_i: every x element spreads
 * x[n, co, o] * weight[co, c', k] onto position o stride - padding_begin +
 * k dilation of channel c, positions inside the result only. */
BP_API bp_status bp_conv_transpose(bp_tensor x, bp_tensor weight, bp_tensor bias,
                                   const bp_conv_options *options, bp_tensor *out);
/* bp_conv_transpose into an existing tensor (since 1.6), as bp_conv_out. */
BP_API bp_status bp_conv_transpose_out(bp_tensor x, bp_tensor weight, bp_tensor bias,
                                       const bp_conv_options *options, bp_tensor out);

/* ---- composites (since 1.1) ---------------------------------------------
 * NumPy functions made of the operators above, run one operator at a time
 * on the inputs' device: every backend has them, and their results follow
 * those operators' semantics. Each *out is a new tensor. */

/* The tensors (count >= 1, all on one device) joined along an existing axis;
 * shapes must agree elsewhere; the dtype is their promotion. */
BP_API bp_status bp_concatenate(const bp_tensor *tensors, int32_t count, int32_t axis,
                                bp_tensor *out);
/* The tensors (count >= 1, one shape, one device) joined along a new axis
 * (0..rank; negative counts from the end). */
BP_API bp_status bp_stack(const bp_tensor *tensors, int32_t count, int32_t axis, bp_tensor *out);
/* n x m with ones where column - row == k (k = 0: the diagonal). */
BP_API bp_status bp_eye(bp_device device, int32_t dtype, int64_t n, int64_t m, int64_t k,
                        bp_tensor *out);
/* num values from start to stop, computed in float64 as start + i * step and
 * converted to dtype; with endpoint the last is stop exactly (NumPy). */
BP_API bp_status bp_linspace(bp_device device, int32_t dtype, double start, double stop,
                             int64_t num, int32_t endpoint, bp_tensor *out);
/* minimum(maximum(a, low), high); -INFINITY / INFINITY for no bound (the
 * dtype is then kept, even an integer one); a NaN bound is
 * BP_ERR_INVALID_ARGUMENT; NaN elements stay NaN. */
BP_API bp_status bp_clip(bp_tensor a, double low, double high, bp_tensor *out);
/* Variance sum((a - mean(a))^2) / (n - ddof) over axis or BP_AXIS_ALL:
 * since 1.6 the VAR operator (stable in every dtype, float16 and bfloat16
 * accumulating in float32; recorded for autograd) with ddof as its
 * correction; a fractional ddof (NumPy allows one) scales the population
 * variance by n / (n - ddof). n - ddof <= 0 divides by 0, as NumPy and
 * PyTorch do: +inf, or NaN for a set without spread (1.1 to 1.5 gave NaN
 * for every n <= ddof). Integers give float64 as MEAN does. bp_std is its
 * square root. */
BP_API bp_status bp_var(bp_tensor a, int32_t axis, int32_t keepdims, double ddof, bp_tensor *out);
BP_API bp_status bp_std(bp_tensor a, int32_t axis, int32_t keepdims, double ddof, bp_tensor *out);
/* ---- normalisation (since 1.6) ------------------------------------------
 * Each *out is a new tensor, recorded for autograd with respect to every
 * float input that requires a gradient (the mean and rstd written to the
 * optional out-pointers record nothing). An optional tensor argument is 0
 * for none. eps must be finite and >= 0 (else BP_ERR_INVALID_ARGUMENT);
 * tensors on different devices are BP_ERR_DEVICE_MISMATCH; integer inputs
 * compute in float64. */

/* The variance of a over the axes[0..count) at once (negative axes count
 * from the end, an axis twice is BP_ERR_INVALID_ARGUMENT), dividing by their
 * element count less `correction`, a non-negative integer (PyTorch's
 * correction; 0 the population and 1 the sample variance). */
BP_API bp_status bp_var_axes(bp_tensor a, const int32_t *axes, int32_t count, int32_t keepdims,
                             double correction, bp_tensor *out);
/* PyTorch's layer_norm over the last `axes` axes of x (its normalized_shape,
 * 1..rank): each index of the other axes is a row, y = (x - mean) * rstd *
 * weight + bias with mean and the biased variance of the row's elements
 * and rstd = 1 / sqrt(var + eps) (plugin.h's LAYER_NORM). weight and bias
 * (0: none) have the normalised shape (else BP_ERR_SHAPE) and are converted
 * to x's dtype; y has x's shape and dtype. mean and rstd, when not NULL,
 * receive the row statistics with x's rank and extent 1 on the normalised
 * axes, in float32 (float64 for float64 x), as PyTorch's native_layer_norm
 * returns them. */
BP_API bp_status bp_layer_norm(bp_tensor x, bp_tensor weight, bp_tensor bias, int32_t axes, double eps,
                               bp_tensor *out, bp_tensor *mean, bp_tensor *rstd);
/* RMS normalisation (PyTorch's rms_norm): y = x * rstd * weight + bias with
 * rstd = 1 / sqrt(mean(x^2) + eps) over the last `axes` axes; otherwise as
 * bp_layer_norm (there is no mean). */
BP_API bp_status bp_rms_norm(bp_tensor x, bp_tensor weight, bp_tensor bias, int32_t axes, double eps,
                             bp_tensor *out, bp_tensor *rstd);
/* PyTorch's group_norm: x [N, C, ...] with its C channels in `groups`
 * groups (groups divides C, else BP_ERR_SHAPE); each group of each sample is
 * normalised as one layer-norm row (its channels and spatial elements),
 * then scaled by weight [C] and shifted by bias [C] (0: none). */
BP_API bp_status bp_group_norm(bp_tensor x, int64_t groups, bp_tensor weight, bp_tensor bias, double eps,
                               bp_tensor *out);
/* PyTorch's batch_norm over x [N, C, ...]: training non-zero normalises
 * with the mean and the biased variance of each channel over every other
 * axis (more than one element per channel, else BP_ERR_SHAPE) and, when
 * running_mean and running_var [C] are given, updates them in place, as
 * running = (1 - momentum) running + momentum batch with the unbiased batch
 * variance (a write that records nothing); training 0 normalises with the
 * running statistics, which it then needs. weight and bias [C] (0: none)
 * scale and shift; y has x's shape and dtype. */
BP_API bp_status bp_batch_norm(bp_tensor x, bp_tensor running_mean, bp_tensor running_var, bp_tensor weight,
                               bp_tensor bias, int32_t training, double momentum, double eps, bp_tensor *out);
/* Integers drawn uniformly from [low, high) (NumPy's randint, PyTorch's
 * randint) in an integer dtype: the float64 stream of bp_random_uniform over
 * [0, high - low), truncated, plus low (exactly, in int64), so every backend
 * draws the same numbers for one seed. high - low is at most 2^53 and
 * [low, high) must fit the dtype (else BP_ERR_INVALID_ARGUMENT). */
BP_API bp_status bp_random_integers(bp_device device, int32_t dtype, int32_t rank,
                                    const int64_t *shape, int64_t low, int64_t high, uint64_t seed,
                                    bp_tensor *out);
/* *result = 1 when |a - b| <= atol + rtol * |b| for every element (NumPy's
 * rule, integers compared as float64, broadcasting), else 0; NaNs are equal
 * only with equal_nan. Waits for the inputs. */
BP_API bp_status bp_allclose(bp_tensor a, bp_tensor b, double rtol, double atol,
                             int32_t equal_nan, int32_t *result);

/* Elementwise conversion to dtype (a new tensor, even for the same dtype). */
BP_API bp_status bp_cast(bp_tensor a, int32_t dtype, bp_tensor *out);
/* Copies src into dst (same device), converting dtype and broadcasting src
 * to dst's shape; dst may be a view (t[i] = ...). */
BP_API bp_status bp_assign(bp_tensor dst, bp_tensor src);

/* ---- attention (since 1.6) ---------------------------------------------- */

/* How bp_attention attends (since 1.6). Set struct_size to sizeof the
 * struct; fields past it read as 0, and 0 is each field's default. */
typedef struct bp_attention_options {
  uint32_t struct_size; /* sizeof(bp_attention_options) as the caller knows it (since 1.6) */
  int32_t causal;       /* non-zero: query i sees keys j <= i only (since 1.6) */
  bp_tensor mask;       /* 0, or a bool tensor (true = the key takes part) or a float one (added
                           to the scores), broadcasting to [B..., Lq, Lk]; borrowed for the call
                           (since 1.6) */
  double scale;         /* the scores' factor; 0 means 1 / sqrt(D) (1 when D is 0) (since 1.6) */
  double dropout;       /* probability p, 0 <= p <= 1, of zeroing each attention weight (since 1.6) */
  uint64_t seed;        /* the dropout mask's seed (since 1.6) */
} bp_attention_options;
#define BP_ATTENTION_OPTIONS_SIZE_1_6 (offsetof(bp_attention_options, seed) + sizeof(uint64_t))
typedef char bp_attention_options_size_check
    [sizeof(bp_attention_options) == BP_ATTENTION_OPTIONS_SIZE_1_6 ? 1 : -1];

/* Scaled dot-product attention (since 1.6), PyTorch's
 * scaled_dot_product_attention: with q [B..., Lq, D], k [B..., Lk, D] and
 * v [B..., Lk, Dv] on one device (their batch axes B... broadcast), *out
 * is the new [B..., Lq, Dv] tensor
 *     softmax(q k^T * scale + mask, along the keys) v,
 * computed in the three inputs' promoted dtype (integers in float64).
 * options may be NULL (no mask, not causal, the default scale, no
 * dropout). A bool mask hides the keys where it is false (-inf added); a
 * float mask is added as it is, converted to that dtype (any other dtype is
 * BP_ERR_DTYPE); it must broadcast to [B..., Lq, Lk] without widening it.
 * causal hides key j from query i when j > i, the top-left aligned lower
 * triangle even when Lq != Lk (PyTorch's is_causal); it combines with a
 * mask. A query row whose keys are all hidden is NaN (as in PyTorch's math
 * path: the softmax of -inf only); Lk = 0 gives zeros. Dropout zeroes
 * weight i of the [B..., Lq, Lk] weights (C order) when u(i) < p, u being
 * the float32 stream of bp_random_uniform over [0, 1) for `seed` (compared
 * with p rounded to float32), and scales the others by 1 / (1 - p): so the
 * mask is the same on every backend, and p = 1 drops every weight. Shapes
 * that do not fit (ranks below 2, q's and k's D or k's and v's Lk
 * differing, batch axes that do not broadcast, a mask that does not) are
 * BP_ERR_SHAPE, a non-finite scale or p outside [0, 1]
 * BP_ERR_INVALID_ARGUMENT, inputs on several devices
 * BP_ERR_DEVICE_MISMATCH, each naming the operator "attention".
 * How it runs: when no input needs a gradient (or grad mode is off), the
 * dropout is 0 and the device's backend offers the fused ATTENTION operator
 * for the dtype (plugin.h: cpu and cuda do), one call of it; otherwise
 * the composite matmul, add, softmax and matmul, operator by operator,
 * which records for autograd (gradients reach q, k, v and a float mask).
 * The two agree within rounding. */
BP_API bp_status bp_attention(bp_tensor q, bp_tensor k, bp_tensor v, const bp_attention_options *options,
                              bp_tensor *out);

/* ---- pooling, dropout, padding and resizing (since 1.6) -----------------
 * Channels-first tensors as PyTorch lays them out: x is [N, C, S...] with
 * spatial_rank (1 to 3) spatial axes S, or [C, S...], one sample without its
 * batch axis (the result then has none either). Every result records its
 * gradient (float inputs). Each *out is a new tensor. */

/* How bp_max_pool and bp_avg_pool slide their window (since 1.6). Zero it,
 * set struct_size, spatial_rank and kernel: the rest then defaults as
 * PyTorch's do (stride = kernel, no padding, dilation 1, floor mode,
 * count_include_pad off; Python's nn.AvgPool2d turns it on). Entries past
 * spatial_rank are ignored. A field past the caller's struct_size reads as 0. */
typedef struct bp_pool_options {
  uint32_t struct_size;      /* sizeof(bp_pool_options) as the caller built it (since 1.6) */
  int32_t spatial_rank;      /* 1..3 (since 1.6) */
  int64_t kernel[3];         /* window extent per spatial axis, >= 1 (since 1.6) */
  int64_t stride[3];         /* >= 1; 0 takes the kernel's extent (since 1.6) */
  int64_t pad_begin[3];      /* implicit padding before each spatial axis, 0..kernel/2 (since 1.6) */
  int64_t pad_end[3];        /* and after it, 0..kernel/2 (since 1.6) */
  int64_t dilation[3];       /* spacing of the window's taps, >= 1; 0 means 1 (since 1.6) */
  int32_t ceil_mode;         /* nonzero: output extents round up (plugin.h, POOL) (since 1.6) */
  int32_t count_include_pad; /* bp_avg_pool: nonzero: the divisor counts the padding (since 1.6) */
} bp_pool_options;
#define BP_POOL_OPTIONS_SIZE_1_6 (offsetof(bp_pool_options, count_include_pad) + sizeof(int32_t))
typedef char bp_pool_options_size_check[sizeof(bp_pool_options) == BP_POOL_OPTIONS_SIZE_1_6 ? 1 : -1];

/* Max pooling (MAX_POOL, plugin.h: its output extents, ties to the first
 * element in C order, NaN propagating, padding never chosen) of a tensor
 * of any dtype (bool pools as int32, as the other numeric operators take
 * it). indices, when not NULL,
 * receives a new int64 tensor of the result's shape: each maximum's flat
 * position in its input plane (PyTorch's return_indices). PyTorch's checks
 * give BP_ERR_SHAPE naming the operator: a padding over half the kernel, a
 * window larger than the padded input, a window that covers only padding
 * (PyTorch answers -inf there); bad option values BP_ERR_INVALID_ARGUMENT
 * (since 1.6). */
BP_API bp_status bp_max_pool(bp_tensor x, const bp_pool_options *options, bp_tensor *out,
                             bp_tensor *indices);
/* Average pooling (AVG_POOL: the divisor counts the window's elements inside
 * the input, or with count_include_pad its padding too, never the positions
 * a ceil-mode window reaches past the padding); integers give float64 as
 * MEAN does; errors as bp_max_pool's (since 1.6). */
BP_API bp_status bp_avg_pool(bp_tensor x, const bp_pool_options *options, bp_tensor *out);
/* PyTorch's adaptive pooling to output_size[spatial_rank] (each >= 1):
 * output position o of an axis of extent S pools [floor(o S / O),
 * ceil((o + 1) S / O)). The max form writes the maxima's flat positions
 * into *indices when it is not NULL, as bp_max_pool does (since 1.6). */
BP_API bp_status bp_adaptive_avg_pool(bp_tensor x, int32_t spatial_rank, const int64_t *output_size,
                                      bp_tensor *out);
BP_API bp_status bp_adaptive_max_pool(bp_tensor x, int32_t spatial_rank, const int64_t *output_size,
                                      bp_tensor *out, bp_tensor *indices);
/* Pooling over all the spatial axes at once: [N, C, 1...] (Gluon's
 * GlobalAvgPool2D, adaptive pooling to 1) (since 1.6). */
BP_API bp_status bp_global_avg_pool(bp_tensor x, int32_t spatial_rank, bp_tensor *out);
BP_API bp_status bp_global_max_pool(bp_tensor x, int32_t spatial_rank, bp_tensor *out);

/* Dropout of a float tensor of any shape: x * keep / (1 - p), keep(i) =
 * u(i) >= p with u(i) the float32 RANDOM_UNIFORM stream of plugin.h for
 * `seed` (p compared as a float32) and i the C-order position, so one seed
 * drops the same elements on every device and for every dtype; p = 1 gives
 * x * 0 (PyTorch's). It is the rule of bp_attention's dropout. p outside
 * [0, 1] is BP_ERR_INVALID_ARGUMENT, a tensor of another dtype
 * BP_ERR_DTYPE. The gradient is dy * keep / (1 - p) (since 1.6). */
BP_API bp_status bp_dropout(bp_tensor x, double p, uint64_t seed, bp_tensor *out);

/* How bp_pad fills (since 1.6): torch.nn.functional.pad's modes. */
typedef enum bp_pad_mode {
  BP_PAD_CONSTANT = 0, /* the value */
  BP_PAD_REFLECT = 1,  /* the mirror image about the edge element, which is not repeated */
  BP_PAD_EDGE = 2      /* the edge element repeated (torch's "replicate") */
} bp_pad_mode;
/* x with before[d] elements added before axis d and after[d] after it, for
 * every axis d of x (arrays of x's rank; NULL for rank 0); a negative amount
 * removes that many elements from that end instead (torch's order: the
 * other end still reflects about the original edge). Reflect amounts must
 * be less than the axis' extent (BP_ERR_SHAPE), as must what is removed;
 * the value converts to x's dtype as a fill does (since 1.6). */
BP_API bp_status bp_pad(bp_tensor x, const int64_t *before, const int64_t *after, int32_t mode,
                        double value, bp_tensor *out);

/* How bp_interpolate resizes (since 1.6). */
typedef enum bp_interp_mode {
  BP_INTERP_NEAREST = 0, /* torch's 'nearest': output j reads floor(j * scale), at most S - 1 */
  BP_INTERP_LINEAR = 1   /* linear, bilinear or trilinear by spatial_rank (float tensors) */
} bp_interp_mode;
/* torch.nn.functional.interpolate of x [N, C, S...] to size[spatial_rank]
 * or by scale[spatial_rank] (exactly one of them not NULL): with a scale the
 * size is floor(S * scale) and the coordinates are scaled by 1 / scale, as
 * torch does with a scale_factor and recompute_scale_factor off. align_corners
 * (linear only; nonzero with nearest is BP_ERR_INVALID_ARGUMENT) maps the
 * corner elements onto each other. Indices and weights follow torch 1.13's
 * arithmetic (float, double for float64); the gradient adds every output's
 * share back (since 1.6). */
BP_API bp_status bp_interpolate(bp_tensor x, int32_t spatial_rank, const int64_t *size, const double *scale,
                                int32_t mode, int32_t align_corners, bp_tensor *out);

/* ---- lazy fusion (since 1.3) ------------------------------------------- */

/* Elementwise operators (arithmetic, comparisons, bp_where, casts) that
 * allocate a result of 4096 elements or more, on a device whose backend
 * runs fused programs (plugin.h's execute_fused: cpu-openblas, opencl,
 * cuda, reference), are recorded instead of run, and the recorded chain of
 * one device runs as one program when a value is needed: a read (bp_to_host,
 * bp_tensor_host_address, DLPack), bp_tensor_wait, bp_synchronize, an
 * operator that cannot be fused (a reduction, a matmul, an _out into a
 * tensor the chain reads), an operator of another shape, or a chain of
 * BP_FUSED_MAX_INSTRS. What it changes and what it does not:
 * - Results are bit-identical to running each operator alone (EXP, LOG,
 *   TANH, SIGMOID, SIN, COS, ERF, EXPM1, LOG1P and POW within the backend's
 *   usual last bits).
 * - Intermediates nobody holds any more are never allocated or written:
 *   release them (or let a binding drop them) before the value is needed.
 * - Errors about the call (devices, dtypes, shapes, handles) come from the
 *   call, as without fusion. An error only running can show (out of
 *   memory, the backend failing) comes from the call that needed the value,
 *   naming the fused operators, and again from every later access to a
 *   result the failed run did not compute.
 * - Autograd records the same operators and gives the same gradients.
 * - The routing trace shows each deferred operator and each group run.
 * bp_fusion_enable(0) makes later operators run at once (what is already
 * recorded still runs when needed); [dispatch] fusion and BACKPLANE_FUSION
 * give the initial state (default on). */
BP_API bp_status bp_fusion_enable(int32_t on);
/* 1 when new elementwise operators are recorded, else 0. */
BP_API int32_t bp_fusion_enabled(void);

/* ---- saving and loading: safetensors files (since 1.6) -----------------
 * Named tensors in the safetensors format (github.com/huggingface/safetensors),
 * which the `safetensors` package, PyTorch through it, JAX and others read
 * and write: 8 bytes of little-endian header length N, N bytes of a UTF-8
 * JSON header mapping each name to {"dtype", "shape", "data_offsets"} (plus
 * an optional "__metadata__" object of strings), then the tensors' bytes in
 * C order, little-endian, packed one after another. The format's dtypes map
 * onto Backplane's as F64 float64, F32 float32, F16 float16, BF16 bfloat16,
 * I64 int64, I32 int32, I16 int16, I8 int8, U8 uint8, BOOL bool (one byte,
 * 0 or 1).
 *
 * Nothing moves between devices behind the caller's back: saving reads each
 * tensor through its own device's backend into host memory, as bp_to_host
 * does (after the work that produces it), and writes those bytes to the
 * file; loading reads the bytes from the file and writes them through the
 * given device's backend into a new tensor there, as bp_from_host does. A
 * tensor on opencl:0 is saved from opencl:0 and may be loaded onto cpu:0 or
 * any other device: the file holds no device.
 *
 * A file is checked whole when it is opened, before anything is loaded from
 * it, and anything the format does not allow is BP_ERR_FORMAT with a message
 * naming the file, the byte offset and what is wrong there: a file shorter
 * than its header length says, a header longer than 100,000,000 bytes (the
 * `safetensors` package's limit), a header that is not a JSON object of
 * UTF-8 text (trailing spaces allowed, as writers pad with them), a name
 * given twice, a name or metadata string holding a NUL character (C strings
 * cannot), an entry without a string dtype, a shape of unsigned integers
 * or a data_offsets pair [begin, end] with begin <= end, a dtype the format
 * does not define or Backplane has no dtype for (U16, F8_E4M3, ...), more
 * than BP_MAX_RANK axes or 2^56 elements, a shape whose bytes differ from
 * end - begin, and data that is not packed: a tensor past the end of the
 * file, two tensors overlapping, bytes between tensors or after the last one
 * that belong to none. So a file Backplane opens is one the `safetensors`
 * package opens too; nothing ever reads past the file's end. Files that
 * cannot be opened, read, written or replaced are BP_ERR_IO with the path
 * and the system's reason. */

/* One tensor to save under a name (since 1.6). The layout is fixed for the
 * 1.x API. */
typedef struct bp_named_tensor {
  const char *name; /* UTF-8, unique in the list, not "__metadata__" (since 1.6) */
  bp_tensor tensor; /* any live tensor on any device, borrowed for the call (since 1.6) */
} bp_named_tensor;

/* One entry of a file's "__metadata__": two UTF-8 strings (since 1.6). The
 * layout is fixed for the 1.x API. */
typedef struct bp_metadata_entry {
  const char *key;   /* unique in the list (since 1.6) */
  const char *value; /* (since 1.6) */
} bp_metadata_entry;

/* Writes tensors[0..count) (count >= 0) and metadata[0..metadata_count)
 * (metadata may be NULL when metadata_count is 0) to the file at path in the
 * safetensors format (since 1.6). Every argument is checked before the file
 * is touched. The file is written under a temporary name in the same
 * directory and renamed over path when complete, so path holds either its
 * old contents or the whole new file, never part of one (nothing is
 * fsync'ed: after a power loss the rename may not have reached the disk).
 * Each tensor's bytes are read through its device's backend, one tensor at
 * a time, so the host memory it takes is that of the largest tensor. The
 * data is laid out by element size, largest first, then by name, so every
 * tensor starts at a multiple of its element size from the file's start
 * (the header is padded with spaces to a multiple of 8 bytes, as the
 * `safetensors` package pads it). Two names for one storage (tied weights)
 * are written as two copies, and load as two tensors. Bad names (NULL, not
 * UTF-8, repeated, "__metadata__") and bad metadata are
 * BP_ERR_INVALID_ARGUMENT naming the entry; a handle that is no live tensor
 * is BP_ERR_INVALID_HANDLE naming its entry. */
BP_API bp_status bp_safetensors_save(const char *path, const bp_named_tensor *tensors, int32_t count,
                                     const bp_metadata_entry *metadata, int32_t metadata_count);

/* What bp_safetensors_write hands its bytes to: write them all and return 0,
 * or return non-zero to stop the write (since 1.6). */
typedef int32_t (*bp_safetensors_write_fn)(void *context, const void *data, uint64_t bytes);

/* bp_safetensors_save into write(context, ...) instead of a file, in order,
 * from the first byte of the file to the last: for files the caller opens
 * itself, sockets, memory (since 1.6). Everything is checked before the
 * first call of write; a non-zero return from it stops the write with
 * BP_ERR_IO, and whatever was written by then is the caller's to discard. */
BP_API bp_status bp_safetensors_write(bp_safetensors_write_fn write, void *context,
                                      const bp_named_tensor *tensors, int32_t count,
                                      const bp_metadata_entry *metadata, int32_t metadata_count);

/* An open safetensors file; 0 is never one (since 1.6). A handle is never
 * reused: a closed one is BP_ERR_INVALID_HANDLE, like a number never
 * issued. */
typedef uint64_t bp_safetensors;

/* Opens the file at path and checks its header and layout (the list above),
 * reading the header only (since 1.6). The file stays open until
 * bp_safetensors_close, and tensors are read from it as they are loaded; a
 * file changed or truncated meanwhile makes those loads fail (BP_ERR_IO),
 * never read past its end. A path that is not a regular file is BP_ERR_IO. */
BP_API bp_status bp_safetensors_open(const char *path, bp_safetensors *out);
/* The same over bytes bytes at data: a file held in memory (since 1.6).
 * The bytes are copied; the caller's memory is not used after the call. */
BP_API bp_status bp_safetensors_open_memory(const void *data, uint64_t bytes, bp_safetensors *out);
/* Closes the file. Tensors loaded from it are the caller's and stay valid;
 * strings the accessors below gave are freed (since 1.6). */
BP_API bp_status bp_safetensors_close(bp_safetensors file);

/* Number of tensors in the file (since 1.6). */
BP_API bp_status bp_safetensors_count(bp_safetensors file, int32_t *count);
/* Tensor i (0..count-1; the tensors in the byte order of their names, as
 * the `safetensors` package's keys() lists them): its name (valid until
 * bp_safetensors_close), dtype, rank and shape (rank extents written into
 * shape, which has room for BP_MAX_RANK) (since 1.6). */
BP_API bp_status bp_safetensors_entry(bp_safetensors file, int32_t i, const char **name,
                                      int32_t *dtype, int32_t *rank, int64_t *shape);
/* Number of "__metadata__" entries, and entry i (0..count-1, in the byte
 * order of the keys); the strings live until bp_safetensors_close (since 1.6). */
BP_API bp_status bp_safetensors_metadata_count(bp_safetensors file, int32_t *count);
BP_API bp_status bp_safetensors_metadata(bp_safetensors file, int32_t i, const char **key,
                                         const char **value);

/* The tensor called name, read from the file into a new tensor on device
 * (since 1.6). A name the file does not hold is BP_ERR_INVALID_ARGUMENT
 * naming it. The new tensor is a leaf that requires no gradient. */
BP_API bp_status bp_safetensors_load(bp_safetensors file, const char *name, bp_device device,
                                     bp_tensor *out);
/* Every tensor of the file onto device, out[i] being tensor i of
 * bp_safetensors_entry; capacity must be at least the count (else
 * BP_ERR_INVALID_ARGUMENT). On any failure no handle is written and none
 * is left behind (since 1.6). */
BP_API bp_status bp_safetensors_load_all(bp_safetensors file, bp_device device, bp_tensor *out,
                                         int32_t capacity);

/* ---- tracing and counters ---------------------------------------------- */

/* Turns the routing trace on or off ([dispatch] trace, BACKPLANE_TRACE=1).
 * Each operator then records inputs' devices, backend, reason and copies. */
BP_API bp_status bp_trace_enable(int32_t on);
/* Number of trace lines kept (the most recent 4096). */
BP_API int32_t bp_trace_count(void);
/* Copies trace line i (0 = oldest kept) into buf, NUL-terminated, truncated
 * to capacity. */
BP_API bp_status bp_trace_line(int32_t i, char *buf, int32_t capacity);
BP_API bp_status bp_trace_clear(void);

/* Work a backend has done since start. The caller sets struct_size (since 1.0). */
typedef struct bp_backend_counters {
  uint32_t struct_size;            /* sizeof(bp_backend_counters) as the caller knows it (since 1.0) */
  uint64_t ops;                    /* operators executed (since 1.0) */
  uint64_t allocations;            /* buffers allocated (since 1.0) */
  uint64_t bytes_host_to_device;   /* written from host memory (since 1.0) */
  uint64_t bytes_device_to_host;   /* read to host memory (since 1.0) */
  uint64_t bytes_device_to_device; /* copied inside the backend (since 1.0) */
  uint64_t staged_copies;          /* cross-backend copies through host memory (since 1.0) */
} bp_backend_counters;
/* struct_size of 1.0 bp_backend_counters (since 1.1). */
#define BP_BACKEND_COUNTERS_SIZE_1_0 (offsetof(bp_backend_counters, staged_copies) + sizeof(uint64_t))
typedef char bp_backend_counters_size_check
    [sizeof(bp_backend_counters) == BP_BACKEND_COUNTERS_SIZE_1_0 ? 1 : -1];

/* Counters of the backend named `backend` ("cpu-openblas"); struct_size at
 * least BP_BACKEND_COUNTERS_SIZE_1_0, fields past it are not written. */
BP_API bp_status bp_backend_counters_get(const char *backend, bp_backend_counters *counters);

/* ---- convenience forms (inline, not exported symbols) ------------------ */

static inline bp_status bp_add(bp_tensor a, bp_tensor b, bp_tensor *out) { return bp_binary(BP_OP_ADD, a, b, out); }
static inline bp_status bp_sub(bp_tensor a, bp_tensor b, bp_tensor *out) { return bp_binary(BP_OP_SUB, a, b, out); }
static inline bp_status bp_mul(bp_tensor a, bp_tensor b, bp_tensor *out) { return bp_binary(BP_OP_MUL, a, b, out); }
static inline bp_status bp_div(bp_tensor a, bp_tensor b, bp_tensor *out) { return bp_binary(BP_OP_DIV, a, b, out); }
static inline bp_status bp_add_out(bp_tensor a, bp_tensor b, bp_tensor out) { return bp_binary_out(BP_OP_ADD, a, b, out); }
static inline bp_status bp_mul_out(bp_tensor a, bp_tensor b, bp_tensor out) { return bp_binary_out(BP_OP_MUL, a, b, out); }
static inline bp_status bp_exp(bp_tensor a, bp_tensor *out) { return bp_unary(BP_OP_EXP, a, out); }
static inline bp_status bp_sum(bp_tensor a, bp_tensor *out) { return bp_reduce(BP_OP_SUM, a, BP_AXIS_ALL, 0, out); }
static inline bp_status bp_cumsum(bp_tensor a, int32_t axis, bp_tensor *out) { return bp_scan(BP_OP_CUMSUM, a, axis, out); }

#ifdef __cplusplus
}
#endif

/* Gradients: bp_backward and its friends (since 1.1). */
#include "backplane/autograd.h"
/* Collectives across devices and processes (since 1.2). */
#include "backplane/collectives.h"

#endif /* BACKPLANE_H */
