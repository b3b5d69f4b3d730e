// The CONV family (CONV, CONV_TRANSPOSE, CONV_WEIGHT_GRAD) through cuDNN 9's
// convolution routines, on the device's stream.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "device.hpp"
#include "view.hpp"

namespace bp_cuda {

// attrs->params is the window; in[2] is the bias unless inputs[2] is absent.
void run_conv_cudnn(Device &device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                    const bp_plugin_tensor *output, const View *in, const View &out);

}  // namespace bp_cuda
