#pragma once
// Where the reference copies run (mode_measure.h's copies alone, copy_in_place.h's in a kernel's
// place): two 256 MiB device buffers, each copy reading and writing a fresh part of them, so that
// it comes from memory, not L2.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fxscope::gpu {

class CopyRegion {
 public:
  static constexpr std::size_t kBytes = 256u << 20;

  CopyRegion() = default;
  ~CopyRegion();
  CopyRegion(const CopyRegion&) = delete;
  CopyRegion& operator=(const CopyRegion&) = delete;

  // False (the CUDA error cleared) when the device has no room for both buffers.
  bool allocate();
  // About 2 ms of work on STREAM (the source set 24 times), so that the copies run at the clocks
  // the mode ran at; synchronises.
  void warm_clocks(cudaStream_t stream) const;

  char* src() const { return static_cast<char*>(src_); }
  char* dst() const { return static_cast<char*>(dst_); }
  // Where the copy after one of HALF bytes at OFFSET starts: 4 KiB past its end, 256-byte aligned,
  // from the start again past the region's end.
  static std::size_t next_offset(std::size_t offset, std::size_t half);

 private:
  void* src_ = nullptr;
  void* dst_ = nullptr;
};

}  // namespace fxscope::gpu
