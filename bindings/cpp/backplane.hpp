// backplane.hpp — header-only C++17 RAII over the C API (backplane.h).
//
//   bp::Tensor x = bp::ones({2, 3}, bp::f32, bp::try_gpu());
//   bp::Tensor y = x * 2.0 + x;           // runs on x's device
//   std::vector<float> host = y.to_vector<float>();
//
// A scalar operand's C++ type is its kind (backplane.h, "Dtypes
// (promotion)"): bool is BOOL, an integral type INT, a floating type (and
// bp::float16, bp::bfloat16) FLOAT. So int_tensor * 2 stays int,
// int_tensor * 2.0 is float64, and bf16_tensor * 0.5 stays bfloat16.
//
// Handles are reference counted: copying a Tensor adds a reference, and the
// last one going away releases it. Failures throw bp::Error or one of its
// subclasses, carrying the C API's structured fields.
//
// Comparisons are elementwise, as in PyTorch and NumPy: `a == b` is a bool
// Tensor, and its truth value (`if (a == b)`, `!t`, `t && u`) is that of its
// single element; a tensor of any other size throws ShapeError (ask all() or
// any()). Whether a Tensor holds a handle at all is defined().
//
// Installed as <backplane.hpp> beside <backplane/backplane.h>; the CMake
// target backplane::cpp (C++17) and pkg-config's backplane both find it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "backplane/backplane.h"

