// MATMUL. Float products go to OpenBLAS (cblas_sgemm/dgemm) straight from
// the operands' memory whenever BLAS can address them: a matrix with unit
// stride along one axis is row-major (NoTrans) or column-major (read as
// Trans), with the other stride as leading dimension; so transposed views
// cost no copy. Other layouts (no unit stride, stride-0 rows) are first
// copied to a dense temporary. Integer products, tiny float ones and float
// ones too large for BLAS's 32-bit sizes use a plain loop (wrapping like
// integer MUL/ADD), threaded over the rows of all batches. The batch axes
// are walked with their own strides (0 where broadcast). The 1.4 dtypes
// widen both operands into dense float32 (16-bit floats: then sgemm) or
// int32 (small integers: the wrapping loop) matrices, and narrow the
// product once (matmul_widened); bfloat16 goes to oneDNN instead where it
// is built in, its CPU kernel native and no subnormal can arise
// (gemm_onednn.hpp).
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "backplane/kernels/elementwise.hpp"
#include "backend.hpp"
#ifdef BP_CPU_HAVE_ONEDNN
#include "gemm_onednn.hpp"
#endif
#include "dtype.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "small_types.hpp"
#include "half_block.hpp"

namespace cpu_backend {

namespace {

// Multiply-adds below which a float product takes the loop, not BLAS.
constexpr int64_t kTinyProduct = 512;

// One operand of one product: extents and element strides.
struct Matrix {
  int64_t rows, cols, rs, cs;
  Matrix transposed() const { return {cols, rows, cs, rs}; }
};

// How BLAS reads m in place (row-major CblasRowMajor terms): NoTrans with
// ld = row stride, or Trans of a cols x rows matrix with ld = column stride.
// The stride along an axis of extent 1 is irrelevant and may be anything.
bool blas_form(const Matrix &m, CBLAS_TRANSPOSE *trans, int64_t *ld) {
  const int64_t min_row_ld = std::max<int64_t>(m.cols, 1), min_col_ld = std::max<int64_t>(m.rows, 1);
  if (m.cols == 1 || m.cs == 1) {
    *ld = m.rows == 1 ? min_row_ld : m.rs;
    if (*ld >= min_row_ld && *ld <= INT_MAX) {
      *trans = CblasNoTrans;
      return true;
    }
  }
  if (m.rows == 1 || m.rs == 1) {
    *ld = m.cols == 1 ? min_col_ld : m.cs;
    if (*ld >= min_col_ld && *ld <= INT_MAX) {
      *trans = CblasTrans;
      return true;
    }
  }
  return false;
}

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const float *a, int lda, const float *b,
          int ldb, float *c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const double *a, int lda,
          const double *b, int ldb, double *c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
}

// Copies m into `dense` row-major and describes the copy.
template <class T>
const T *densify(const T *p, Matrix &m, std::vector<T> &dense) {
  dense.resize(static_cast<size_t>(m.rows * m.cols));
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) dense[i * m.cols + j] = p[i * m.rs + j * m.cs];
  m.rs = m.cols;
  m.cs = 1;
  return dense.data();
}

// Rows [row_begin, row_end) of c = a b by the definition, c's rows written
// once: the integer path, and the fallback for BLAS-sized overflows.
template <class T>
void loop_product(const T *a, const Matrix &ma, const T *b, const Matrix &mb, T *c, const Matrix &mc,
                  int64_t row_begin, int64_t row_end) {
  const bp_kernels::Add add;
  const bp_kernels::Mul mul;
  const int64_t n = mc.cols, k_count = ma.cols;
  for (int64_t i = row_begin; i < row_end; ++i) {
    T *ci = c + i * mc.rs;
    for (int64_t j = 0; j < n; ++j) ci[j * mc.cs] = T(0);
    for (int64_t k = 0; k < k_count; ++k) {
      const T aik = a[i * ma.rs + k * ma.cs];
      const T *bk = b + k * mb.rs;
      if (mc.cs == 1 && mb.cs == 1) {
        for (int64_t j = 0; j < n; ++j) ci[j] = add(ci[j], mul(aik, bk[j]));
      } else {
        for (int64_t j = 0; j < n; ++j) ci[j * mc.cs] = add(ci[j * mc.cs], mul(aik, bk[j * mb.cs]));
      }
    }
  }
}

