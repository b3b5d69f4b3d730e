// The "dtypes" figure's opencl:0 part, measured by bp-bench-direct
// (direct.hpp): what the OpenCL kernels' float16 and bfloat16 conversions
// cost where every element goes through them.
//
// - The conversions float32 <-> bfloat16 and float32 <-> float16 through
//   bp_assign into an existing tensor, next to clEnqueueCopyBuffer of the
//   same bytes moved on the same device (opencl_direct.hpp): 6 bytes per
//   element, as the cpu:0 rows count them next to memcpy.
// - The add in float16 and bfloat16 (each operand widened, the sum rounded
//   back), next to the same add in float32 through Backplane.
#include <memory>

#include "direct.hpp"
#include "dtypes.hpp"
#include "opencl_direct.hpp"

namespace bptool::bench::dtypes {

namespace {

constexpr double kBytesPerElement = 4 + 2;

double gelems(int64_t n, double seconds) { return double(n) / seconds / 1e9; }

// k repetitions of one Backplane call, then a synchronize of the device.
template <class F>
Work calls(bp_device device, F call) {
  return [device, call](int64_t k) {
    for (int64_t i = 0; i < k; ++i) bp::check(call());
    bp::check(bp_synchronize(device));
  };
}

void conversions(Context &ctx, Report &rep, const Setup &s, const bp::Device &d, OpenclDirect *direct,
                 const std::string &why) {
  const int64_t n = s.elements;
  const double moved = kBytesPerElement * double(n);
  const std::string baseline_name = "clEnqueueCopyBuffer of the same bytes moved (direct, same device)";
  ctx.progress("dtypes: " + d.name() + ": allocating the conversions' float32 tensor (" + s.count + " elements)");
  // As on cpu:0: values of every magnitude both halves keep apart.
  const bp::Tensor f32 = bp::random_uniform({n}, -7e4, 7e4, 3, bp::f32, d);
  f32.wait();
  if (direct) direct->copy_setup(size_t(moved / 2));
  for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT16}) {
    const std::string name = bp_dtype_name(dtype);
    for (bool to_half : {true, false}) {
      const std::string what = to_half ? "float32 -> " + name : name + " -> float32";
      Row r{"dtypes", "convert " + s.count + " " + what, d.name(), "GB/s"};
      r.baseline_name = baseline_name;
      r.note = "bp_assign into an existing tensor; GB/s of bytes read + written";
      if (!direct) r.note += "; baseline unavailable: " + why;
      add_row(ctx, rep, r, [&](Row &row) {
        ctx.progress("dtypes: " + d.name() + ": convert " + what);
        const bp::Tensor src = to_half ? f32 : f32.astype(dtype);
        const bp::Tensor dst = bp::zeros({n}, to_half ? dtype : bp::f32, d);
        src.wait();
        dst.wait();
        const Work assign = calls(d.id(), [dst = dst.handle(), src = src.handle()] { return bp_assign(dst, src); });
        if (!direct) {
          row.backplane = gbps(moved, measure(assign, s.trials, 0.001));
          return;
        }
        const Pair p = compare(assign, [direct](int64_t k) { direct->copy(k); }, s.trials, 0.001);
        row.backplane = gbps(moved, p.a);
        row.baseline = gbps(moved, p.b);
        row.spread = p.spread();
      });
    }
  }
}

void adds(Context &ctx, Report &rep, const Setup &s, const bp::Device &d) {
  const int64_t n = s.elements;
  ctx.progress("dtypes: " + d.name() + ": allocating the add's float32 operands (" + s.count + " elements)");
  const bp::Tensor x32 = bp::random_uniform({n}, 0, 1, 1, bp::f32, d);
  const bp::Tensor y32 = bp::random_uniform({n}, 0, 1, 2, bp::f32, d);
  const bp::Tensor o32 = bp::zeros({n}, bp::f32, d);
  o32.wait();
  const auto add_out = [&d](const bp::Tensor &x, const bp::Tensor &y, const bp::Tensor &o) {
    return calls(d.id(), [x = x.handle(), y = y.handle(), o = o.handle()] {
      return bp_binary_out(BP_OP_ADD, x, y, o);
    });
  };
  const Work f32_add = add_out(x32, y32, o32);
  for (bp_dtype dtype : {BP_BFLOAT16, BP_FLOAT16}) {
    const std::string name = bp_dtype_name(dtype);
    Row r{"dtypes", "add " + s.count + " " + name + " into an existing output (bp_binary_out)", d.name(), "Gelem/s"};
    r.baseline_name = "the same add in float32 through Backplane";
    r.note = "each operand widened to float32, the sum rounded back once";
    add_row(ctx, rep, r, [&](Row &row) {
      ctx.progress("dtypes: " + d.name() + ": add " + name);
      const bp::Tensor x = x32.astype(dtype), y = y32.astype(dtype), o = bp::zeros({n}, dtype, d);
      o.wait();
      const Pair p = compare(add_out(x, y, o), f32_add, s.trials, 0.001);
      row.backplane = gelems(n, p.a);
      row.baseline = gelems(n, p.b);
      row.spread = p.spread();
    });
  }
}

}  // namespace

void opencl_rows(Context &ctx, Report &rep, const Setup &s) {
  const auto ocl = devices_with_prefix("opencl");
  if (ocl.empty()) {
    rep.skip("dtypes", "float16, bfloat16 conversions and add", "opencl:0", "GB/s", "clEnqueueCopyBuffer (direct)",
             "no OpenCL device (the opencl backend is not loaded or found no device; see `bp devices`)");
    return;
  }
  const bp::Device &d = ocl[0];
  std::string why;
  const std::unique_ptr<OpenclDirect> direct = OpenclDirect::open(d, &why);
  conversions(ctx, rep, s, d, direct.get(), why);
  adds(ctx, rep, s, d);
}

}  // namespace bptool::bench::dtypes
