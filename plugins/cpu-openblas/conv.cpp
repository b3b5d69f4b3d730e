#include "conv.hpp"

#include <algorithm>
#include <vector>

#include "backplane/half.h"
#include "backplane/sdk/coalesce.h"
#include "backplane/sdk/conv.h"
#include "conv_gemm.hpp"
#ifdef BP_CPU_HAVE_ONEDNN
#include "conv_onednn.hpp"
#include "conv_pointwise_bf16.hpp"
#include "gemm_onednn.hpp"
#endif
#include "errors.hpp"
#include "half_convert.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "view.hpp"

namespace cpu_backend {

namespace {

int64_t numel_of(const bp_plugin_tensor &t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.rank; ++d) n *= t.shape[d];
  return n;
}

char *base_of(const bp_plugin_tensor &t) { return t.buffer ? t.buffer->data() + t.offset : nullptr; }

template <class T>
constexpr int32_t dtype_of() {
  return sizeof(T) == 8 ? BP_FLOAT64 : sizeof(T) == 4 ? BP_FLOAT32 : BP_BFLOAT16;
}

// The view's strided walk against a dense C-order copy: operand 0 the
// view, operand 1 the copy.
Layout<2> dense_layout(const bp_plugin_tensor &t) {
  int64_t dense[BP_MAX_RANK] = {}, stride = 1;
  for (int32_t d = t.rank - 1; d >= 0; --d) dense[d] = stride, stride *= t.shape[d];
  const int64_t *const strides[2] = {t.strides, dense};
  return make_layout<2>(t.rank, t.shape, strides);
}

// Dense elements of type T (float, double, or bfloat16 bits) read from a
// view of another layout or dtype: float16 and bfloat16 widen exactly.
template <class T>
void gather(ThreadPool &pool, const bp_plugin_tensor &t, T *dst) {
  const Layout<2> layout = dense_layout(t);
  const char *base = base_of(t);
  const int32_t dtype = t.dtype;
  const HalfConverters &h = converters();
  parallel_for(pool, layout.numel(), kCheap, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      const int64_t s = layout.inner_stride(0), ds = layout.inner_stride(1);
      T *d = dst + off[1];
      if constexpr (sizeof(T) == 2) {  // bfloat16 bits, from bfloat16 only
        const uint16_t *p = reinterpret_cast<const uint16_t *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) d[i * ds] = p[i * s];
      } else if (dtype == BP_FLOAT64) {
        const double *p = reinterpret_cast<const double *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) d[i * ds] = T(p[i * s]);
      } else if (dtype == BP_FLOAT32) {
        const float *p = reinterpret_cast<const float *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) d[i * ds] = T(p[i * s]);
      } else {
        const uint16_t *p = reinterpret_cast<const uint16_t *>(base) + off[0];
        const bool f16 = dtype == BP_FLOAT16;
        if constexpr (sizeof(T) == 4) {
          if (s == 1 && ds == 1) return (f16 ? h.f16_to_f32 : h.bf16_to_f32)(p, d, n);
        }
        for (int64_t i = 0; i < n; ++i) d[i * ds] = T(f16 ? bp_f32_from_f16(p[i * s]) : bp_f32_from_bf16(p[i * s]));
      }
    });
  });
}