namespace bp {

using Shape = std::vector<int64_t>;

inline constexpr bp_dtype f32 = BP_FLOAT32;
inline constexpr bp_dtype f64 = BP_FLOAT64;
inline constexpr bp_dtype i32 = BP_INT32;
inline constexpr bp_dtype i64 = BP_INT64;
inline constexpr bp_dtype boolean = BP_BOOL;
// (since 1.4)
inline constexpr bp_dtype f16 = BP_FLOAT16;
inline constexpr bp_dtype bf16 = BP_BFLOAT16;
inline constexpr bp_dtype i8 = BP_INT8;
inline constexpr bp_dtype u8 = BP_UINT8;
inline constexpr bp_dtype i16 = BP_INT16;

// One float16 / bfloat16 element as stored: its bits (since 1.4). C++17 has
// no half type, so these hold the bits and convert with backplane/half.h,
// the conversions every backend matches bit for bit: from a number rounded
// once to nearest even (from an integer or a double too, never through a
// float rounded on the way), to float exactly.
#define BP_CPP_HALF_TYPE_(Name, FROM_F64, FROM_I64, TO_F32)                              \
  struct Name {                                                                          \
    uint16_t bits = 0;                                                                   \
    Name() = default;                                                                    \
    template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>           \
    explicit Name(T value) : bits(FROM_F64(double(value))) {}                            \
    template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>                 \
    explicit Name(T value) : bits(FROM_I64(int64_t(value))) {}                           \
    static Name from_bits(uint16_t b) {                                                  \
      Name h;                                                                            \
      h.bits = b;                                                                        \
      return h;                                                                          \
    }                                                                                    \
    operator float() const { return TO_F32(bits); }                                      \
    friend bool operator==(Name a, Name b) { return float(a) == float(b); }              \
    friend bool operator!=(Name a, Name b) { return !(a == b); }                         \
  };                                                                                     \
  static_assert(sizeof(Name) == 2 && std::is_trivially_copyable_v<Name>, #Name " is stored as 2 bytes");
BP_CPP_HALF_TYPE_(float16, bp_f16_from_f64, bp_f16_from_i64, bp_f32_from_f16)
BP_CPP_HALF_TYPE_(bfloat16, bp_bf16_from_f64, bp_bf16_from_i64, bp_f32_from_bf16)
#undef BP_CPP_HALF_TYPE_

// The dtype of a C++ element type.
template <class T> constexpr bp_dtype dtype_of();
template <> constexpr bp_dtype dtype_of<float>() { return BP_FLOAT32; }
template <> constexpr bp_dtype dtype_of<double>() { return BP_FLOAT64; }
template <> constexpr bp_dtype dtype_of<int32_t>() { return BP_INT32; }
template <> constexpr bp_dtype dtype_of<int64_t>() { return BP_INT64; }
template <> constexpr bp_dtype dtype_of<bool>() { return BP_BOOL; }
// (since 1.4)
template <> constexpr bp_dtype dtype_of<float16>() { return BP_FLOAT16; }
template <> constexpr bp_dtype dtype_of<bfloat16>() { return BP_BFLOAT16; }
template <> constexpr bp_dtype dtype_of<int8_t>() { return BP_INT8; }
template <> constexpr bp_dtype dtype_of<uint8_t>() { return BP_UINT8; }
template <> constexpr bp_dtype dtype_of<int16_t>() { return BP_INT16; }

namespace detail {
// The element types dtype_of knows: the T of item<T>() and to_vector<T>().
template <class T>
inline constexpr bool is_element_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                     std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                                     std::is_same_v<T, bool> || std::is_same_v<T, float16> ||
                                     std::is_same_v<T, bfloat16> || std::is_same_v<T, int8_t> ||
                                     std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t>;

// The bp_scalar_kind of a scalar operand's C++ type (since 1.4).
template <class S>
constexpr bp_scalar_kind scalar_kind_of() {
  if constexpr (std::is_same_v<S, bool>) return BP_SCALAR_KIND_BOOL;
  else if constexpr (std::is_integral_v<S>) return BP_SCALAR_KIND_INT;
  else return BP_SCALAR_KIND_FLOAT;
}
// The C++ types a scalar operand may have: arithmetic types and the halves.
template <class S>
inline constexpr bool is_scalar_v =
    std::is_arithmetic_v<S> || std::is_same_v<S, float16> || std::is_same_v<S, bfloat16>;
template <class S> using if_scalar_t = std::enable_if_t<is_scalar_v<S>, int>;
}  // namespace detail

// ---- errors --------------------------------------------------------------

class Error : public std::runtime_error {
 public:
  Error(bp_status status, const std::string &message, std::string op, int32_t input,
        std::vector<bp_device> devices)
      : std::runtime_error(message), status_(status), op_(std::move(op)), input_(input),
        devices_(std::move(devices)) {}
  bp_status status() const { return status_; }
  const std::string &op() const { return op_; }            // "" when not an operator
  int32_t input() const { return input_; }                   // offending input, or -1
  const std::vector<bp_device> &devices() const { return devices_; }  // each input's device

 private:
  bp_status status_;
  std::string op_;
  int32_t input_;
  std::vector<bp_device> devices_;
};

// One exception class per status, each deriving from Error: the status ids of
// BP_STATUS_LIST (vocabulary.h) with the class this header names them by.
#define BP_CPP_ERROR_LIST(X)                        \
  X(ERR_INVALID_ARGUMENT, InvalidArgumentError)     \
  X(ERR_INVALID_HANDLE, InvalidHandleError)         \
  X(ERR_DEVICE_MISMATCH, DeviceMismatchError)       \
  X(ERR_UNKNOWN_DEVICE, UnknownDeviceError)         \
  X(ERR_UNSUPPORTED, UnsupportedError)              \
  X(ERR_SHAPE, ShapeError)                          \
  X(ERR_DTYPE, DtypeError)                          \
  X(ERR_OUT_OF_MEMORY, OutOfMemoryError)            \
  X(ERR_CONFIG, ConfigError)                        \
  X(ERR_PLUGIN, PluginError)                        \
  X(ERR_BACKEND, BackendError)                      \
  X(ERR_STATE, StateError)                          \
  X(ERR_INTERNAL, InternalError)                    \
  X(ERR_INDEX, IndexError)                          \
  X(ERR_PEER, PeerError)                            \
  X(ERR_IO, IoError)                                \
  X(ERR_FORMAT, FormatError)

namespace detail {
// The class thrown for a status: Error unless BP_CPP_ERROR_LIST names one (a
// status this header does not know yet is still an Error).
template <bp_status S> struct error_class { using type = Error; };
template <bp_status S> using error_class_t = typename error_class<S>::type;
}  // namespace detail

#define BP_CPP_ERROR_CLASS_(id, Name)                                   \
  class Name : public Error {                                           \
   public:                                                              \
    using Error::Error;                                                 \
  };                                                                    \
  namespace detail {                                                    \
  template <> struct error_class<BP_##id> { using type = Name; };       \
  }
BP_CPP_ERROR_LIST(BP_CPP_ERROR_CLASS_)
#undef BP_CPP_ERROR_CLASS_

// Throws the calling thread's last error as the matching exception type.
[[noreturn]] inline void throw_last_error(bp_status status) {
  std::string msg = bp_last_error();
  std::string op = bp_last_error_op();
  int32_t input = bp_last_error_input();
  std::vector<bp_device> devices;
  for (int32_t i = 0; i < bp_last_error_device_count(); ++i) devices.push_back(bp_last_error_device(i));
  switch (status) {
#define BP_CPP_THROW_(id, value, doc) \
  case BP_##id: throw detail::error_class_t<BP_##id>(status, msg, op, input, devices);
    BP_STATUS_LIST(BP_CPP_THROW_)
#undef BP_CPP_THROW_
    default: throw Error(status, msg, op, input, devices);
  }
}

inline void check(bp_status status) {
  if (status != BP_OK) throw_last_error(status);
}

// ---- devices -------------------------------------------------------------

class Device {
 public:
  Device() = default;
  explicit Device(bp_device id) : id_(id) {}
  // Resolves "cpu", "opencl:1", "gpu:0", "auto".
  explicit Device(const std::string &name) { check(bp_device_get(name.c_str(), &id_)); }

  bp_device id() const { return id_; }
  std::string name() const {
    const char *n = bp_device_name(id_);
    if (!n) throw_last_error(bp_last_error_status());
    return n;
  }
  bp_device_info info() const {
    bp_device_info i{};
    i.struct_size = sizeof i;
    check(bp_device_info_get(id_, &i));
    return i;
  }
  std::vector<bp_property> properties() const {
    std::vector<bp_property> props(64);
    int32_t n = 0;
    check(bp_device_properties(id_, props.data(), int32_t(props.size()), &n));
    props.resize(size_t(n < int32_t(props.size()) ? n : int32_t(props.size())));
    return props;
  }
  void synchronize() const { check(bp_synchronize(id_)); }

  friend bool operator==(Device a, Device b) { return a.id_ == b.id_; }
  friend bool operator!=(Device a, Device b) { return a.id_ != b.id_; }

 private:
  bp_device id_ = -1;
};

inline Device cpu() {
  bp_device d;
  check(bp_cpu(&d));
  return Device(d);
}
inline Device gpu(int32_t i = 0) {
  bp_device d;
  check(bp_gpu(i, &d));
  return Device(d);
}
inline int32_t num_gpus() { return bp_num_gpus(); }
inline Device try_gpu(int32_t i = 0) {
  bp_device d;
  check(bp_try_gpu(i, &d));
  return Device(d);
}
namespace detail {
// A device list from a C function of the (out, capacity, count) kind: asked
// once for the count, then for the ids; the second answer's count is the
// one kept.
inline std::vector<Device> device_list(bp_status (*list)(bp_device *, int32_t, int32_t *)) {
  int32_t n = 0;
  check(list(nullptr, 0, &n));
  std::vector<bp_device> ids(static_cast<size_t>(n));
  check(list(ids.data(), n, &n));
  return std::vector<Device>(ids.begin(), ids.begin() + n);
}
}  // namespace detail
inline std::vector<Device> try_all_gpus() { return detail::device_list(bp_try_all_gpus); }
inline std::vector<Device> devices() { return detail::device_list(bp_devices); }
inline Device default_device() {
  bp_device d;
  check(bp_default_device(&d));
  return Device(d);
}

// ---- tensors -------------------------------------------------------------

class Index;

class Tensor {
 public:
  Tensor() = default;
  // Takes ownership of a handle the C API returned.
  static Tensor adopt(bp_tensor h) {
    Tensor t;
    t.h_ = h;
    return t;
  }
  Tensor(const Tensor &o) : h_(o.h_) {
    if (h_) check(bp_tensor_retain(h_));
  }
  Tensor(Tensor &&o) noexcept : h_(std::exchange(o.h_, BP_NO_TENSOR)) {}
  Tensor &operator=(Tensor o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Tensor() {
    if (h_) bp_tensor_release(h_);
  }

  bp_tensor handle() const { return h_; }
  // Whether this Tensor holds a handle: false when default-constructed or
  // moved from. (since 1.1; before, operator bool tested this)
  bool defined() const noexcept { return h_ != BP_NO_TENSOR; }
  // The truth value of the single element, as bool(x) is in C++ (nonzero is
  // true, NaN too), so `if (a == b)` asks whether two one-element tensors are
  // equal. Waits for pending work and reads the element to the host. Throws
  // ShapeError for any other number of elements (all() or any() reduce a
  // comparison to one) and InvalidHandleError when !defined().
  // (changed in 1.1: it tested the handle, and `if (a == b)` was always true)
  explicit operator bool() const;
  // Same handle (bp_to returns the tensor itself when it is already there).
  bool is(const Tensor &o) const { return h_ == o.h_; }

  Device device() const {
    bp_device d;
    check(bp_tensor_device(h_, &d));
    return Device(d);
  }
  bp_dtype dtype() const {
    int32_t d;
    check(bp_tensor_dtype(h_, &d));
    return static_cast<bp_dtype>(d);
  }
  int32_t rank() const {
    int32_t r;
    check(bp_tensor_rank(h_, &r));
    return r;
  }
  Shape shape() const {
    Shape s(static_cast<size_t>(rank()));
    check(bp_tensor_shape(h_, s.data()));
    return s;
  }
  Shape strides() const {
    Shape s(static_cast<size_t>(rank()));
    check(bp_tensor_strides(h_, s.data()));
    return s;
  }
  int64_t numel() const {
    int64_t n;
    check(bp_tensor_numel(h_, &n));
    return n;
  }
  bool is_contiguous() const {
    int32_t c;
    check(bp_tensor_is_contiguous(h_, &c));
    return c != 0;
  }
  void wait() const { check(bp_tensor_wait(h_)); }

  // Elements in C order (waits for pending work). T must match dtype():
  // bp::float16 and bp::bfloat16 for the halves (they convert to float).
  template <class T>
  std::vector<T> to_vector() const {
    using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
    if (dtype() != dtype_of<T>())
      throw DtypeError(BP_ERR_DTYPE, std::string("to_vector: the tensor is ") + bp_dtype_name(dtype()), "", -1, {});
    std::vector<Stored> host(static_cast<size_t>(numel()));
    check(bp_to_host(h_, host.data(), host.size() * sizeof(Stored)));
    return std::vector<T>(host.begin(), host.end());
  }
  // The single element of a one-element tensor of any shape ({}, {1},
  // {1, 1}, ...) as T, one of float, double, int32_t, int64_t, bool (and
  // since 1.4 int8_t, uint8_t, int16_t, bp::float16, bp::bfloat16); another
  // dtype converts as astype() does. Waits for pending work. Throws
  // ShapeError, naming the count and shape, for any other number of elements.
  // (item() as double since 1.0, item<T>() since 1.1)
  template <class T = double>
  T item() const {
    static_assert(detail::is_element_v<T>,
                  "item<T>: T must be float, double, int32_t, int64_t or bool, or int8_t, uint8_t, "
                  "int16_t, bp::float16, bp::bfloat16");
    const int64_t n = numel();
    if (n != 1) {
      std::string shape;
      for (int64_t s : this->shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(s);
      throw ShapeError(BP_ERR_SHAPE, "item: the tensor has " + std::to_string(n) + " elements (shape [" + shape +
                                         "]); item() needs exactly one", "", -1, {});
    }
    const Tensor same = dtype() == dtype_of<T>() ? *this : astype(dtype_of<T>());
    return same.to_vector<T>()[0];
  }

  Tensor copy_to(Device d) const { return wrap([&](bp_tensor *o) { return bp_copy_to(h_, d.id(), o); }); }
  Tensor to(Device d) const { return wrap([&](bp_tensor *o) { return bp_to(h_, d.id(), o); }); }
  Tensor astype(bp_dtype t) const { return wrap([&](bp_tensor *o) { return bp_cast(h_, t, o); }); }
  Tensor reshape(const Shape &s) const {
    return wrap([&](bp_tensor *o) { return bp_reshape(h_, int32_t(s.size()), s.data(), o); });
  }
  Tensor T() const { return wrap([&](bp_tensor *o) { return bp_transpose(h_, o); }); }
  Tensor permute(const std::vector<int32_t> &axes) const {
    return wrap([&](bp_tensor *o) { return bp_permute(h_, axes.data(), o); });
  }
  Tensor slice(int32_t axis, int64_t start, int64_t stop, int64_t step = 1) const {
    return wrap([&](bp_tensor *o) { return bp_slice(h_, axis, start, stop, step, o); });
  }
  Tensor operator[](int64_t i) const { return wrap([&](bp_tensor *o) { return bp_select(h_, 0, i, o); }); }
  Tensor contiguous() const { return wrap([&](bp_tensor *o) { return bp_contiguous(h_, o); }); }
  // A view with a new axis of extent 1 (NumPy's expand_dims, t[None]) (since 1.1).
  Tensor expand_dims(int32_t axis) const {
    return wrap([&](bp_tensor *o) { return bp_expand_dims(h_, axis, o); });
  }

  Tensor unary(bp_op op) const { return wrap([&](bp_tensor *o) { return bp_unary(op, h_, o); }); }
  Tensor exp() const { return unary(BP_OP_EXP); }
  Tensor log() const { return unary(BP_OP_LOG); }
  Tensor sqrt() const { return unary(BP_OP_SQRT); }
  Tensor tanh() const { return unary(BP_OP_TANH); }
  Tensor sigmoid() const { return unary(BP_OP_SIGMOID); }
  Tensor relu() const { return unary(BP_OP_RELU); }
  Tensor abs() const { return unary(BP_OP_ABS); }
  Tensor square() const { return unary(BP_OP_SQUARE); }  // (since 1.1)
  Tensor sin() const { return unary(BP_OP_SIN); }        // (since 1.1)
  Tensor cos() const { return unary(BP_OP_COS); }        // (since 1.1)
  Tensor erf() const { return unary(BP_OP_ERF); }        // (since 1.5)
  Tensor expm1() const { return unary(BP_OP_EXPM1); }    // (since 1.5)
  Tensor log1p() const { return unary(BP_OP_LOG1P); }    // (since 1.5)
  Tensor rsqrt() const { return unary(BP_OP_RSQRT); }    // (since 1.5)
  Tensor floor() const { return unary(BP_OP_FLOOR); }    // (since 1.5)
  Tensor ceil() const { return unary(BP_OP_CEIL); }      // (since 1.5)
  Tensor round() const { return unary(BP_OP_ROUND); }    // (since 1.5): half to even
  Tensor sign() const { return unary(BP_OP_SIGN); }      // (since 1.5)
  Tensor bitwise_not() const { return unary(BP_OP_BITWISE_NOT); }  // (since 1.1)
  Tensor isnan() const { return unary(BP_OP_ISNAN); }    // (since 1.6): bool
  Tensor isinf() const { return unary(BP_OP_ISINF); }    // (since 1.6): bool

  Tensor reduce(bp_op op, int32_t axis = BP_AXIS_ALL, bool keepdims = false) const {
    return wrap([&](bp_tensor *o) { return bp_reduce(op, h_, axis, keepdims, o); });
  }
  Tensor sum(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_SUM, axis, keepdims); }
  Tensor mean(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_MEAN, axis, keepdims); }
  Tensor max(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_MAX, axis, keepdims); }
  Tensor min(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_MIN, axis, keepdims); }
  Tensor argmax(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_ARGMAX, axis, keepdims); }
  // (prod and argmin since 1.1)
  Tensor prod(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_PROD, axis, keepdims); }
  Tensor argmin(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const { return reduce(BP_OP_ARGMIN, axis, keepdims); }
  Tensor norm() const { return reduce(BP_OP_NORM); }
  // Over a set of axes (bp_reduce_axes; negative ones count from the end)
  // (since 1.5): x.sum({0, 2}).
  Tensor reduce(bp_op op, const std::vector<int32_t> &axes, bool keepdims = false) const {
    return wrap([&](bp_tensor *o) {
      return bp_reduce_axes(op, h_, axes.data(), int32_t(axes.size()), keepdims, o);
    });
  }
  Tensor sum(const std::vector<int32_t> &axes, bool keepdims = false) const { return reduce(BP_OP_SUM, axes, keepdims); }
  Tensor mean(const std::vector<int32_t> &axes, bool keepdims = false) const { return reduce(BP_OP_MEAN, axes, keepdims); }
  Tensor max(const std::vector<int32_t> &axes, bool keepdims = false) const { return reduce(BP_OP_MAX, axes, keepdims); }
  Tensor min(const std::vector<int32_t> &axes, bool keepdims = false) const { return reduce(BP_OP_MIN, axes, keepdims); }
  Tensor prod(const std::vector<int32_t> &axes, bool keepdims = false) const { return reduce(BP_OP_PROD, axes, keepdims); }
  // log(sum(exp(x))) without overflow; integers give float64 (since 1.1).
  Tensor logsumexp(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const {
    return reduce(BP_OP_LOGSUMEXP, axis, keepdims);
  }
  // Running sums along axis; BP_AXIS_ALL: along the flattened tensor (since 1.1).
  Tensor cumsum(int32_t axis = BP_AXIS_ALL) const {
    return wrap([&](bp_tensor *o) { return bp_scan(BP_OP_CUMSUM, h_, axis, o); });
  }
  // Indexing by data (bp_gather_nd, bp_scatter_nd, bp_scatter_add_nd,
  // bp_nonzero) (since 1.1): rows of `index` [..., k] name sub-tensors by
  // their first k indices.
  Tensor gather_nd(const Tensor &index) const {
    return wrap([&](bp_tensor *o) { return bp_gather_nd(h_, index.h_, o); });
  }
  void scatter_nd(const Tensor &index, const Tensor &values) const {
    check(bp_scatter_nd(h_, index.h_, values.h_));
  }
  // Adds instead of writing; repeated rows all add (np.add.at).
  void scatter_add_nd(const Tensor &index, const Tensor &values) const {
    check(bp_scatter_add_nd(h_, index.h_, values.h_));
  }
  // NumPy's indexing (bp_index, bp_index_put, bp_index_put_into) (since
  // 1.5): x.index({1, bp::Slice{std::nullopt, std::nullopt, -1}, bp::newaxis,
  // bp::ellipsis, mask}) is x[1, ::-1, None, ..., mask]. index_put gives a
  // new tensor (recorded for autograd, torch.index_put); index_put_ writes
  // into this one (x[key] = values, torch's index_put_).
  Tensor index(const std::vector<Index> &key) const;
  Tensor index_put(const std::vector<Index> &key, const Tensor &values, bool accumulate = false) const;
  void index_put_(const std::vector<Index> &key, const Tensor &values, bool accumulate = false) const;
  // int64 [count, rank]: where the nonzero elements are, in C order.
  Tensor nonzero() const { return wrap([&](bp_tensor *o) { return bp_nonzero(h_, o); }); }
  // Composites (since 1.1): infinite bounds mean none; ddof as NumPy's.
  Tensor clip(double low, double high) const {
    return wrap([&](bp_tensor *o) { return bp_clip(h_, low, high, o); });
  }
  Tensor var(int32_t axis = BP_AXIS_ALL, bool keepdims = false, double ddof = 0) const {
    return wrap([&](bp_tensor *o) { return bp_var(h_, axis, keepdims, ddof, o); });
  }
  Tensor std(int32_t axis = BP_AXIS_ALL, bool keepdims = false, double ddof = 0) const {
    return wrap([&](bp_tensor *o) { return bp_std(h_, axis, keepdims, ddof, o); });
  }
  // The SOFTMAX operators along axis (an operator each since 1.6).
  Tensor softmax(int32_t axis = -1) const {
    return wrap([&](bp_tensor *o) { return bp_softmax(h_, axis, o); });
  }
  Tensor log_softmax(int32_t axis = -1) const {
    return wrap([&](bp_tensor *o) { return bp_log_softmax(h_, axis, o); });
  }
  // Sorting and top-k along an axis (bp_topk, bp_sort, bp_argsort; since
  // 1.6), as torch.topk, torch.sort and torch.argsort: the values and their
  // int64 positions (auto [values, indices] = x.topk(3)), always stable, NaN
  // ordered as NumPy's sort orders it (first with largest).
  struct ValuesIndices;
  ValuesIndices topk(int64_t k, int32_t axis = -1, bool largest = true) const;
  ValuesIndices sort(int32_t axis = -1, bool descending = false) const;
  Tensor argsort(int32_t axis = -1, bool descending = false) const {
    return wrap([&](bp_tensor *o) { return bp_argsort(h_, axis, descending, o); });
  }
  // Whether every element (all) or some element (any) is nonzero, along one
  // axis or all of them, as a bool tensor: `if ((a == b).all())`. (since 1.1)
  Tensor all(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const;
  Tensor any(int32_t axis = BP_AXIS_ALL, bool keepdims = false) const;

  // Writes src (broadcast, converted) into this tensor or view.
  void assign(const Tensor &src) const { check(bp_assign(h_, src.h_)); }

  // ---- gradients (since 1.1; backplane/autograd.h) ----
  // Marks this leaf as requiring gradients (a float tensor), like PyTorch's
  // requires_grad_(); returns the tensor (by value: a temporary stays safe).
  Tensor requires_grad_(bool on = true) const {
    check(bp_tensor_set_requires_grad(h_, on));
    return *this;
  }
  bool requires_grad() const {
    int32_t r = 0;
    check(bp_tensor_requires_grad(h_, &r));
    return r != 0;
  }
  bool is_leaf() const {
    int32_t r = 0;
    check(bp_tensor_is_leaf(h_, &r));
    return r != 0;
  }
  // The accumulated gradient of a leaf; an undefined Tensor when none yet.
  Tensor grad() const {
    bp_tensor g = BP_NO_TENSOR;
    check(bp_tensor_grad(h_, &g));
    return adopt(g);
  }
  void clear_grad() const { check(bp_tensor_clear_grad(h_)); }
  // d(this)/d(leaves) added into the leaves; `grad` is d(loss)/d(this), not
  // needed for one element (an undefined Tensor then).
  void backward() const { check(bp_backward(h_, BP_NO_TENSOR, 0)); }
  void backward(const Tensor &grad, bool retain_graph = false) const {
    check(bp_backward(h_, grad.h_, retain_graph));
  }
  // The same elements, recording nothing and needing no gradient.
  Tensor detach() const { return wrap([&](bp_tensor *o) { return bp_detach(h_, o); }); }

  template <class Call>
  static Tensor wrap(Call &&call) {
    bp_tensor out = BP_NO_TENSOR;
    check(call(&out));
    return adopt(out);
  }

 private:
  bp_tensor h_ = BP_NO_TENSOR;
};

// Turns recording off for its scope on this thread (PyTorch's torch::NoGradGuard)
// (since 1.1).
class NoGradGuard {
 public:
  NoGradGuard() { check(bp_grad_set_enabled(0, &previous_)); }
  ~NoGradGuard() { bp_grad_set_enabled(previous_, nullptr); }
  NoGradGuard(const NoGradGuard &) = delete;
  NoGradGuard &operator=(const NoGradGuard &) = delete;

 private:
  int32_t previous_ = 1;
};

// ---- creation ------------------------------------------------------------

inline Tensor empty(const Shape &s, bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_empty(d.id(), t, int32_t(s.size()), s.data(), o); });
}
inline Tensor full(const Shape &s, double v, bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_full(d.id(), t, int32_t(s.size()), s.data(), v, o); });
}
inline Tensor zeros(const Shape &s, bp_dtype t = f32, Device d = default_device()) { return full(s, 0.0, t, d); }
inline Tensor ones(const Shape &s, bp_dtype t = f32, Device d = default_device()) { return full(s, 1.0, t, d); }
inline Tensor arange(double start, double stop, double step = 1, bp_dtype t = f32,
                     Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_arange(d.id(), t, start, stop, step, o); });
}
inline Tensor random_uniform(const Shape &s, double low, double high, uint64_t seed,
                             bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_random_uniform(d.id(), t, int32_t(s.size()), s.data(), low, high, seed, o);
  });
}
inline Tensor random_normal(const Shape &s, double mean, double stddev, uint64_t seed,
                            bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_random_normal(d.id(), t, int32_t(s.size()), s.data(), mean, stddev, seed, o);
  });
}
// A tensor holding a copy of host values in C order.
template <class T>
Tensor from_vector(const std::vector<T> &values, const Shape &s, Device d = default_device()) {
  using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  std::vector<Stored> host(values.begin(), values.end());
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_from_host(d.id(), dtype_of<T>(), int32_t(s.size()), s.data(), host.data(), o);
  });
}

