#pragma once
// What libfxscope_cupti.so recorded in one process, read back from its JSON lines: kernels,
// copies and sets, NVTX ranges (start and end paired), and the host start of each launching call.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

// One kernel execution; times are CUPTI nanoseconds. graph is 0 outside CUDA graphs.
struct KernelRecord {
  std::string name;  // demangled
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::array<int, 3> grid{};
  std::array<int, 3> block{};
  std::uint32_t registers = 0;
  std::int32_t static_smem = 0;
  std::int32_t dynamic_smem = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  std::uint32_t graph = 0;
  std::uint64_t graph_node = 0;

  double us() const { return static_cast<double>(end - start) / 1000.0; }
};

// One memcpy or memset.
struct CopyRecord {
  std::string kind;  // "memcpy" or "memset"
  std::uint64_t bytes = 0;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  std::uint32_t graph = 0;
};

// One NVTX push/pop range on the host.
struct MarkerRange {
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

struct CuptiRecords {
  std::vector<KernelRecord> kernels;  // sorted by start
  std::vector<CopyRecord> copies;
  std::vector<MarkerRange> ranges;                                // sorted by start
  std::unordered_map<std::uint32_t, std::uint64_t> launch_start;  // correlation -> host time

  // When the kernel's launching call started on the host (the kernel's start when unknown).
  std::uint64_t launched_at(const KernelRecord& kernel) const;
};

// Parses TEXT (JSON lines); WHERE names it in errors ("PATH line N: ...").
Result<CuptiRecords> parse_cupti_lines(std::string_view text, const std::string& where);
Result<CuptiRecords> read_cupti_file(const std::string& path);

}  // namespace fxscope::gpu
