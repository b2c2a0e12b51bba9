// The Compare tab's models through QAbstractItemModelTester, filled from a real comparison,
// cleared and filled again; and what they say of two modes of one model.
#include <QAbstractItemModelTester>
#include <algorithm>

#include "compare/comparison.h"
#include "models/comparison_summary_model.h"
#include "models/unit_comparison_model.h"
#include "sample_log_file.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

views::ComparisonPtr residual_against_max_autotune() {
  auto comparison = views::compare_logs(views::load_log(sample_log_file("residual_mlp")).value(),
                                        sample_log_file("max_autotune_mlp"));
  REQUIRE(comparison.ok());
  return *comparison;
}

template <class Model>
void check_through_reset(Model& model, const views::ComparisonPtr& comparison) {
  QtWarningCapture warnings;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.set_comparison(comparison);
  model.set_comparison(nullptr);
  model.set_comparison(comparison);
  CHECK(warnings.text().empty());
}

}  // namespace

TEST_CASE("the units table pairs the one unit and says its kernels changed", "[views][compare]") {
  qt_app();
  const auto comparison = residual_against_max_autotune();
  views::UnitComparisonModel model;
  check_through_reset(model, comparison);
  REQUIRE(model.rowCount() == 1);
  CHECK(model.mark(0) == views::ChangeMark::changed);
  CHECK(model.before_id(0) == QStringLiteral("0/0"));
  CHECK(model.index(0, views::UnitComparisonModel::kWhat)
            .data()
            .toString()
            .contains(QStringLiteral("kernel change")));
}

TEST_CASE("the summary puts compile time before beside after", "[views][compare]") {
  qt_app();
  const auto comparison = residual_against_max_autotune();
  views::ComparisonSummaryModel model;
  check_through_reset(model, comparison);
  // After the counts and each cache's lookups (the FX graph cache was disabled on both sides).
  int row = -1;
  for (int r = 0; r < model.rowCount(); ++r) {
    if (model.index(r, 0).data().toString() == QStringLiteral("Compile time")) row = r;
  }
  REQUIRE(row == 7);
  CHECK(model.index(6, 0).data().toString() == QStringLiteral("FX graph cache lookups: disabled"));
  CHECK(model.index(6, 1).data().toString() == QStringLiteral("1"));
  const auto& d = comparison->diff;
  CHECK(model.index(row, 1).data().toString() ==
        QStringLiteral("%1 s").arg(d.a_compile_s, 0, 'f', 2));
  CHECK(model.index(row, 2).data().toString() ==
        QStringLiteral("%1 s").arg(d.b_compile_s, 0, 'f', 2));
  // max-autotune compiles longer: the change is positive.
  CHECK(model.index(row, 3).data().toString().startsWith(QStringLiteral("+")));
}

TEST_CASE("the summary's cache rows pass the model tester", "[views][compare]") {
  qt_app();
  auto comparison = views::compare_logs(views::load_log(sample("pairs/cache_warm")).value(),
                                        sample("pairs/cache_config"));
  REQUIRE(comparison.ok());
  views::ComparisonSummaryModel model;
  check_through_reset(model, *comparison);
  // Four cache rows (FX graph and AOTAutograd, hits and misses) and one key component.
  const int phases = int(std::min<std::size_t>((*comparison)->diff.phases.size(), 8));
  CHECK(model.rowCount() == 5 + phases + 4 + 1);
}

}  // namespace fxscope::test