// ---- operators -----------------------------------------------------------

inline Tensor binary(bp_op op, const Tensor &a, const Tensor &b) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_binary(op, a.handle(), b.handle(), o); });
}
// op(a, s), or op(s, a) when scalar_is_lhs, by bp_binary_scalar's 1.0 rule,
// which is value-based: an integral s keeps an integer tensor's dtype.
inline Tensor binary(bp_op op, const Tensor &a, double s, bool scalar_is_lhs = false) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_binary_scalar(op, a.handle(), s, scalar_is_lhs, o); });
}
// The same with the scalar's kind given: the dtype follows the kind, never
// the value (since 1.4).
inline Tensor binary(bp_op op, const Tensor &a, double s, bp_scalar_kind kind, bool scalar_is_lhs = false) {
  return Tensor::wrap(
      [&](bp_tensor *o) { return bp_binary_scalar_kind(op, a.handle(), s, kind, scalar_is_lhs, o); });
}

namespace detail {
// op with a scalar of any C++ number type, of the kind its type is.
template <class S>
Tensor binary_with(bp_op op, const Tensor &a, S s, bool scalar_is_lhs = false) {
  return binary(op, a, double(s), scalar_kind_of<S>(), scalar_is_lhs);
}
}  // namespace detail

// The operators with a scalar pass its kind, from its C++ type: a double is
// FLOAT, so int_tensor + 2.0 is float64 and int_tensor + 2 stays int.
// (since 1.4; before, a scalar followed bp_binary_scalar's value-based rule)
#define BP_CPP_BINARY_OPERATOR(sym, OP)                                                         \
  inline Tensor operator sym(const Tensor &a, const Tensor &b) { return binary(OP, a, b); }     \
  template <class S, detail::if_scalar_t<S> = 0>                                                \
  Tensor operator sym(const Tensor &a, S s) { return detail::binary_with(OP, a, s); }           \
  template <class S, detail::if_scalar_t<S> = 0>                                                \
  Tensor operator sym(S s, const Tensor &a) { return detail::binary_with(OP, a, s, true); }
