// The convolutions through cuDNN 9's convolution routines
// (cudnnConvolutionForward, BackwardData, BackwardFilter), computed in
// float32 or float64: float16 and bfloat16 operands are widened exactly and
// the result, bias included, rounded once when it is copied out, as
// plugin.h asks. cuDNN pads both ends of an axis alike and wants dense
// filters, so: operands that are not dense arrays of the compute dtype are
// copied into ones; x gets the padding by which its end exceeds its begin as
// explicit zeros (pad_begin is cuDNN's padding); y and dy get the positions
// that cuDNN's symmetric window adds past plugin.h's extent (zeros in dy,
// dropped from y); the result is copied back from that.
#include "conv_cudnn.hpp"

#include <cudnn.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "backplane/sdk/coalesce.h"
#include "backplane/sdk/conv.h"
#include "dense_copy.hpp"
#include "device_registry.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "iteration.hpp"
#include "kernels.hpp"
#include "scratch.hpp"

namespace bp_cuda {

namespace {

void check_cudnn(cudnnStatus_t status, const char *call, const Device &device) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  fail(status == CUDNN_STATUS_ALLOC_FAILED ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND, "%s failed on %s: %s (%d)", call,
       device.name(), cudnnGetErrorString(status), int(status));
}

// One cuDNN handle per device, made on first use under the device's lock
// and bound to its stream at every call.
cudnnHandle_t handle_for(Device &device, const Device::Lock &lock) {
  constexpr int32_t kDevices = 256;  // a backend's most devices (the core's limit)
  static cudnnHandle_t handles[kDevices] = {};
  const int32_t i = device.index();
  if (i < 0 || i >= kDevices) fail(BP_ERR_INTERNAL, "cuda: device index %d has no cuDNN handle slot", int(i));
  device.activate(lock);
  if (!handles[i]) check_cudnn(cudnnCreate(&handles[i]), "cudnnCreate", device);
  check_cudnn(cudnnSetStream(handles[i], device.stream(lock)), "cudnnSetStream", device);
  return handles[i];
}

template <class D, cudnnStatus_t (*Create)(D *), cudnnStatus_t (*Destroy)(D)>
struct Descriptor {
  Descriptor(const Device &device, const char *call) { check_cudnn(Create(&d), call, device); }
  ~Descriptor() { Destroy(d); }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  D d = nullptr;
};
using TensorDesc = Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc = Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                            cudnnDestroyConvolutionDescriptor>;

int narrow(const Device &device, int64_t v) {
  if (v > INT_MAX) fail(BP_ERR_UNSUPPORTED, "cuda: a convolution extent of %lld exceeds cuDNN's int", (long long)v);
  (void)device;
  return int(v);
}

// [a, b, extents...] as cuDNN's dims: at least 4, a 1-D problem as [a, b, 1, w].
std::vector<int> cudnn_dims(const Device &device, int64_t a, int64_t b, const int64_t *ext, int rank) {
  std::vector<int> dims{narrow(device, a), narrow(device, b)};
  if (rank == 1) dims.push_back(1);
  for (int i = 0; i < rank; ++i) dims.push_back(narrow(device, ext[i]));
  return dims;
}

void dense_tensor(const Device &device, const TensorDesc &t, cudnnDataType_t type, const std::vector<int> &dims) {
  std::vector<int> strides(dims.size());
  int stride = 1;
  for (size_t d = dims.size(); d-- > 0;) strides[d] = stride, stride *= dims[d];
  check_cudnn(cudnnSetTensorNdDescriptor(t.d, type, int(dims.size()), dims.data(), strides.data()),
              "cudnnSetTensorNdDescriptor", device);
}

// A dense array of `compute` elements shaped [v.shape[0], v.shape[1],
// ext...] (ext at least v's spatial extents: the rest is zeros), holding v:
// v's own memory when it already is one.
struct Dense {
  void *data = nullptr;
  bool own = false;  // a scratch copy (of an output: copied back by finish)
  int64_t strides[BP_MAX_RANK] = {};
  uint64_t bytes = 0;