// The dense result into the view, rounded once to its dtype.
template <class T>
void scatter(ThreadPool &pool, const T *src, const bp_plugin_tensor &t) {
  const Layout<2> layout = dense_layout(t);
  char *base = base_of(t);
  const int32_t dtype = t.dtype;
  const HalfConverters &h = converters();
  parallel_for(pool, layout.numel(), kCheap, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      const int64_t s = layout.inner_stride(0), ss = layout.inner_stride(1);
      const T *from = src + off[1];
      if constexpr (sizeof(T) == 2) {
        uint16_t *p = reinterpret_cast<uint16_t *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) p[i * s] = from[i * ss];
      } else if (dtype == BP_FLOAT64) {
        double *p = reinterpret_cast<double *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) p[i * s] = double(from[i * ss]);
      } else if (dtype == BP_FLOAT32) {
        float *p = reinterpret_cast<float *>(base) + off[0];
        for (int64_t i = 0; i < n; ++i) p[i * s] = float(from[i * ss]);
      } else {
        uint16_t *p = reinterpret_cast<uint16_t *>(base) + off[0];
        const bool f16 = dtype == BP_FLOAT16;
        if constexpr (sizeof(T) == 4) {
          if (s == 1 && ss == 1) return (f16 ? h.f32_to_f16 : h.f32_to_bf16)(from, p, n);
        }
        for (int64_t i = 0; i < n; ++i) {
          const float v = float(from[i * ss]);
          p[i * s] = f16 ? bp_f16_from_f32(v) : bp_bf16_from_f32(v);
        }
      }
    });
  });
}

// An input as dense T: the view's own memory when it already is, else a copy.
template <class T>
const T *dense_input(ThreadPool &pool, const bp_plugin_tensor *t, std::vector<T> &copy) {
  if (!t) return nullptr;
  if (t->dtype == dtype_of<T>() && bp_sdk_is_dense(t->rank, t->shape, t->strides))
    return reinterpret_cast<const T *>(base_of(*t));
  copy.resize(size_t(numel_of(*t)));
  gather(pool, *t, copy.data());
  return copy.data();
}

// Where a T result goes: the output's own memory when it is dense and of
// dtype T, else a temporary that finish() scatters into it.
template <class T>
struct DenseOutput {
  const bp_plugin_tensor &t;
  std::vector<T> temp;
  T *data;
  DenseOutput(const bp_plugin_tensor &t_, bool direct_ok = true) : t(t_) {
    if (direct_ok && t.dtype == dtype_of<T>() && bp_sdk_is_dense(t.rank, t.shape, t.strides)) {
      data = reinterpret_cast<T *>(base_of(t));
    } else {
      temp.resize(size_t(numel_of(t)));
      data = temp.data();
    }
  }
  void finish(ThreadPool &pool) {
    if (!temp.empty()) scatter(pool, temp.data(), t);
  }
};

// The operands by part (bp_sdk_conv's x, w, y, bias) as dense T, the
// product computed by `run`, the output written back.
template <class T, class Run>
void staged(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, Run &&run) {
  const bp_plugin_tensor *a = op == BP_OP_CONV_TRANSPOSE ? g.y : g.x;
  const bp_plugin_tensor *b = op == BP_OP_CONV_WEIGHT_GRAD ? g.y : g.w;
  const bp_plugin_tensor &out = op == BP_OP_CONV ? *g.y : op == BP_OP_CONV_TRANSPOSE ? *g.x : *g.w;
  std::vector<T> a_copy, b_copy, bias_copy;
  const T *da = dense_input<T>(pool, a, a_copy), *db = dense_input<T>(pool, b, b_copy);
  const T *dbias = dense_input<T>(pool, g.bias, bias_copy);
  DenseOutput<T> o(out);
  run(da, db, dbias, o.data);
  o.finish(pool);
}

template <class T>
void gemm_path(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, const T *a, const T *b, const T *bias, T *out) {
  if (op == BP_OP_CONV)
    gemm_conv_forward(pool, g, a, b, bias, out);
  else if (op == BP_OP_CONV_TRANSPOSE)
    gemm_conv_backward_data(pool, g, a, b, bias, out);
  else
    gemm_conv_backward_weights(pool, g, a, b, out);
}