BP_CPP_BINARY_OPERATOR(+, BP_OP_ADD)
BP_CPP_BINARY_OPERATOR(-, BP_OP_SUB)
BP_CPP_BINARY_OPERATOR(*, BP_OP_MUL)
BP_CPP_BINARY_OPERATOR(/, BP_OP_DIV)
// Python's %: the remainder takes the divisor's sign (since 1.1).
BP_CPP_BINARY_OPERATOR(%, BP_OP_REMAINDER)
// Bitwise on integer and bool tensors; logical on bool (since 1.1).
BP_CPP_BINARY_OPERATOR(&, BP_OP_BITWISE_AND)
BP_CPP_BINARY_OPERATOR(|, BP_OP_BITWISE_OR)
BP_CPP_BINARY_OPERATOR(^, BP_OP_BITWISE_XOR)
BP_CPP_BINARY_OPERATOR(==, BP_OP_EQ)
BP_CPP_BINARY_OPERATOR(!=, BP_OP_NE)
BP_CPP_BINARY_OPERATOR(<, BP_OP_LT)
BP_CPP_BINARY_OPERATOR(<=, BP_OP_LE)
BP_CPP_BINARY_OPERATOR(>, BP_OP_GT)
BP_CPP_BINARY_OPERATOR(>=, BP_OP_GE)
#undef BP_CPP_BINARY_OPERATOR

