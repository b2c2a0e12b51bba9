// The Kernels and A/B tabs follow the window's ViewContext itself: a mode chosen or a run set on
// the context, not through the graph panel, reaches their models.
#include <QSignalSpy>
#include <QTest>
#include <set>

#include "context/view_context.h"
#include "fxscope/report/run_result.h"
#include "layout/heat_overlay.h"
#include "models/kernels_model.h"
#include "models/mode_comparison_model.h"
#include "panels/kernels_panel.h"
#include "panels/mode_comparison_panel.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

// The planned groups the Kernels rows name.
std::set<QString> row_groups(const views::KernelsModel& model) {
  std::set<QString> groups;
  for (int r = 0; r < model.rowCount(); ++r) groups.insert(model.row_at(r)->group);
  return groups;
}

std::set<QString> graph_groups(const views::CanvasGraph& graph) {
  std::set<QString> groups;
  for (const auto& group : graph.groups) groups.insert(QString::fromStdString(group.name));
  return groups;
}

}  // namespace

TEST_CASE("A mode set on the context changes the Kernels rows to that mode's kernels",
          "[views][context]") {
  qt_app();
  views::MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  views::ViewContext& context = window.context();
  const views::KernelsPanel& kernels = window.kernels_panel();
  REQUIRE(context.graph());
  CHECK(context.graph()->request.mode == fusion::Mode::default_mode);
  const std::set<QString> fused = row_groups(kernels.model());
  CHECK(fused == graph_groups(*context.graph()));
  CHECK(kernels.caption().contains(QStringLiteral(" in default: ")));

  QSignalSpy drawn(&context, &views::ViewContext::graph_changed);
  context.set_mode(fusion::Mode::eager);
  REQUIRE(drawn.wait(kWindowTimeoutMs));
  REQUIRE(context.graph());
  REQUIRE(context.graph()->request.mode == fusion::Mode::eager);
  const std::set<QString> eager = row_groups(kernels.model());
  CHECK(eager == graph_groups(*context.graph()));
  // Eager launches one kernel per op where default fuses them: other rows, and more of them.
  CHECK(eager != fused);
  CHECK(eager.size() > fused.size());
  CHECK(kernels.caption().contains(QStringLiteral(" in eager: ")));
}

TEST_CASE("The Kernels panel lists the context's graph with no graph panel", "[views][context]") {
  qt_app();
  views::ViewContext context;
  views::KernelsPanel kernels(context);
  CHECK(kernels.model().rowCount() == 0);
  const views::LoadedLogPtr log = load_sample("residual_mlp");
  context.set_log(log);
  context.set_unit(0);
  const views::CanvasGraphPtr graph = context.plans()->get(*log, context.request());
  REQUIRE(graph->problem.empty());
  context.set_graph(graph);
  CHECK(row_groups(kernels.model()) == graph_groups(*graph));
  // Another log forgets the graph, and the rows with it.
  context.set_log(load_sample("pointwise_chain"));
  CHECK(kernels.model().rowCount() == 0);
}

TEST_CASE("A run set on the context reaches the A/B and Kernels models", "[views][context]") {
  qt_app();
  views::MainWindow window;
  window.show();
  open_first_unit(window, "residual_mlp");
  views::ModeComparisonPanel& ab = window.mode_comparison();
  ab.set_modes(int(fusion::Mode::eager), int(fusion::Mode::default_mode));
  REQUIRE(QTest::qWaitFor([&] { return !ab.busy(); }, kWindowTimeoutMs));
  CHECK_FALSE(ab.model().comparison().a.measured);
  CHECK_FALSE(ab.model().comparison().b.measured);
  const views::KernelsModel& kernels = window.kernels_panel().model();
  REQUIRE(kernels.rowCount() > 0);
  CHECK_FALSE(kernels.row_at(0)->measured_us.has_value());

  auto run = report::read_run_result(data("runs/residual_mlp_pytorch_h200.json"));
  REQUIRE(run.ok());
  QSignalSpy compared(&ab, &views::ModeComparisonPanel::compared);
  window.context().set_run(std::make_shared<const report::RunResult>(std::move(*run)));
  CHECK(ab.busy());  // the run asks for the comparison again
  REQUIRE(QTest::qWaitFor([&] { return !ab.busy(); }, kWindowTimeoutMs));
  CHECK(compared.size() == 1);
  CHECK(ab.model().comparison().a.measured);
  CHECK(ab.model().comparison().b.measured);
  CHECK(ab.model()
            .headerData(views::ModeComparisonModel::kA, Qt::Horizontal, Qt::DisplayRole)
            .toString() == QStringLiteral("eager measured µs"));
  // The Kernels rows take the run's times at once: every default kernel was measured.
  for (int r = 0; r < kernels.rowCount(); ++r) CHECK(kernels.row_at(r)->measured_us.has_value());
}

}  // namespace fxscope::test