#ifdef BP_CPU_HAVE_ONEDNN
// bfloat16 operands straight into oneDNN's native kernel; dw comes back in
// float32 (the slices' shares are added there) and is rounded once.
void native_bf16(ThreadPool &pool, int32_t op, const bp_sdk_conv &g) {
  const bp_plugin_tensor *a = op == BP_OP_CONV_TRANSPOSE ? g.y : g.x;
  const bp_plugin_tensor *b = op == BP_OP_CONV_WEIGHT_GRAD ? g.y : g.w;
  std::vector<uint16_t> a_copy, b_copy;
  std::vector<float> bias_copy;
  const uint16_t *da = dense_input<uint16_t>(pool, a, a_copy), *db = dense_input<uint16_t>(pool, b, b_copy);
  const float *dbias = dense_input<float>(pool, g.bias, bias_copy);
  const bool pointwise = pointwise_conv_wins() && pointwise_conv_fits(g);
  bool ok;
  if (op == BP_OP_CONV_WEIGHT_GRAD) {
    DenseOutput<float> o(*g.w, false);
    ok = (pointwise && pointwise_conv_bf16(pool, op, g, da, db, nullptr, o.data)) ||
         onednn_conv(pool, op, g, ConvData::bf16, da, db, nullptr, o.data);
    if (ok) o.finish(pool);
  } else {
    DenseOutput<uint16_t> o(op == BP_OP_CONV ? *g.y : *g.x);
    ok = (pointwise && pointwise_conv_bf16(pool, op, g, da, db, dbias, o.data)) ||
         onednn_conv(pool, op, g, ConvData::bf16, da, db, dbias, o.data);
    if (ok) o.finish(pool);
  }
  if (ok) return;
  staged<float>(pool, op, g, [&](const float *x, const float *y, const float *bias, float *out) {
    if (!onednn_conv(pool, op, g, ConvData::f32, x, y, bias, out)) gemm_path(pool, op, g, x, y, bias, out);
  });
}
#endif

}  // namespace

void conv_kernel(ThreadPool &pool, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                 const bp_plugin_tensor *output) {
  char message[512];
  bp_sdk_conv g;
  const bp_status s =
      bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), inputs, output, &g, message, sizeof message);
  if (s != BP_OK) fail(s, "%s", message);
  const bp_plugin_tensor &out = *output;
  if (numel_of(out) == 0) return;
  if (op == BP_OP_CONV_WEIGHT_GRAD && g.n == 0) {  // no term: dw is 0
    DenseOutput<double> o(out);
    std::fill(o.data, o.data + numel_of(out), 0.0);
    return o.finish(pool);
  }
  if (out.dtype == BP_FLOAT64)
    return staged<double>(pool, op, g, [&](const double *a, const double *b, const double *bias, double *o) {
      gemm_path(pool, op, g, a, b, bias, o);
    });
#ifdef BP_CPU_HAVE_ONEDNN
  if (out.dtype == BP_BFLOAT16 && onednn_conv_bf16_native() && !(op == BP_OP_CONV_TRANSPOSE && g.bias))
    return native_bf16(pool, op, g);
#endif
  staged<float>(pool, op, g, [&](const float *a, const float *b, const float *bias, float *o) {
#ifdef BP_CPU_HAVE_ONEDNN
    if (onednn_conv(pool, op, g, ConvData::f32, a, b, bias, o)) return;
#endif
    gemm_path(pool, op, g, a, b, bias, o);
  });
}

std::string conv_path(int32_t dtype) {
  if (dtype == BP_FLOAT64) return "im2col + OpenBLAS dgemm";
  const std::string widened = dtype == BP_FLOAT32 ? "" : "widened to float32, ";
#ifdef BP_CPU_HAVE_ONEDNN
  if (dtype == BP_BFLOAT16 && onednn_conv_bf16_native())
    return "oneDNN " + onednn_conv_kernel(ConvData::bf16) + " (native bfloat16)" +
           (pointwise_conv_wins() ? std::string("; pointwise: one oneDNN ") + onednn_bf16_kernel() + " GEMM of the batch"
                                  : std::string());
  const std::string &kernel = onednn_conv_kernel(ConvData::f32);
  if (kernel.compare(0, 11, "unavailable") != 0)
    return widened + "oneDNN " + kernel + " (blocked layouts), im2col + OpenBLAS sgemm where it declines";
#endif
  return widened + "im2col + OpenBLAS sgemm";
}

}  // namespace cpu_backend