inline Tensor operator-(const Tensor &a) { return a.unary(BP_OP_NEG); }
inline Tensor operator~(const Tensor &a) { return a.unary(BP_OP_BITWISE_NOT); }  // (since 1.1)
inline Tensor pow(const Tensor &a, const Tensor &b) { return binary(BP_OP_POW, a, b); }
template <class S, detail::if_scalar_t<S> = 0>
Tensor pow(const Tensor &a, S e) { return detail::binary_with(BP_OP_POW, a, e); }
inline Tensor maximum(const Tensor &a, const Tensor &b) { return binary(BP_OP_MAXIMUM, a, b); }
inline Tensor minimum(const Tensor &a, const Tensor &b) { return binary(BP_OP_MINIMUM, a, b); }
// Python's //: the quotient rounded toward -inf (since 1.1).
inline Tensor floor_divide(const Tensor &a, const Tensor &b) { return binary(BP_OP_FLOOR_DIVIDE, a, b); }
template <class S, detail::if_scalar_t<S> = 0>
Tensor floor_divide(const Tensor &a, S s) { return detail::binary_with(BP_OP_FLOOR_DIVIDE, a, s); }
inline Tensor where(const Tensor &c, const Tensor &a, const Tensor &b) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_where(c.handle(), a.handle(), b.handle(), o); });
}
// A number on one side: its C++ type's kind decides the dtype, as for the
// operators (bp_where_scalar) (since 1.5).
template <class S, detail::if_scalar_t<S> = 0>
Tensor where(const Tensor &c, const Tensor &a, S b) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_where_scalar(c.handle(), a.handle(), double(b), detail::scalar_kind_of<S>(), 0, o);
  });
}
template <class S, detail::if_scalar_t<S> = 0>
Tensor where(const Tensor &c, S a, const Tensor &b) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_where_scalar(c.handle(), b.handle(), double(a), detail::scalar_kind_of<S>(), 1, o);
  });
}
inline Tensor matmul(const Tensor &a, const Tensor &b, bool transpose_a = false, bool transpose_b = false) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_matmul(a.handle(), b.handle(), transpose_a, transpose_b, o); });
}
inline Tensor norm(const Tensor &a) { return a.norm(); }

// ---- convolution (since 1.6) ----------------------------------------------

// The window of conv and conv_transpose (bp_conv_options), per spatial
// axis; a list of one value stands for every axis (PyTorch's int form).
// padding pads both sides; padding_end, when given, replaces it after the
// input's end (asymmetric padding, PyTorch's padding='same' with an even
// dilated kernel).
struct ConvOptions {
  std::vector<int64_t> stride{1}, padding{0}, padding_end, dilation{1}, output_padding{0};
  int32_t groups = 1;
};

namespace detail {
inline int64_t conv_axis(const std::vector<int64_t> &v, size_t i, int64_t otherwise) {
  if (v.empty()) return otherwise;
  return v.size() == 1 ? v[0] : i < v.size() ? v[i] : otherwise;
}
inline bp_conv_options conv_options(const ConvOptions &o) {
  bp_conv_options c = BP_CONV_OPTIONS_INIT;
  c.groups = o.groups;
  for (size_t i = 0; i < BP_CONV_MAX_RANK; ++i) {
    c.stride[i] = conv_axis(o.stride, i, 1);
    c.padding_begin[i] = conv_axis(o.padding, i, 0);
    c.padding_end[i] = conv_axis(o.padding_end, i, c.padding_begin[i]);
    c.dilation[i] = conv_axis(o.dilation, i, 1);
    c.output_padding[i] = conv_axis(o.output_padding, i, 0);
  }
  return c;
}
}  // namespace detail

// PyTorch's conv1d/2d/3d: x [N, C_in, S...], weight [C_out, C_in / groups,
// K...], bias [C_out] or undefined (backplane.h, bp_conv).
inline Tensor conv(const Tensor &x, const Tensor &weight, const Tensor &bias = Tensor(),
                   const ConvOptions &options = {}) {
  const bp_conv_options o = detail::conv_options(options);
  return Tensor::wrap([&](bp_tensor *out) { return bp_conv(x.handle(), weight.handle(), bias.handle(), &o, out); });
}
// PyTorch's conv_transpose1d/2d/3d (bp_conv_transpose): weight [C_out,
// C_in / groups, K...] with x's channels C_out, bias [C_in] or undefined.
inline Tensor conv_transpose(const Tensor &x, const Tensor &weight, const Tensor &bias = Tensor(),
                             const ConvOptions &options = {}) {
  const bp_conv_options o = detail::conv_options(options);
  return Tensor::wrap(
      [&](bp_tensor *out) { return bp_conv_transpose(x.handle(), weight.handle(), bias.handle(), &o, out); });
}

// ---- composites (since 1.1) ------------------------------------------------

namespace detail {
// The C API's arrays of handles and index keys: get(x) for each x of v.
template <class T, class Get>
auto c_array(const std::vector<T> &v, Get get) {
  std::vector<std::decay_t<decltype(get(v.front()))>> out;
  for (const T &x : v) out.push_back(get(x));
  return out;
}
inline std::vector<bp_tensor> handles_of(const std::vector<Tensor> &ts) {
  return c_array(ts, [](const Tensor &t) { return t.handle(); });
}
}  // namespace detail

inline Tensor concatenate(const std::vector<Tensor> &ts, int32_t axis = 0) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  return Tensor::wrap([&](bp_tensor *o) { return bp_concatenate(hs.data(), int32_t(hs.size()), axis, o); });
}
inline Tensor stack(const std::vector<Tensor> &ts, int32_t axis = 0) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  return Tensor::wrap([&](bp_tensor *o) { return bp_stack(hs.data(), int32_t(hs.size()), axis, o); });
}
// ---- collectives (since 1.2; backplane/collectives.h) ----------------------

// How all_reduce and reduce_scatter combine.
enum class Reduce : int32_t { sum = BP_REDUCE_SUM, mean = BP_REDUCE_MEAN, max = BP_REDUCE_MAX, min = BP_REDUCE_MIN };

namespace detail {
inline std::vector<Tensor> adopt_all(const std::vector<bp_tensor> &hs) {
  std::vector<Tensor> ts;
  for (bp_tensor h : hs) ts.push_back(Tensor::adopt(h));
  return ts;
}
}  // namespace detail

// Across the devices of this process, one tensor per device.
inline void all_reduce(const std::vector<Tensor> &ts, Reduce op = Reduce::sum) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  check(bp_all_reduce(hs.data(), int32_t(hs.size()), int32_t(op)));
}
inline void broadcast(const std::vector<Tensor> &ts, int32_t root = 0) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  check(bp_broadcast(hs.data(), int32_t(hs.size()), root));
}
inline std::vector<Tensor> all_gather(const std::vector<Tensor> &ts) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  std::vector<bp_tensor> out(hs.size(), BP_NO_TENSOR);
  check(bp_all_gather(hs.data(), int32_t(hs.size()), out.data()));
  return detail::adopt_all(out);
}
inline std::vector<Tensor> reduce_scatter(const std::vector<Tensor> &ts, Reduce op = Reduce::sum) {
  const std::vector<bp_tensor> hs = detail::handles_of(ts);
  std::vector<bp_tensor> out(hs.size(), BP_NO_TENSOR);
  check(bp_reduce_scatter(hs.data(), int32_t(hs.size()), int32_t(op), out.data()));
  return detail::adopt_all(out);
}

