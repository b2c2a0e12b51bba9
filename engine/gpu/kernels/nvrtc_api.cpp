#include "kernels/nvrtc_api.h"

#include <cuda_runtime_api.h>

#include "runtime/cuda_libraries.h"

namespace fxscope::gpu {
namespace {

// NVRTC's soname follows the CUDA release it came with (libnvrtc.so.13 for CUDA 13).
constexpr int kNvrtcMajor = CUDART_VERSION / 1000;

// NVRTC opens its builtins (libnvrtc-builtins.so.13.0) by soname, from the loader's path only:
// where NVRTC itself was found elsewhere (a wheel, the build's toolkit folder), the builtins
// beside it are loaded first, and NVRTC's own dlopen then finds them by their soname. Where they
// cannot be, NVRTC's compile error names them.
void load_builtins_beside(const std::string& nvrtc_path, int major, int minor) {
  const auto slash = nvrtc_path.rfind('/');
  if (slash == std::string::npos) return;
  const std::string builtins = nvrtc_path.substr(0, slash + 1) + "libnvrtc-builtins.so." +
                               std::to_string(major) + "." + std::to_string(minor);
  (void)SharedLibrary::open({"NVRTC's builtins", {builtins}, ""});
}

std::optional<Error> bind_nvrtc(const SharedLibrary& so, NvrtcApi& a) {
  EntryPoints points(so);
  points.bind("nvrtcVersion", a.version)
      .bind("nvrtcGetErrorString", a.error_string)
      .bind("nvrtcCreateProgram", a.create_program)
      .bind("nvrtcDestroyProgram", a.destroy_program)
      .bind("nvrtcCompileProgram", a.compile_program)
      .bind("nvrtcGetProgramLogSize", a.program_log_size)
      .bind("nvrtcGetProgramLog", a.program_log)
      .bind("nvrtcGetCUBINSize", a.cubin_size)
      .bind("nvrtcGetCUBIN", a.cubin);
  const std::string expected = "NVRTC " + std::to_string(kNvrtcMajor);
  if (auto e = points.missing(expected)) return e;
  int major = 0;
  int minor = 0;
  a.version(&major, &minor);
  if (major != kNvrtcMajor) {
    return so.wrong_version("NVRTC " + std::to_string(major) + "." + std::to_string(minor),
                            expected);
  }
  load_builtins_beside(so.path(), major, minor);
  return std::nullopt;
}

}  // namespace

Result<const NvrtcApi*> nvrtc_api() {
  static const LoadedLibrary<NvrtcApi> loaded(
      cuda_library_search({"NVRTC", "libnvrtc", kNvrtcMajor, toolkit_package("NVRTC", "cuda-nvrtc"),
                           "nvidia-cuda-nvrtc", "cuda_nvrtc"}),
      bind_nvrtc);
  return loaded.get();
}

}  // namespace fxscope::gpu
