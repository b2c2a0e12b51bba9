// The A/B tab plans the shown unit in its two modes again only when what it compares changes:
// the canvas's own mode and level leave it as it is.
#include <QSignalSpy>
#include <QTest>

#include "context/view_context.h"
#include "panels/graph_panel.h"
#include "panels/mode_comparison_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

bool wait_idle(const views::ModeComparisonPanel& ab) {
  return QTest::qWaitFor([&] { return !ab.busy(); }, kWindowTimeoutMs);
}

// Runs CHANGE on PANEL and waits for the graph it asks for.
template <typename Change>
void replan_and_wait(views::GraphPanel& panel, Change change) {
  QSignalSpy shown(&panel, &views::GraphPanel::graph_shown);
  change();
  REQUIRE(shown.wait(kWindowTimeoutMs));
}

}  // namespace

TEST_CASE("A/B is planned once per unit, run and pair of modes", "[views][ab]") {
  qt_app();
  views::MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  views::GraphPanel& panel = window.graph_panel();
  views::ModeComparisonPanel& ab = window.mode_comparison();
  REQUIRE(wait_idle(ab));
  const QString compared = ab.summary();
  CHECK(compared.startsWith(QStringLiteral("A eager: ")));

  // The canvas shows other graphs; the comparison stands, with nothing planned for it.
  QSignalSpy planned(&ab, &views::ModeComparisonPanel::compared);
  replan_and_wait(panel, [&] { panel.context().set_mode(fusion::Mode::max_autotune); });
  CHECK_FALSE(ab.busy());
  replan_and_wait(panel, [&] { panel.context().set_level(views::GraphLevel::kDynamo); });
  CHECK_FALSE(ab.busy());
  CHECK(planned.isEmpty());
  CHECK(ab.summary() == compared);

  // Another pair of modes is another comparison.
  ab.set_modes(int(fusion::Mode::eager), int(fusion::Mode::reduce_overhead));
  CHECK(ab.busy());
  REQUIRE(wait_idle(ab));
  CHECK(planned.size() == 1);
  CHECK(ab.summary().contains(QStringLiteral("reduce-overhead")));
}

}  // namespace fxscope::test