template <class T>
void blas_product(const T *a, Matrix ma, const T *b, Matrix mb, T *c, Matrix mc) {
  CBLAS_TRANSPOSE tc, ta, tb;
  int64_t ldc, lda, ldb;
  std::vector<T> dense_a, dense_b, dense_c;
  if (blas_form(mc, &tc, &ldc) && tc == CblasTrans) {
    // C is column-major: compute C^T = B^T A^T, which is row-major.
    std::swap(a, b);
    const Matrix old_a = ma;
    ma = mb.transposed();
    mb = old_a.transposed();
    mc = mc.transposed();
  }
  T *c_out = c;
  if (!blas_form(mc, &tc, &ldc)) {  // neither: compute densely, scatter below
    dense_c.resize(static_cast<size_t>(mc.rows * mc.cols));
    c = dense_c.data();
    ldc = mc.cols;
  }
  if (!blas_form(ma, &ta, &lda)) {
    a = densify(a, ma, dense_a);
    blas_form(ma, &ta, &lda);
  }
  if (!blas_form(mb, &tb, &ldb)) {
    b = densify(b, mb, dense_b);
    blas_form(mb, &tb, &ldb);
  }
  gemm(ta, tb, static_cast<int>(mc.rows), static_cast<int>(mc.cols), static_cast<int>(ma.cols), a,
       static_cast<int>(lda), b, static_cast<int>(ldb), c, static_cast<int>(ldc));
  if (c != c_out)
    for (int64_t i = 0; i < mc.rows; ++i)
      for (int64_t j = 0; j < mc.cols; ++j) c_out[i * mc.rs + j * mc.cs] = c[i * mc.cols + j];
}

// Element offsets of every batch's matrices in out, a and b.
struct Batches {
  std::vector<int64_t> out, a, b;
};

Batches batch_offsets(const View &a, const View &b, const View &out) {
  const int batch_rank = out.rank - 2;
  const Layout<3> layout = make_layout<3>(batch_rank, out.shape, {out.strides, a.strides, b.strides});
  const int64_t count = layout.numel();
  Batches batches;
  batches.out.resize(count);
  batches.a.resize(count);
  batches.b.resize(count);
  walk(layout, 0, count, [&](const int64_t *off, int64_t n, int64_t pos) {
    for (int64_t i = 0; i < n; ++i) {
      batches.out[pos + i] = off[0] + i * layout.inner_stride(0);
      batches.a[pos + i] = off[1] + i * layout.inner_stride(1);
      batches.b[pos + i] = off[2] + i * layout.inner_stride(2);
    }
  });
  return batches;
}

template <class T>
void matmul_typed(ThreadPool &pool, const View &a, const View &b, const View &out) {
  const int r = out.rank;
  const Matrix ma{a.shape[r - 2], a.shape[r - 1], a.strides[r - 2], a.strides[r - 1]};
  const Matrix mb{b.shape[r - 2], b.shape[r - 1], b.strides[r - 2], b.strides[r - 1]};
  const Matrix mc{out.shape[r - 2], out.shape[r - 1], out.strides[r - 2], out.strides[r - 1]};
  const Batches batches = batch_offsets(a, b, out);
  const T *pa = a.data<T>(), *pb = b.data<T>();
  T *pc = out.data<T>();
  const bool fits_blas = mc.rows <= INT_MAX && mc.cols <= INT_MAX && ma.cols <= INT_MAX;
  // A BLAS call costs more than a tiny product itself (batches of 3x3).
  const bool tiny = mc.rows * mc.cols * ma.cols <= kTinyProduct;
  if constexpr (std::is_floating_point<T>::value) {
    // K == 0 is left to the loop (it writes zeros): BLAS rejects some of
    // the leading dimensions such a product may have.
    if (fits_blas && !tiny && ma.cols > 0) {
      for (size_t i = 0; i < batches.out.size(); ++i)
        blas_product(pa + batches.a[i], ma, pb + batches.b[i], mb, pc + batches.out[i], mc);
      return;
    }
  }
  // One task per output row of every batch.
  const int64_t rows = static_cast<int64_t>(batches.out.size()) * mc.rows;
  parallel_for(pool, rows, std::max<int64_t>(mc.cols * ma.cols, 1), [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end;) {
      const int64_t batch = t / mc.rows, row = t % mc.rows;
      const int64_t stop = std::min(end - t + row, mc.rows);  // rows of this batch in range
      loop_product(pa + batches.a[batch], ma, pb + batches.b[batch], mb, pc + batches.out[batch], mc, row,
                   stop);
      t += stop - row;
    }
  });
}

// Scratch matrices from the backend's memory pool: a repeated product
// reuses cached blocks instead of faulting in freshly mapped pages (a tenth
// of a float16 product's time at n = 2048).
template <class W>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ~Scratch() {
    if (block_) g_backend.memory.release(block_);
  }
  W *get(int64_t count) {
    if (!block_) block_ = g_backend.memory.allocate(static_cast<uint64_t>(std::max<int64_t>(count, 1)) * sizeof(W));
    return reinterpret_cast<W *>(block_->data());
  }

 private:
  bp_buffer_s *block_ = nullptr;
};

