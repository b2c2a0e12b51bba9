#pragma once
// CUPTI's Activity API inside fxscope's own process: kernel, memcpy and memset records of the
// engine's launches, and (while step tagging is on) which plan step launched each kernel,
// through external correlation ids pushed around every step. CUPTI allows one such client per
// process, so this is a process-wide session.

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "fxscope/core/result.h"
#include "fxscope/gpu/cupti_records.h"

namespace fxscope::gpu {

struct ActivityBatch {
  CuptiRecords records;
  std::unordered_map<std::uint32_t, std::uint64_t> step_of;  // correlation id -> tagged step
};

class CuptiActivity {
 public:
  ~CuptiActivity();
  CuptiActivity(const CuptiActivity&) = delete;
  CuptiActivity& operator=(const CuptiActivity&) = delete;

  // Starts recording kernels, copies and sets; fails when CUPTI is missing or already in use.
  static Result<std::unique_ptr<CuptiActivity>> start();

  // Step tagging needs API records, which slow launches down: on only for attribution passes.
  void tag_steps(bool on);
  // Kernel, copy and set records on or off: off while a mode's total time is measured, so that
  // CUPTI's own work stays out of the figures it does not measure.
  void record(bool on);
  void push_step(std::uint64_t step);
  void pop_step();

  // Everything recorded since the last take (the device must be idle).
  ActivityBatch take();

 private:
  CuptiActivity() = default;
  bool tagging_ = false;
};

}  // namespace fxscope::gpu
