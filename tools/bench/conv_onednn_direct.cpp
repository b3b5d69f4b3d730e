#include "conv_onednn_direct.hpp"

#include <stdexcept>
#include <vector>

#ifdef BP_BENCH_HAVE_ONEDNN
#include <omp.h>

#include <unordered_map>

#include "oneapi/dnnl/dnnl.hpp"
#endif

namespace bptool::bench {

#ifdef BP_BENCH_HAVE_ONEDNN

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Type = memory::data_type;

// One operand: the user's plain memory, the primitive's own, and the
// reorder between them when the layouts differ.
struct Operand {
  memory user, own;
  dnnl::reorder reorder;
  bool reordered = false;
  Operand() = default;
  Operand(const dnnl::engine &e, const memory::desc &plain, const memory::desc &wanted, bool into_own,
          std::vector<float> &storage)
      : user(plain, e, storage.data()) {
    reordered = plain != wanted;
    own = reordered ? memory(wanted, e) : user;
    if (reordered)
      reorder = into_own ? dnnl::reorder(user, own) : dnnl::reorder(own, user);
  }
};

}  // namespace

struct OnednnConvDirect::Impl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::vector<float> x, w, y, dy, dx, dw;
  dnnl::convolution_forward forward;
  dnnl::convolution_backward_data data;
  dnnl::convolution_backward_weights weight;
  std::string impl[3];
  Operand f_x, f_w, f_y, d_dy, d_w, d_dx, w_x, w_dy, w_dw;
};

OnednnConvDirect::OnednnConvDirect(const ConvLayer &l, int64_t batch, int threads) : impl_(new Impl) {
  Impl &m = *impl_;
  omp_set_num_threads(threads);
  const int64_t out = l.out();
  const memory::dims xd{batch, l.c_in, l.size, l.size}, yd{batch, l.c_out, out, out};
  const memory::dims wd{l.c_out, l.c_in, l.kernel, l.kernel};
  m.x.assign(size_t(batch * l.c_in * l.size * l.size), 0.5f);
  m.dx.resize(m.x.size());
  m.w.assign(size_t(l.c_out * l.c_in * l.kernel * l.kernel), 0.01f);
  m.dw.resize(m.w.size());
  m.y.resize(size_t(batch * l.c_out * out * out));
  m.dy.assign(m.y.size(), 0.25f);
  const memory::dims strides{l.stride, l.stride}, dilates{0, 0}, pad{l.pad, l.pad};
  const memory::desc x_any(xd, Type::f32, Tag::any), y_any(yd, Type::f32, Tag::any), w_any(wd, Type::f32, Tag::any);
  const memory::desc x_plain(xd, Type::f32, Tag::nchw), y_plain(yd, Type::f32, Tag::nchw);
  const memory::desc w_plain(wd, Type::f32, Tag::oihw);
  const dnnl::convolution_forward::primitive_desc fpd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, x_any,
                                      w_any, y_any, strides, dilates, pad, pad),
      m.engine);
  const dnnl::convolution_backward_data::primitive_desc dpd(
      dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, x_any, w_any, y_any, strides,
                                            dilates, pad, pad),
      m.engine, fpd);
  const dnnl::convolution_backward_weights::primitive_desc wpd(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, x_any, w_any, y_any, strides,
                                               dilates, pad, pad),
      m.engine, fpd);
  m.forward = dnnl::convolution_forward(fpd);
  m.data = dnnl::convolution_backward_data(dpd);
  m.weight = dnnl::convolution_backward_weights(wpd);
  m.impl[0] = fpd.impl_info_str(), m.impl[1] = dpd.impl_info_str(), m.impl[2] = wpd.impl_info_str();
  m.f_x = Operand(m.engine, x_plain, fpd.src_desc(), true, m.x);
  m.f_w = Operand(m.engine, w_plain, fpd.weights_desc(), true, m.w);
  m.f_y = Operand(m.engine, y_plain, fpd.dst_desc(), false, m.y);
  m.d_dy = Operand(m.engine, y_plain, dpd.diff_dst_desc(), true, m.dy);
  m.d_w = Operand(m.engine, w_plain, dpd.weights_desc(), true, m.w);
  m.d_dx = Operand(m.engine, x_plain, dpd.diff_src_desc(), false, m.dx);
  m.w_x = Operand(m.engine, x_plain, wpd.src_desc(), true, m.x);
  m.w_dy = Operand(m.engine, y_plain, wpd.diff_dst_desc(), true, m.dy);
  m.w_dw = Operand(m.engine, w_plain, wpd.diff_weights_desc(), false, m.dw);
}

OnednnConvDirect::~OnednnConvDirect() = default;

void OnednnConvDirect::run(ConvPass pass, int64_t k) {
  Impl &m = *impl_;
  auto in = [&](Operand &o) {
    if (o.reordered) o.reorder.execute(m.stream, o.user, o.own);
  };
  auto back = [&](Operand &o) {
    if (o.reordered) o.reorder.execute(m.stream, o.own, o.user);
  };
  for (int64_t i = 0; i < k; ++i) {
    if (pass == ConvPass::forward) {
      in(m.f_x), in(m.f_w);
      m.forward.execute(m.stream, {{DNNL_ARG_SRC, m.f_x.own}, {DNNL_ARG_WEIGHTS, m.f_w.own}, {DNNL_ARG_DST, m.f_y.own}});
      back(m.f_y);
    } else if (pass == ConvPass::data) {
      in(m.d_dy), in(m.d_w);
      m.data.execute(m.stream,
                     {{DNNL_ARG_DIFF_DST, m.d_dy.own}, {DNNL_ARG_WEIGHTS, m.d_w.own}, {DNNL_ARG_DIFF_SRC, m.d_dx.own}});
      back(m.d_dx);
    } else {
      in(m.w_x), in(m.w_dy);
      m.weight.execute(m.stream,
                       {{DNNL_ARG_SRC, m.w_x.own}, {DNNL_ARG_DIFF_DST, m.w_dy.own}, {DNNL_ARG_DIFF_WEIGHTS, m.w_dw.own}});
      back(m.w_dw);
    }
  }
  m.stream.wait();
}

std::string OnednnConvDirect::implementation(ConvPass pass) const { return impl_->impl[int(pass)]; }

std::string onednn_direct_missing() { return ""; }

#else

struct OnednnConvDirect::Impl {};

OnednnConvDirect::OnednnConvDirect(const ConvLayer &, int64_t, int) {
  throw std::runtime_error(onednn_direct_missing());
}
OnednnConvDirect::~OnednnConvDirect() = default;
void OnednnConvDirect::run(ConvPass, int64_t) {}
std::string OnednnConvDirect::implementation(ConvPass) const { return ""; }
std::string onednn_direct_missing() { return "bp-bench-direct was built without oneDNN (libdnnl-dev)"; }

#endif

}  // namespace bptool::bench
