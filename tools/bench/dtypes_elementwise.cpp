// The "dtypes" figure's elementwise part: a large add in float16 and
// bfloat16 next to the same add in float32, in elements per second. A
// 16-bit add moves half the bytes of a float32 one, so at memory speed it
// does close to twice the elements per second; the goal is 1.6x.
#include <memory>

#include "dtypes.hpp"

namespace bptool::bench::dtypes {

namespace {

double gelems(int64_t n, double seconds) { return double(n) / seconds / 1e9; }

// x + y in one dtype, from the same float32 values (converted outside the
// timing), into an output of that dtype.
struct AddOperands {
  AddOperands(const bp::Tensor &x32, const bp::Tensor &y32, bp_dtype dtype, const bp::Device &cpu)
      : device(cpu.id()),
        x(dtype == BP_FLOAT32 ? x32 : x32.astype(dtype)),
        y(dtype == BP_FLOAT32 ? y32 : y32.astype(dtype)),
        out(bp::zeros(x32.shape(), dtype, cpu)) {
    x.wait();
    y.wait();
    out.wait();
  }

  // bp_binary_out into the existing output, then a synchronize.
  Work into_out() const {
    return [this](int64_t k) {
      for (int64_t i = 0; i < k; ++i) bp::check(bp_binary_out(BP_OP_ADD, x.handle(), y.handle(), out.handle()));
      bp::check(bp_synchronize(device));
    };
  }
  // bp_binary into a new tensor, waited for before it is released (lazy
  // fusion would otherwise never compute a result nobody reads).
  Work into_new() const {
    return [this](int64_t k) {
      for (int64_t i = 0; i < k; ++i) add_into_new(x.handle(), y.handle(), true);
    };
  }

  bp_device device;
  bp::Tensor x, y, out;
};

}  // namespace

void elementwise_rows(Context &ctx, Report &rep, const Setup &s) {
  const int64_t n = s.elements;
  ctx.progress("dtypes: allocating the add's float32 operands (" + s.count + " elements)");
  const bp::Tensor x32 = bp::random_uniform({n}, 0, 1, 1, bp::f32, s.cpu);
  const bp::Tensor y32 = bp::random_uniform({n}, 0, 1, 2, bp::f32, s.cpu);
  const AddOperands f32(x32, y32, BP_FLOAT32, s.cpu);
  const float *px = static_cast<const float *>(host_address(f32.x));
  const float *py = static_cast<const float *>(host_address(f32.y));
  float *po = static_cast<float *>(host_address(f32.out));
  const int threads = s.threads;
  const std::string thr = std::to_string(threads) + " thread" + (threads == 1 ? "" : "s");
  const double target_s = 0.001;  // one add per timed batch at 1e8

  struct Variant {
    const char *how;
    const char *note;
    Work (AddOperands::*work)() const;
    Work loop;
    std::string loop_name;
  };
  const Variant variants[] = {
      {"into an existing output (bp_binary_out)", "", &AddOperands::into_out,
       [=](int64_t k) {
         for (int64_t i = 0; i < k; ++i)
           parallel(threads, n, [&](int64_t b, int64_t e) {
             for (int64_t j = b; j < e; ++j) po[j] = px[j] + py[j];
           });
       },
       "plain C++ loop out=x+y (" + thr + ")"},
      {"into a fresh output (bp_binary)",
       "allocation included: fresh pages cost more than the add unless the backend's block cache keeps one "
       "that size; the existing-output rows are the add alone",
       &AddOperands::into_new,
       [=](int64_t k) {
         for (int64_t i = 0; i < k; ++i) {
           std::unique_ptr<float[]> fresh(new float[size_t(n)]);
           float *pf = fresh.get();
           parallel(threads, n, [&](int64_t b, int64_t e) {
             for (int64_t j = b; j < e; ++j) pf[j] = px[j] + py[j];
           });
         }
       },
       "plain C++ loop into new float[] (" + thr + ")"},
  };

  for (const Variant &v : variants) {
    const Work f32_add = (f32.*v.work)();
    Row r{"dtypes", "add " + s.count + " float32 " + v.how, "cpu:0", "Gelem/s"};
    r.baseline_name = v.loop_name;
    r.note = v.note;
    add_row(ctx, rep, r, [&](Row &row) {
      ctx.progress("dtypes: add float32 " + std::string(v.how));
      const Pair p = compare(f32_add, v.loop, s.trials, target_s);
      row.backplane = gelems(n, p.a);
      row.baseline = gelems(n, p.b);
      row.spread = p.spread();
    });
    for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT16}) {
      const std::string name = bp_dtype_name(dtype);
      Row h{"dtypes", "add " + s.count + " " + name + " " + v.how, "cpu:0", "Gelem/s"};
      h.baseline_name = "the same add in float32 through Backplane";
      h.target = kAddTarget;
      h.note = v.note;
      add_row(ctx, rep, h, [&](Row &row) {
        ctx.progress("dtypes: add " + name + " " + v.how);
        const AddOperands half(x32, y32, dtype, s.cpu);
        const Pair p = compare((half.*v.work)(), f32_add, s.trials, target_s);
        row.backplane = gelems(n, p.a);
        row.baseline = gelems(n, p.b);
        row.spread = p.spread();
      });
    }
  }
}

}  // namespace bptool::bench::dtypes
