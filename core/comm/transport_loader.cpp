#include "comm/transport_loader.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "errors/error.hpp"

namespace bp::core::dist {

#ifndef BP_WITH_MPI_TRANSPORT

const bp_transport &transport() {
  fail(BP_ERR_UNSUPPORTED, "built without MPI: install libopenmpi-dev and rebuild");
}

#else

namespace {

// The directory of the file that holds this code: libbackplane.so, in the
// build tree and the install tree alike (the module is built and installed
// beside it).
std::string library_directory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&library_directory), &info) || !info.dli_fname) return {};
  std::error_code ec;
  const std::filesystem::path lib = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string() : lib.parent_path().string();
}

const bp_transport *open_transport() {
  const std::string dir = library_directory();
  if (dir.empty())
    fail(BP_ERR_UNSUPPORTED, "cannot tell where libbackplane.so is, so cannot find " BP_TRANSPORT_FILE);
  const std::string path = dir + "/" BP_TRANSPORT_FILE;
  // Local: MPI's symbols stay out of the application's namespace. Never
  // closed: MPI cannot be unloaded and started again.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char *why = dlerror();
    fail(BP_ERR_UNSUPPORTED, "cannot load the MPI transport " + path + ": " + (why ? why : "unknown reason") +
                                 " (it needs the MPI library it was built with: libopenmpi3)");
  }
  auto get = reinterpret_cast<bp_transport_get_fn>(dlsym(handle, BP_TRANSPORT_ENTRY));
  const bp_transport *t = get ? get() : nullptr;
  if (!t || t->version != BP_TRANSPORT_VERSION || t->struct_size < sizeof(bp_transport))
    fail(BP_ERR_UNSUPPORTED, path + " is not the MPI transport of this libbackplane (another build?): " +
                                 (t ? "its table has version " + std::to_string(t->version) + " and size " +
                                          std::to_string(t->struct_size)
                                    : std::string("no " BP_TRANSPORT_ENTRY)) +
                                 "; rebuild and install both together");
  if (!t->init || !t->finalize || !t->topology || !t->library || !t->all_reduce || !t->broadcast ||
      !t->all_gather || !t->reduce_scatter || !t->last_error)
    fail(BP_ERR_UNSUPPORTED, path + " has an incomplete transport table; rebuild it");
  return t;
}

}  // namespace

const bp_transport &transport() {
  static std::mutex mutex;
  static const bp_transport *loaded = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  // A failure is not cached: the file may be installed while the process runs.
  if (!loaded) loaded = open_transport();
  return *loaded;
}

#endif

}  // namespace bp::core::dist