// Across the processes of an MPI launch, one tensor per process.
namespace dist {
inline void init(double timeout_seconds = 0) {
  bp_dist_options o{};
  o.struct_size = sizeof o;
  o.timeout_seconds = timeout_seconds;
  check(bp_dist_init(&o));
}
inline void finalize() { check(bp_dist_finalize()); }
inline int32_t rank() { int32_t r = 0; check(bp_dist_rank(&r)); return r; }
inline int32_t size() { int32_t n = 0; check(bp_dist_size(&n)); return n; }
inline int32_t local_rank() { int32_t r = 0; check(bp_dist_local_rank(&r)); return r; }
inline int32_t local_size() { int32_t n = 0; check(bp_dist_local_size(&n)); return n; }
inline void all_reduce(const Tensor &t, Reduce op = Reduce::sum) { check(bp_dist_all_reduce(t.handle(), int32_t(op))); }
inline void broadcast(const Tensor &t, int32_t root = 0) { check(bp_dist_broadcast(t.handle(), root)); }
inline Tensor all_gather(const Tensor &t) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_dist_all_gather(t.handle(), o); });
}
inline Tensor reduce_scatter(const Tensor &t, Reduce op = Reduce::sum) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_dist_reduce_scatter(t.handle(), int32_t(op), o); });
}
inline void barrier() { check(bp_dist_barrier()); }
}  // namespace dist

inline Tensor eye(int64_t n, int64_t m = -1, int64_t k = 0, bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_eye(d.id(), t, n, m < 0 ? n : m, k, o); });
}
inline Tensor linspace(double start, double stop, int64_t num = 50, bool endpoint = true,
                       bp_dtype t = f32, Device d = default_device()) {
  return Tensor::wrap([&](bp_tensor *o) { return bp_linspace(d.id(), t, start, stop, num, endpoint, o); });
}
inline Tensor clip(const Tensor &a, double low, double high) { return a.clip(low, high); }
inline Tensor softmax(const Tensor &a, int32_t axis = -1) { return a.softmax(axis); }
inline Tensor log_softmax(const Tensor &a, int32_t axis = -1) { return a.log_softmax(axis); }

// ---- normalisation (since 1.6; backplane.h) --------------------------------
// An undefined Tensor for weight, bias or a running statistic is none.

// The variance over a set of axes at once, divided by their count less
// `correction` (PyTorch's; 1 is the sample variance).
inline Tensor var(const Tensor &a, const std::vector<int32_t> &axes, int64_t correction = 1, bool keepdims = false) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_var_axes(a.handle(), axes.data(), int32_t(axes.size()), keepdims, double(correction), o);
  });
}
// torch::layer_norm over the last `axes` axes (its normalized_shape's length).
inline Tensor layer_norm(const Tensor &x, int32_t axes, const Tensor &weight = {}, const Tensor &bias = {},
                         double eps = 1e-5) {
  return Tensor::wrap(
      [&](bp_tensor *o) { return bp_layer_norm(x.handle(), weight.handle(), bias.handle(), axes, eps, o, nullptr, nullptr); });
}
// RMS normalisation over the last `axes` axes: x / sqrt(mean(x^2) + eps) * weight + bias.
inline Tensor rms_norm(const Tensor &x, int32_t axes, const Tensor &weight = {}, double eps = 1.1920928955078125e-07,
                       const Tensor &bias = {}) {
  return Tensor::wrap(
      [&](bp_tensor *o) { return bp_rms_norm(x.handle(), weight.handle(), bias.handle(), axes, eps, o, nullptr); });
}
// torch::group_norm of x [N, C, ...] in `groups` groups of channels.
inline Tensor group_norm(const Tensor &x, int64_t groups, const Tensor &weight = {}, const Tensor &bias = {},
                         double eps = 1e-5) {
  return Tensor::wrap(
      [&](bp_tensor *o) { return bp_group_norm(x.handle(), groups, weight.handle(), bias.handle(), eps, o); });
}
// torch::batch_norm of x [N, C, ...]: in training the batch's statistics
// (the running ones, when defined, updated in place with momentum), else
// the running statistics.
inline Tensor batch_norm(const Tensor &x, const Tensor &running_mean, const Tensor &running_var,
                         const Tensor &weight = {}, const Tensor &bias = {}, bool training = false,
                         double momentum = 0.1, double eps = 1e-5) {
  return Tensor::wrap([&](bp_tensor *o) {
    return bp_batch_norm(x.handle(), running_mean.handle(), running_var.handle(), weight.handle(), bias.handle(),
                         training, momentum, eps, o);
  });
}
inline bool allclose(const Tensor &a, const Tensor &b, double rtol = 1e-5, double atol = 1e-8,
                     bool equal_nan = false) {
  int32_t result = 0;
  check(bp_allclose(a.handle(), b.handle(), rtol, atol, equal_nan, &result));
  return result != 0;
}

// ---- attention (since 1.6) ------------------------------------------------

// bp_attention's options: an undefined mask is none; a bool mask's true
// takes part, a float one is added to the scores.
struct AttentionOptions {
  Tensor mask;
  bool causal = false;
  double scale = 0;  // 0: 1 / sqrt(D)
  double dropout = 0;
  uint64_t seed = 0;
};

// softmax(q k^T * scale + mask) v over q [B..., Lq, D], k [B..., Lk, D],
// v [B..., Lk, Dv] (backplane.h: bp_attention).
inline Tensor attention(const Tensor &q, const Tensor &k, const Tensor &v, const AttentionOptions &options = {}) {
  bp_attention_options o{};
  o.struct_size = sizeof o;
  o.causal = options.causal;
  o.mask = options.mask.defined() ? options.mask.handle() : BP_NO_TENSOR;
  o.scale = options.scale;
  o.dropout = options.dropout;
  o.seed = options.seed;
  return Tensor::wrap([&](bp_tensor *out) { return bp_attention(q.handle(), k.handle(), v.handle(), &o, out); });
}

// _out forms: write into an existing tensor, allocate nothing.
inline void binary_out(bp_op op, const Tensor &a, const Tensor &b, const Tensor &out) {
  check(bp_binary_out(op, a.handle(), b.handle(), out.handle()));
}
inline void matmul_out(const Tensor &a, const Tensor &b, const Tensor &out) {
  check(bp_matmul_out(a.handle(), b.handle(), 0, 0, out.handle()));
}
inline void norm_out(const Tensor &a, const Tensor &out) { check(bp_norm_out(a.handle(), out.handle())); }

// ---- indexing (since 1.5) ------------------------------------------------

// start:stop:step of one axis; an absent bound takes Python's default.
struct Slice {
  Slice(std::optional<int64_t> start_ = std::nullopt, std::optional<int64_t> stop_ = std::nullopt,
        std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_) {}
  std::optional<int64_t> start, stop, step;
};
struct NewAxis {};
inline constexpr NewAxis newaxis{};  // NumPy's None
struct Ellipsis {};
inline constexpr Ellipsis ellipsis{};  // NumPy's ...

// One entry of a key (a bp_index_key); it holds its tensor for as long as
// the key lives.
class Index {
 public:
  Index(int64_t i) { k_.kind = BP_INDEX_INT, k_.index = i; }
  Index(int i) : Index(int64_t(i)) {}
  // A bool is no position (NumPy reads True as a mask): use a bool tensor.
  Index(bool) = delete;
  Index(const Slice &s) {
    k_.kind = BP_INDEX_SLICE;
    if (s.start) k_.given |= BP_INDEX_HAS_START, k_.start = *s.start;
    if (s.stop) k_.given |= BP_INDEX_HAS_STOP, k_.stop = *s.stop;
    if (s.step) k_.given |= BP_INDEX_HAS_STEP, k_.step = *s.step;
  }
  Index(NewAxis) { k_.kind = BP_INDEX_NEWAXIS; }
  Index(Ellipsis) { k_.kind = BP_INDEX_ELLIPSIS; }
  Index(Tensor t) : t_(std::move(t)) { k_.kind = BP_INDEX_TENSOR, k_.tensor = t_.handle(); }
  const bp_index_key &key() const { return k_; }

