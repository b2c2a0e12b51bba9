// The view context the window's panels share: the graph panel's boxes show and change it, and
// its plan cache plans each (unit, level, groups, mode) once however often the view returns to it.
#include <QComboBox>
#include <QSignalSpy>

#include "context/view_context.h"
#include "panels/graph_panel.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

using views::GraphPanel;

// Runs CHANGE and waits for the graph it asks for, planned or taken from the cache.
template <typename Change>
views::CanvasGraphPtr shown_after(GraphPanel& panel, Change change) {
  QSignalSpy shown(&panel, &GraphPanel::graph_shown);
  change();
  if (shown.isEmpty()) REQUIRE(shown.wait(kTimeoutMs));
  REQUIRE_FALSE(panel.busy());
  REQUIRE(panel.shown());
  return panel.shown();
}

}  // namespace

TEST_CASE("Mode and level switches plan each distinct view once", "[views][context]") {
  qt_app();
  GraphPanel panel;
  views::ViewContext& context = panel.context();
  panel.context().set_log(load_sample("residual_mlp"));
  const auto planned = [&] { return context.plans()->plans(); };
  CHECK(planned() == 0);

  const auto fused = shown_after(panel, [&] { panel.context().set_unit(0); });
  CHECK(fused->request.mode == fusion::Mode::default_mode);
  CHECK(planned() == 1);
  const auto eager = shown_after(panel, [&] { context.set_mode(fusion::Mode::eager); });
  CHECK(eager->request.mode == fusion::Mode::eager);
  CHECK(planned() == 2);
  // Back to default: the graph planned first, the very same object, and no planning.
  CHECK(shown_after(panel, [&] { context.set_mode(fusion::Mode::default_mode); }) == fused);
  CHECK(planned() == 2);
  const auto dynamo =
      shown_after(panel, [&] { panel.context().set_level(views::GraphLevel::kDynamo); });
  CHECK(dynamo->request.level == views::GraphLevel::kDynamo);
  CHECK(planned() == 3);
  CHECK(shown_after(panel, [&] { panel.context().set_level(views::GraphLevel::kAten); }) == fused);
  CHECK(shown_after(panel, [&] { panel.context().set_mode(fusion::Mode::eager); }) == eager);
  // Choosing the shown unit again shows it anew, from the cache.
  CHECK(shown_after(panel, [&] { panel.context().set_unit(0); }) == eager);
  CHECK(planned() == 3);

  // Another log starts a cache of its own.
  panel.context().set_log(load_sample("pointwise_chain"));
  CHECK(planned() == 0);
  CHECK_FALSE(context.unit().has_value());
  shown_after(panel, [&] { panel.context().set_unit(0); });
  CHECK(planned() == 1);
}

TEST_CASE("The graph panel's boxes show the context and change it", "[views][context]") {
  qt_app();
  GraphPanel panel;
  views::ViewContext& context = panel.context();
  auto* mode = panel.findChild<QComboBox*>(QStringLiteral("graph_mode"));
  auto* level = panel.findChild<QComboBox*>(QStringLiteral("graph_level"));
  REQUIRE(mode != nullptr);
  REQUIRE(level != nullptr);
  CHECK(fusion::Mode(mode->currentData().toInt()) == fusion::Mode::default_mode);

  QSignalSpy changed(&context, &views::ViewContext::view_changed);
  context.set_mode(fusion::Mode::max_autotune);
  CHECK(fusion::Mode(mode->currentData().toInt()) == fusion::Mode::max_autotune);
  CHECK(changed.count() == 1);
  context.set_mode(fusion::Mode::max_autotune);  // no change, no signal
  CHECK(changed.count() == 1);

  level->setCurrentIndex(level->findData(int(views::GraphLevel::kDynamo)));
  CHECK(context.level() == views::GraphLevel::kDynamo);
  CHECK(changed.count() == 2);
  CHECK(context.mode() == fusion::Mode::max_autotune);

  QSignalSpy run_changed(&context, &views::ViewContext::run_changed);
  const auto run = std::make_shared<const report::RunResult>();
  context.set_run(run);
  CHECK(run_changed.count() == 1);
  CHECK(context.run() == run);
  CHECK(panel.heat_shown());  // a new run is what to see
}

}  // namespace fxscope::test