  Dense(const Launch &launch, Scratch &scratch, const View &v, int32_t compute, const int64_t *ext, bool fill) {
    int64_t shape[BP_MAX_RANK] = {v.shape[0], v.rank > 1 ? v.shape[1] : 1};
    bool padded = false;
    for (int32_t d = 2; d < v.rank; ++d) shape[d] = ext ? ext[d - 2] : v.shape[d], padded |= shape[d] != v.shape[d];
    own = padded || v.dtype != compute || !bp_sdk_is_dense(v.rank, v.shape, v.strides);
    if (!own) {
      data = v.base;
      return;
    }
    int64_t stride = 1;
    for (int32_t d = v.rank - 1; d >= 0; --d) strides[d] = stride, stride *= shape[d];
    bytes = uint64_t(stride) * uint64_t(dtype_size(compute));
    data = scratch.get(bytes);
    if (!fill) return;
    if (padded) check_cuda(cudaMemsetAsync(data, 0, bytes, launch.stream), "cudaMemsetAsync", launch.device);
    copy_view(launch, v, part(v, compute));
  }
  // The part of the array that holds v.
  View part(const View &v, int32_t compute) const {
    return View{static_cast<char *>(data), compute, v.rank, v.numel, v.shape, strides, nullptr, 0, bytes};
  }
  void finish(const Launch &launch, const View &v, int32_t compute) const {
    if (own) copy_view(launch, part(v, compute), v);
  }
};

// A result no product reaches (no batch or no channels): the bias, or 0.
void bias_only(const Launch &launch, const View *bias, const View &out) {
  if (!bias) {
    launch_create(launch, BP_OP_FILL, out.dtype, make_iter_shape(out.rank, out.shape, {out.strides}), out.base, 0, 0,
                  0);
    return;
  }
  int64_t strides[BP_MAX_RANK] = {};
  strides[1] = bias->strides[0];
  copy_view(launch, View{bias->base, bias->dtype, out.rank, out.numel, out.shape, strides, nullptr, 0, 0}, out);
}

}  // namespace