 private:
  bp_index_key k_{};
  Tensor t_;
};

namespace detail {
inline std::vector<bp_index_key> keys_of(const std::vector<Index> &key) {
  return c_array(key, [](const Index &i) { return i.key(); });
}
}  // namespace detail

inline Tensor Tensor::index(const std::vector<Index> &key) const {
  const std::vector<bp_index_key> keys = detail::keys_of(key);
  return wrap([&](bp_tensor *o) { return bp_index(h_, keys.data(), int32_t(keys.size()), o); });
}
inline Tensor Tensor::index_put(const std::vector<Index> &key, const Tensor &values, bool accumulate) const {
  const std::vector<bp_index_key> keys = detail::keys_of(key);
  return wrap([&](bp_tensor *o) {
    return bp_index_put(h_, keys.data(), int32_t(keys.size()), values.h_, accumulate, o);
  });
}
inline void Tensor::index_put_(const std::vector<Index> &key, const Tensor &values, bool accumulate) const {
  const std::vector<bp_index_key> keys = detail::keys_of(key);
  check(bp_index_put_into(h_, keys.data(), int32_t(keys.size()), values.h_, accumulate));
}

// ---- sorting and top-k (since 1.6) ----------------------------------------

struct Tensor::ValuesIndices {
  Tensor values, indices;
};

inline Tensor::ValuesIndices Tensor::topk(int64_t k, int32_t axis, bool largest) const {
  bp_tensor v = BP_NO_TENSOR, i = BP_NO_TENSOR;
  check(bp_topk(h_, k, axis, largest, &v, &i));
  return ValuesIndices{adopt(v), adopt(i)};
}

inline Tensor::ValuesIndices Tensor::sort(int32_t axis, bool descending) const {
  bp_tensor v = BP_NO_TENSOR, i = BP_NO_TENSOR;
  check(bp_sort(h_, axis, descending, &v, &i));
  return ValuesIndices{adopt(v), adopt(i)};
}

// ---- truth values --------------------------------------------------------

// Compared with false, a BOOL scalar: every dtype compares in its own.
inline Tensor Tensor::all(int32_t axis, bool keepdims) const {
  return (*this != false).min(axis, keepdims).astype(BP_BOOL);
}
inline Tensor Tensor::any(int32_t axis, bool keepdims) const {
  return (*this != false).max(axis, keepdims).astype(BP_BOOL);
}

inline Tensor::operator bool() const {
  if (!defined())
    throw InvalidHandleError(BP_ERR_INVALID_HANDLE,
                             "the truth value of an undefined bp::Tensor (default-constructed or moved from); "
                             "defined() tests whether a Tensor holds a handle",
                             "", -1, {});
  const int64_t n = numel();
  if (n != 1)
    throw ShapeError(BP_ERR_SHAPE,
                     "the truth value of a tensor with " + std::to_string(n) +
                         " elements is ambiguous; use all() or any()",
                     "", -1, {});
  // Compared where it lives: a device without float64 has no item<double>().
  return dtype() == BP_BOOL ? item<bool>() : (*this != false).item<bool>();
}

// ---- printing ------------------------------------------------------------

namespace detail {

// NumPy's threshold and edge items: above this many elements, each axis
// longer than twice the edge shows its first and last edge rows only.
inline constexpr int64_t print_threshold = 1000;
inline constexpr int64_t print_edge = 3;

// The shortest "%.*<conv>" form (up to 8 digits after the point) that reads
// back as x, NumPy's "unique" mode in its float32 and float64 flavours alike.
template <class T>
int shortest_digits(T x, char conv) {
  char buf[64];
  for (int d = 0; d < 8; ++d) {
    std::snprintf(buf, sizeof buf, conv == 'e' ? "%.*e" : "%.*f", d, double(x));
    if (T(std::strtod(buf, nullptr)) == x) return d;
  }
  return 8;
}

// Each value as NumPy prints it in an array: True/False, integers, floats in
// positional form with a point ("1.", "0.25", fractions padded with spaces
// to a common width) or, when the finite nonzero magnitudes reach 1e8, go
// below 1e-4 or span more than 1e3, in scientific form with a common number
// of digits. Returned right-aligned to one width.
template <class T>
std::vector<std::string> format_elements(const std::vector<T> &v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  if constexpr (std::is_same_v<T, bool>) {
    for (bool b : v) out.push_back(b ? "True" : "False");
  } else if constexpr (std::is_integral_v<T>) {
    for (T x : v) out.push_back(std::to_string(x));
  } else {
    double lo = HUGE_VAL, hi = 0;
    for (T x : v)
      if (std::isfinite(x) && x != 0) {
        lo = std::min(lo, std::fabs(double(x)));
        hi = std::max(hi, std::fabs(double(x)));
      }
    const bool scientific = hi > 0 && (hi >= 1e8 || lo < 1e-4 || hi / lo > 1e3);
    int digits = 0;
    if (scientific)
      for (T x : v)
        if (std::isfinite(x)) digits = std::max(digits, shortest_digits(x, 'e'));
    size_t frac_width = 0;
    char buf[64];
    for (T x : v) {
      if (std::isnan(x)) {
        out.push_back("nan");
      } else if (std::isinf(x)) {
        out.push_back(x < 0 ? "-inf" : "inf");
      } else if (scientific) {
        std::snprintf(buf, sizeof buf, "%.*e", digits, double(x));
        std::string s = buf;
        if (digits == 0) s.insert(s.find('e'), ".");
        out.push_back(s);
      } else {
        std::snprintf(buf, sizeof buf, "%.*f", shortest_digits(x, 'f'), double(x));
        std::string s = buf;
        if (s.find('.') == std::string::npos) s += '.';
        frac_width = std::max(frac_width, s.size() - s.find('.'));
        out.push_back(s);
      }
    }
    if (!scientific)
      for (std::string &s : out)
        if (s.find('.') != std::string::npos) s.append(frac_width - (s.size() - s.find('.')), ' ');
  }
  size_t width = 0;
  for (const std::string &s : out) width = std::max(width, s.size());
  for (std::string &s : out) s.insert(0, width - s.size(), ' ');
  return out;
}

// The values of v as W (exact: int8/uint8 as int32, so that they print as
// numbers rather than characters; bfloat16 as float).
template <class W, class T>
std::vector<W> widened(const std::vector<T> &v) {
  return std::vector<W>(v.begin(), v.end());
}

// The nested brackets of the elements from flat index `first` on, along
// axis `axis` and those after it; `indent` is the column of the outermost
// bracket.
inline void print_axis(std::ostream &os, const std::vector<std::string> &elements, const Shape &shape,
                       size_t axis, int64_t first, bool summarize, size_t indent) {
  int64_t stride = 1;
  for (size_t a = axis + 1; a < shape.size(); ++a) stride *= shape[a];
  const int64_t n = shape[axis];
  const bool last_axis = axis + 1 == shape.size();
  // Between rows: ", " on the last axis, else a comma and one line per axis
  // below, the rows lined up under the first.
  const std::string sep = last_axis ? ", " : "," + std::string(shape.size() - axis - 1, '\n') +
                                                  std::string(indent + axis + 1, ' ');
  os << '[';
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) os << sep;
    if (summarize && n > 2 * print_edge && i == print_edge) {
      os << "..." << sep;
      i = n - print_edge;
    }
    if (last_axis)
      os << elements[size_t(first + i)];
    else
      print_axis(os, elements, shape, axis + 1, first + i * stride, summarize, indent);
  }
  os << ']';
}

}  // namespace detail

