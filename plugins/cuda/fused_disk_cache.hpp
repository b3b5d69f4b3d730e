// Compiled fused kernels on disk, so that a program compiled by one process
// is loaded by the next without NVRTC: one file per kernel under
// $XDG_CACHE_HOME/backplane/cuda (else ~/.cache/backplane/cuda). An entry
// is used only when it holds exactly the identity asked for (fused_identity:
// NVRTC's version, the target, the embedded headers and the source), so a
// hash collision or another build's file is a miss, never a wrong kernel.
// Every failure (no home, no permission, a short or damaged file) is a miss
// or a skipped store: the disk cache never fails a call.
#pragma once

#include <string>

#include "fused_nvrtc.hpp"

namespace bp_cuda {

// The cache directory, or "" when neither XDG_CACHE_HOME nor HOME is set.
std::string fused_cache_dir();

// Everything a compiled image depends on, as text.
std::string fused_identity(const std::string &source, const std::string &target);

// The image stored in `dir` for `identity`, if there is an intact one.
bool load_fused_image(const std::string &dir, const std::string &identity, FusedImage &image);

// Stores the image (a temporary file renamed into place, so readers never
// see half a file); creates the directory as needed.
void store_fused_image(const std::string &dir, const std::string &identity, const FusedImage &image);

}  // namespace bp_cuda