void run_conv_cudnn(Device &device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                    const bp_plugin_tensor *output, const View *in, const View &out) {
  char message[512];
  bp_sdk_conv g;
  const bp_status s =
      bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), inputs, output, &g, message, sizeof message);
  if (s != BP_OK) fail(s, "%s", message);
  if (out.numel == 0) return;
  const View *bias = bp_sdk_absent(&inputs[2]) ? nullptr : &in[2];
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (g.n == 0 || g.c_in == 0 || g.c_out == 0) return bias_only(launch, op == BP_OP_CONV_WEIGHT_GRAD ? nullptr : bias, out);

  const int r = g.rank;
  // cuDNN's problem: x padded at its end to S', its window padded by
  // pad_begin on both sides, so y has O' >= O positions.
  int64_t s_ext[BP_WINDOW_MAX_RANK], o_ext[BP_WINDOW_MAX_RANK];
  std::vector<int> pad, stride, dilation;
  for (int i = 0; i < r; ++i) {
    s_ext[i] = g.in[i] + std::max<int64_t>(0, g.pad_end[i] - g.pad_begin[i]);
    o_ext[i] = (s_ext[i] + 2 * g.pad_begin[i] - g.dilation[i] * (g.kernel[i] - 1) - 1) / g.stride[i] + 1;
  }
  if (r == 1) pad.push_back(0), stride.push_back(1), dilation.push_back(1);
  for (int i = 0; i < r; ++i)
    pad.push_back(narrow(device, g.pad_begin[i])), stride.push_back(narrow(device, g.stride[i])),
        dilation.push_back(narrow(device, g.dilation[i]));

  const int32_t compute = out.dtype == BP_FLOAT64 ? BP_FLOAT64 : BP_FLOAT32;
  const cudnnDataType_t type = compute == BP_FLOAT64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  cudnnHandle_t h = handle_for(device, lock);
  TensorDesc xd(device, "cudnnCreateTensorDescriptor"), yd(device, "cudnnCreateTensorDescriptor");
  FilterDesc wd(device, "cudnnCreateFilterDescriptor");
  ConvDesc cd(device, "cudnnCreateConvolutionDescriptor");
  dense_tensor(device, xd, type, cudnn_dims(device, g.n, g.c_in, s_ext, r));
  dense_tensor(device, yd, type, cudnn_dims(device, g.n, g.c_out, o_ext, r));
  const std::vector<int> w_dims = cudnn_dims(device, g.c_out, g.c_in / g.groups, g.kernel, r);
  check_cudnn(cudnnSetFilterNdDescriptor(wd.d, type, CUDNN_TENSOR_NCHW, int(w_dims.size()), w_dims.data()),
              "cudnnSetFilterNdDescriptor", device);
  check_cudnn(cudnnSetConvolutionNdDescriptor(cd.d, int(pad.size()), pad.data(), stride.data(), dilation.data(),
                                              CUDNN_CROSS_CORRELATION, type),
              "cudnnSetConvolutionNdDescriptor", device);
  check_cudnn(cudnnSetConvolutionGroupCount(cd.d, g.groups), "cudnnSetConvolutionGroupCount", device);
  // float32 stays float32 unless TF32 is allowed (as for cuBLAS).
  const cudnnMathType_t math = type == CUDNN_DATA_DOUBLE         ? CUDNN_DEFAULT_MATH
                               : registry().allow_tf32.load()    ? CUDNN_TENSOR_OP_MATH
                                                                 : CUDNN_FMA_MATH;
  check_cudnn(cudnnSetConvolutionMathType(cd.d, math), "cudnnSetConvolutionMathType", device);

  const double one_d = 1, zero_d = 0;
  const float one_f = 1, zero_f = 0;
  const void *one = type == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&one_d) : &one_f;
  const void *zero = type == CUDNN_DATA_DOUBLE ? static_cast<const void *>(&zero_d) : &zero_f;
  Scratch scratch(device, lock);
  auto workspace = [&](size_t bytes) { return bytes ? scratch.get(bytes) : nullptr; };
  const Dense w(launch, scratch, op == BP_OP_CONV_WEIGHT_GRAD ? out : in[1], compute, g.kernel,
                op != BP_OP_CONV_WEIGHT_GRAD);
  // The bias, added in the compute dtype before the one rounding.
  auto add_bias = [&](const TensorDesc &target, void *data, int64_t channels) {
    if (!bias) return;
    const Dense b(launch, scratch, *bias, compute, nullptr, true);
    TensorDesc bd(device, "cudnnCreateTensorDescriptor");
    std::vector<int> dims(size_t(std::max(r, 2) + 2), 1);
    dims[1] = narrow(device, channels);
    dense_tensor(device, bd, type, dims);
    check_cudnn(cudnnAddTensor(h, one, bd.d, b.data, one, target.d, data), "cudnnAddTensor", device);
  };

  if (op == BP_OP_CONV) {
    const Dense x(launch, scratch, in[0], compute, s_ext, true), y(launch, scratch, out, compute, o_ext, false);
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, xd.d, wd.d, cd.d, yd.d, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                       &found, perf),
                "cudnnGetConvolutionForwardAlgorithm_v7", device);
    const auto pick = std::find_if(perf, perf + found, [](const auto &p) { return p.status == CUDNN_STATUS_SUCCESS; });
    if (pick == perf + found) fail(BP_ERR_UNSUPPORTED, "cuda: cuDNN has no forward algorithm for this convolution");
    size_t bytes = 0;
    check_cudnn(cudnnGetConvolutionForwardWorkspaceSize(h, xd.d, wd.d, cd.d, yd.d, pick->algo, &bytes),
                "cudnnGetConvolutionForwardWorkspaceSize", device);
    check_cudnn(cudnnConvolutionForward(h, one, xd.d, x.data, wd.d, w.data, cd.d, pick->algo, workspace(bytes), bytes,
                                        zero, yd.d, y.data),
                "cudnnConvolutionForward", device);
    add_bias(yd, y.data, g.c_out);
    return y.finish(launch, out, compute);
  }
  if (op == BP_OP_CONV_TRANSPOSE) {
    const Dense dy(launch, scratch, in[0], compute, o_ext, true), dx(launch, scratch, out, compute, s_ext, false);
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int found = 0;
    check_cudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd.d, yd.d, cd.d, xd.d,
                                                            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
                "cudnnGetConvolutionBackwardDataAlgorithm_v7", device);
    const auto pick = std::find_if(perf, perf + found, [](const auto &p) { return p.status == CUDNN_STATUS_SUCCESS; });
    if (pick == perf + found) fail(BP_ERR_UNSUPPORTED, "cuda: cuDNN has no backward-data algorithm for this convolution");
    size_t bytes = 0;
    check_cudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd.d, yd.d, cd.d, xd.d, pick->algo, &bytes),
                "cudnnGetConvolutionBackwardDataWorkspaceSize", device);
    check_cudnn(cudnnConvolutionBackwardData(h, one, wd.d, w.data, yd.d, dy.data, cd.d, pick->algo, workspace(bytes),
                                             bytes, zero, xd.d, dx.data),
                "cudnnConvolutionBackwardData", device);
    add_bias(xd, dx.data, g.c_in);
    return dx.finish(launch, out, compute);
  }
  const Dense x(launch, scratch, in[0], compute, s_ext, true), dy(launch, scratch, in[1], compute, o_ext, true);
  cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int found = 0;
  check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd.d, yd.d, cd.d, wd.d,
                                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
              "cudnnGetConvolutionBackwardFilterAlgorithm_v7", device);
  const auto pick = std::find_if(perf, perf + found, [](const auto &p) { return p.status == CUDNN_STATUS_SUCCESS; });
  if (pick == perf + found) fail(BP_ERR_UNSUPPORTED, "cuda: cuDNN has no backward-filter algorithm for this convolution");
  size_t bytes = 0;
  check_cudnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd.d, yd.d, cd.d, wd.d, pick->algo, &bytes),
              "cudnnGetConvolutionBackwardFilterWorkspaceSize", device);
  check_cudnn(cudnnConvolutionBackwardFilter(h, one, xd.d, x.data, yd.d, dy.data, cd.d, pick->algo, workspace(bytes),
                                             bytes, zero, wd.d, w.data),
              "cudnnConvolutionBackwardFilter", device);
  w.finish(launch, out, compute);
}

}  // namespace bp_cuda