// m's elements widened into `dense`, laid along m's unit-stride axis when it
// has one (so a transposed view converts contiguously and BLAS reads it as
// Trans); m then describes the copy.
template <class T>
const compute_t<T> *widen_matrix(ThreadPool &pool, const T *p, Matrix &m, Scratch<compute_t<T>> &dense) {
  const bool by_columns = m.cs != 1 && m.rs == 1;
  const int64_t lines = by_columns ? m.cols : m.rows, length = by_columns ? m.rows : m.cols;
  const int64_t line_stride = by_columns ? m.cs : m.rs, step = by_columns ? m.rs : m.cs;
  compute_t<T> *d = dense.get(m.rows * m.cols);
  parallel_for(pool, lines, std::max<int64_t>(length, 1), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) load_compute(p + i * line_stride, step, length, d + i * length);
  });
  if (by_columns) m.cs = m.rows, m.rs = 1;
  else m.rs = m.cols, m.cs = 1;
  return d;
}

// a b for the 1.4 dtypes, batch by batch: both operands widened, the
// product computed in the wide type, each element narrowed once into out.
template <class T>
void matmul_widened(ThreadPool &pool, const View &a, const View &b, const View &out) {
  using W = compute_t<T>;
  const int r = out.rank;
  const Matrix ma0{a.shape[r - 2], a.shape[r - 1], a.strides[r - 2], a.strides[r - 1]};
  const Matrix mb0{b.shape[r - 2], b.shape[r - 1], b.strides[r - 2], b.strides[r - 1]};
  const Matrix mc{out.shape[r - 2], out.shape[r - 1], out.strides[r - 2], out.strides[r - 1]};
  const Matrix dense_c{mc.rows, mc.cols, mc.cols, 1};
  const Batches batches = batch_offsets(a, b, out);
  const bool fits_blas = mc.rows <= INT_MAX && mc.cols <= INT_MAX && ma0.cols <= INT_MAX;
  const bool blas = std::is_same<W, float>::value && fits_blas && ma0.cols > 0 &&
                    mc.rows * mc.cols * ma0.cols > kTinyProduct;
  Scratch<W> wa, wb, wc;
  for (size_t batch = 0; batch < batches.out.size(); ++batch) {
    T *c = out.data<T>() + batches.out[batch];
    const auto narrow_into_c = [&](const W *pc) {
      parallel_for(pool, mc.rows, std::max<int64_t>(mc.cols, 1), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          for (int64_t j = 0; j < mc.cols; j += kHalfBlock)
            store_results(pc + i * mc.cols + j, std::min(kHalfBlock, mc.cols - j), c + i * mc.rs + j * mc.cs, mc.cs);
      });
    };
#ifdef BP_CPU_HAVE_ONEDNN
    if constexpr (std::is_same<T, bfloat16>::value) {
      const uint16_t *a16 = a.data<uint16_t>() + batches.a[batch], *b16 = b.data<uint16_t>() + batches.b[batch];
      if (blas && onednn_bf16_available() &&
          bf16_gemm_exact_enough(pool, a16, ma0.rows, ma0.cols, ma0.rs, ma0.cs, b16, mb0.rows, mb0.cols, mb0.rs, mb0.cs) &&
          onednn_bf16_gemm(pool, a16, ma0.rs, ma0.cs, b16, mb0.rs, mb0.cs, wc.get(mc.rows * mc.cols), mc.rows,
                           mc.cols, ma0.cols)) {
        narrow_into_c(wc.get(mc.rows * mc.cols));
        continue;
      }
    }
#endif
    Matrix ma = ma0, mb = mb0;
    const W *pa = widen_matrix(pool, a.data<T>() + batches.a[batch], ma, wa);
    const W *pb = widen_matrix(pool, b.data<T>() + batches.b[batch], mb, wb);
    W *pc = wc.get(mc.rows * mc.cols);
    if constexpr (std::is_same<W, float>::value) {
      if (blas) blas_product(pa, ma, pb, mb, pc, dense_c);
    }
    if (!blas)
      parallel_for(pool, mc.rows, std::max<int64_t>(mc.cols * ma.cols, 1), [&](int64_t begin, int64_t end) {
        loop_product(pa, ma, pb, mb, pc, dense_c, begin, end);
      });
    narrow_into_c(pc);
  }
}

}  // namespace

const char *gemm_half_path(int32_t dtype) {
#ifdef BP_CPU_HAVE_ONEDNN
  if (dtype == BP_BFLOAT16 && onednn_bf16_available()) {
    static const std::string path = std::string("onednn:") + onednn_bf16_kernel();
    return path.c_str();
  }
#endif
  (void)dtype;
  return "convert-to-f32+cblas_sgemm";
}

void matmul_kernel(ThreadPool &pool, const View &a, const View &b, const View &out) {
  if (out.numel == 0) return;
  dispatch_set<BP_DTYPE_SET_NUMERIC>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_half<T> || is_small_int<T>) matmul_widened<T>(pool, a, b, out);
    else matmul_typed<T>(pool, a, b, out);
  });
}

}  // namespace cpu_backend