// Writes t as the Python binding's repr does: its values, then the device,
// then the dtype unless float32, int64 or bool, e.g.
//   tensor([[1., 1.],
//           [1., 1.]], device='cpu:0')
//   tensor([1, 2], device='opencl:0', dtype=int32)
// Beyond 1000 elements each long axis shows its first and last 3 rows around
// "...". Waits for pending work and copies the values to the host. An
// undefined Tensor prints as tensor(undefined). Throws what shape(), dtype()
// and to_vector() throw. (since 1.1)
inline std::ostream &operator<<(std::ostream &os, const Tensor &t) {
  if (!t.defined()) return os << "tensor(undefined)";
  const Shape shape = t.shape();
  const bp_dtype dtype = t.dtype();
  std::vector<std::string> elements;
  switch (dtype) {
    case BP_FLOAT32: elements = detail::format_elements(t.to_vector<float>()); break;
    case BP_FLOAT64: elements = detail::format_elements(t.to_vector<double>()); break;
    case BP_INT32: elements = detail::format_elements(t.to_vector<int32_t>()); break;
    case BP_INT64: elements = detail::format_elements(t.to_vector<int64_t>()); break;
    case BP_BOOL: elements = detail::format_elements(t.to_vector<bool>()); break;
    case BP_INT8: elements = detail::format_elements(detail::widened<int32_t>(t.to_vector<int8_t>())); break;
    case BP_UINT8: elements = detail::format_elements(detail::widened<int32_t>(t.to_vector<uint8_t>())); break;
    case BP_INT16: elements = detail::format_elements(t.to_vector<int16_t>()); break;
    // float16 in its own shortest digits, as NumPy prints it; bfloat16, which
    // NumPy lacks, as the float32 values the Python binding widens it to.
    case BP_FLOAT16: elements = detail::format_elements(t.to_vector<float16>()); break;
    case BP_BFLOAT16: elements = detail::format_elements(detail::widened<float>(t.to_vector<bfloat16>())); break;
    default:
      throw DtypeError(BP_ERR_DTYPE, std::string("operator<<: cannot print a tensor of dtype ") + bp_dtype_name(dtype),
                       "", -1, {});
  }
  const std::string prefix = "tensor(";
  os << prefix;
  if (shape.empty()) {
    os << elements.at(0);
  } else if (elements.empty()) {
    os << "[]";
  } else {
    detail::print_axis(os, elements, shape, 0, 0, int64_t(elements.size()) > detail::print_threshold,
                       prefix.size());
  }
  if (elements.empty() && shape.size() != 1) {
    os << ", size=(";
    for (size_t a = 0; a < shape.size(); ++a) os << (a ? ", " : "") << shape[a];
    os << ")";
  }
  os << ", device='" << t.device().name() << "'";
  if (dtype != BP_FLOAT32 && dtype != BP_INT64 && dtype != BP_BOOL) os << ", dtype=" << bp_dtype_name(dtype);
  return os << ')';
}

// ---- saving and loading: safetensors files (since 1.6) -------------------
// Named tensors in a safetensors file, readable by the `safetensors` package
// and PyTorch through it (backplane.h's section of that name says what is
// checked and how devices are read):
//
//   bp::save_safetensors("model.safetensors", {{"w", w}, {"b", b}}, {{"step", "10"}});
//   std::map<std::string, bp::Tensor> sd = bp::load_safetensors("model.safetensors", bp::cpu());
//
// Each tensor is read through its own device's backend when saved, and
// written through the given device's backend when loaded: a tensor saved
// from opencl:0 loads onto cpu:0 or any other device.

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using Metadata = std::map<std::string, std::string>;

namespace detail {
// The C arrays of a save, pointing into tensors and metadata.
struct SafetensorsArgs {
  SafetensorsArgs(const NamedTensors &tensors, const Metadata &metadata) {
    for (const auto &[name, t] : tensors) named.push_back({name.c_str(), t.handle()});
    for (const auto &[key, value] : metadata) meta.push_back({key.c_str(), value.c_str()});
  }
  std::vector<bp_named_tensor> named;
  std::vector<bp_metadata_entry> meta;
};
}  // namespace detail

// Writes the file (a temporary beside it, renamed over path when complete).
inline void save_safetensors(const std::string &path, const NamedTensors &tensors, const Metadata &metadata = {}) {
  const detail::SafetensorsArgs a(tensors, metadata);
  check(bp_safetensors_save(path.c_str(), a.named.data(), int32_t(a.named.size()), a.meta.data(),
                            int32_t(a.meta.size())));
}

// The bytes of the file bp::save_safetensors would write.
inline std::string safetensors_bytes(const NamedTensors &tensors, const Metadata &metadata = {}) {
  const detail::SafetensorsArgs a(tensors, metadata);
  std::string bytes;
  auto append = [](void *context, const void *data, uint64_t n) -> int32_t {
    static_cast<std::string *>(context)->append(static_cast<const char *>(data), size_t(n));
    return 0;
  };
  check(bp_safetensors_write(append, &bytes, a.named.data(), int32_t(a.named.size()), a.meta.data(),
                             int32_t(a.meta.size())));
  return bytes;
}

// An open, checked safetensors file (closed when the last copy goes).
class SafetensorsFile {
 public:
  struct Entry {
    std::string name;
    bp_dtype dtype;
    Shape shape;
  };

  static SafetensorsFile open(const std::string &path) {
    bp_safetensors h = 0;
    check(bp_safetensors_open(path.c_str(), &h));
    return SafetensorsFile(h);
  }
  // A file held in memory (the bytes are copied).
  static SafetensorsFile from_bytes(const void *data, size_t bytes) {
    bp_safetensors h = 0;
    check(bp_safetensors_open_memory(data, bytes, &h));
    return SafetensorsFile(h);
  }
  static SafetensorsFile from_bytes(const std::string &bytes) { return from_bytes(bytes.data(), bytes.size()); }

  bp_safetensors handle() const { return h_->h; }

  // The tensors in the byte order of their names.
  std::vector<Entry> entries() const {
    int32_t n = 0;
    check(bp_safetensors_count(handle(), &n));
    std::vector<Entry> out;
    for (int32_t i = 0; i < n; ++i) {
      const char *name = nullptr;
      int32_t dtype = 0, rank = 0;
      int64_t shape[BP_MAX_RANK];
      check(bp_safetensors_entry(handle(), i, &name, &dtype, &rank, shape));
      out.push_back({name, static_cast<bp_dtype>(dtype), Shape(shape, shape + rank)});
    }
    return out;
  }
  Metadata metadata() const {
    int32_t n = 0;
    check(bp_safetensors_metadata_count(handle(), &n));
    Metadata out;
    for (int32_t i = 0; i < n; ++i) {
      const char *key = nullptr, *value = nullptr;
      check(bp_safetensors_metadata(handle(), i, &key, &value));
      out.emplace(key, value);
    }
    return out;
  }
  Tensor load(const std::string &name, Device d = default_device()) const {
    return Tensor::wrap([&](bp_tensor *o) { return bp_safetensors_load(handle(), name.c_str(), d.id(), o); });
  }
  std::map<std::string, Tensor> load_all(Device d = default_device()) const {
    const std::vector<Entry> es = entries();
    std::vector<bp_tensor> handles(es.size());
    check(bp_safetensors_load_all(handle(), d.id(), handles.data(), int32_t(handles.size())));
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i < es.size(); ++i) out.emplace(es[i].name, Tensor::adopt(handles[i]));
    return out;
  }

 private:
  struct Owner {
    explicit Owner(bp_safetensors h_) : h(h_) {}
    Owner(const Owner &) = delete;
    Owner &operator=(const Owner &) = delete;
    ~Owner() { bp_safetensors_close(h); }
    bp_safetensors h;
  };
  explicit SafetensorsFile(bp_safetensors h) : h_(std::make_shared<Owner>(h)) {}
  std::shared_ptr<Owner> h_;
};

// Every tensor of the file at path, on device d.
inline std::map<std::string, Tensor> load_safetensors(const std::string &path, Device d = default_device()) {
  return SafetensorsFile::open(path).load_all(d);
}

}  // namespace bp
