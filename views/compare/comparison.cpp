#include "compare/comparison.h"

#include <exception>
#include <utility>

#include "fxscope/report/run_diff_text.h"

namespace fxscope::views {

Result<ComparisonPtr> compare_logs(LoadedLogPtr before, const std::string& after_path) {
  if (!before) return make_error("no log is open to compare " + after_path + " with");
  auto after = load_log(after_path);
  if (!after) return after.error();
  // As in load_log: memory can run out on two big logs, and that must end in a message.
  try {
    auto comparison = std::make_shared<Comparison>();
    comparison->diff = report::diff_runs(before->log, (*after)->log);
    comparison->verdict = report::verdict(comparison->diff);
    comparison->details = report::to_text(comparison->diff);
    comparison->before = std::move(before);
    comparison->after = std::move(*after);
    return ComparisonPtr(std::move(comparison));
  } catch (const std::exception& error) {
    return make_error(after_path + ": " + error.what());
  }
}

}  // namespace fxscope::views
