#pragma once
// Where fxscope looks for NVIDIA's libraries when a GPU run first needs one (none is linked, so
// `summary`, `fuse`, `guards` and `export` start and run on machines without CUDA): the loader's
// own path first (LD_LIBRARY_PATH, ld.so.cache), then the CUDA toolkit folders fxscope was built
// against, /usr/local/cuda, PyTorch's nvidia-* wheels, and the unversioned name last (a toolkit
// that installed only the development link; each library's version is checked once loaded).

#include <string>

#include "fxscope/core/shared_library.h"

namespace fxscope::gpu {

struct CudaLibrary {
  std::string library;  // the name a user knows: "cuBLASLt"
  std::string stem;     // the file name without ".so": "libcublasLt"
  int major = 0;        // the soname's version: libcublasLt.so.13
  std::string package;  // what to install: "the CUDA 13 toolkit's cuBLAS (libcublas-13-0)"
  std::string wheel;    // PyTorch's wheel: "nvidia-cublas"
  std::string folder;   // its folder under site-packages/nvidia/ (CUDA 12's layout): "cublas"
};

// "the CUDA 13 toolkit's cuBLAS (libcublas-13-0)": a part of the toolkit built against, and
// NVIDIA's Debian package of it.
std::string toolkit_package(const std::string& part, const std::string& debian_package);

// The candidates in the order above, and what to install when none loads.
LibrarySearch cuda_library_search(const CudaLibrary& library);

}  // namespace fxscope::gpu
