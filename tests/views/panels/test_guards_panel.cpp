// The Guards & recompiles tab driven as a user would: select a unit, edit its input in the
// editor, and see the failing guard marked, its input selected on the graph, and every recorded
// recompile of graph_breaks reproduced by typing the new compile's input.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QThread>
#include <functional>

#include "canvas/graph_scene.h"
#include "context/view_context.h"
#include "fxscope/guards/recompile_replay.h"
#include "models/guard_input_model.h"
#include "models/guard_list_model.h"
#include "models/recompile_list_model.h"
#include "panels/graph_panel.h"
#include "panels/guards_panel.h"
#include "text/guard_wording.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

using views::GuardInputModel;
using views::GuardsPanel;

bool wait_until(const std::function<bool()>& done) {
  QElapsedTimer timer;
  timer.start();
  while (!done()) {
    if (timer.elapsed() > kTimeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return true;
}

std::size_t unit_index(const views::LoadedLog& log, const std::string& id) {
  const auto& units = log.log.units();
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (units[i].id.without_attempt().str() == id) return i;
  }
  FAIL("no unit " << id);
  return 0;
}

void show(GuardsPanel& panel, std::size_t unit) {
  QSignalSpy loaded(&panel, &GuardsPanel::unit_loaded);
  panel.show_unit(unit);
  REQUIRE(loaded.wait(kTimeoutMs));
  REQUIRE(wait_until([&] { return !panel.busy(); }));
}

bool edit(GuardInputModel& model, const std::string& name, int column, const std::string& text) {
  const int row = model.row_of(QString::fromStdString(name));
  if (row < 0) return false;
  return model.setData(model.index(row, column), QString::fromStdString(text));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(guards::normalize_reason(text.substr(start, end - start)));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("Guards tab: the recorded input passes, a new shape fails the tensor guard",
          "[views][guards]") {
  qt_app();
  const auto log = load_sample("graph_breaks");
  views::GraphPanel graph;
  GuardsPanel panel(graph);
  graph.context().set_log(log);
  panel.set_log(log);
  graph.context().set_level(views::GraphLevel::kDynamo);
  const std::size_t unit = unit_index(*log, "4/0");
  QSignalSpy shown(&graph, &views::GraphPanel::graph_shown);
  graph.context().set_unit(unit);
  REQUIRE(shown.wait(kTimeoutMs));
  show(panel, unit);

  // Pre-filled with what 4/0 was compiled for: x, f32[8, 32].
  GuardInputModel& inputs = panel.inputs();
  const int x = inputs.row_of(QStringLiteral("x"));
  REQUIRE(x >= 0);
  CHECK(inputs.index(x, GuardInputModel::kShape).data().toString() == "8x32");
  CHECK(inputs.index(x, GuardInputModel::kDtype).data().toString() == "f32");
  CHECK(inputs.index(x, GuardInputModel::kStrides).data().toString() == "32x1");
  CHECK(panel.verdict_text().contains("=> runs the code compiled in 4/0"));
  CHECK_FALSE(panel.guard_list().failed());
  CHECK(panel.failing_input().isEmpty());

  // x becomes 16x32: 4/0's tensor guard fails, in Dynamo's words, and x is selected on the graph.
  REQUIRE(edit(inputs, "x", GuardInputModel::kShape, "16x32"));
  REQUIRE(wait_until([&] { return !panel.busy(); }));
  CHECK(inputs.index(x, GuardInputModel::kStrides).data().toString() == "32x1");
  CHECK(panel.verdict_text().contains(
      "4/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"));
  CHECK(panel.verdict_text().contains("=> recompiles"));
  const auto failed = panel.guard_list().failed();
  REQUIRE(failed);
  const QModelIndex state = panel.guard_list().index(int(*failed), views::GuardListModel::kState);
  CHECK(state.data().toString() == "FAILS");
  CHECK(panel.guard_list()
            .index(int(*failed), views::GuardListModel::kGuard)
            .data()
            .toString()
            .startsWith("x: f32 Tensor of size [8, 32]"));
  CHECK(panel.failing_input() == "x");
  const auto selected = graph.scene().selected_node();
  REQUIRE(selected);
  CHECK(graph.shown()->graph.node(*selected).name == "L_x_");

  // A bad edit is refused with a message naming it; the input and the verdict stay.
  QSignalSpy refused(&inputs, &GuardInputModel::edit_refused);
  CHECK_FALSE(edit(inputs, "x", GuardInputModel::kDtype, "float99"));
  REQUIRE(refused.count() == 1);
  CHECK(refused.takeFirst().at(0).toString().contains("float99"));
  CHECK(inputs.index(x, GuardInputModel::kShape).data().toString() == "16x32");

  panel.reset_input();
  REQUIRE(wait_until([&] { return !panel.busy(); }));
  CHECK(panel.verdict_text().contains("=> runs the code compiled in 4/0"));
}

TEST_CASE("Guards tab: every recorded recompile of graph_breaks is reproduced by editing inputs",
          "[views][guards]") {
  qt_app();
  const auto log = load_sample("graph_breaks");
  views::GraphPanel graph;
  GuardsPanel panel(graph);
  panel.set_log(log);
  std::size_t reproduced = 0;
  for (const auto& recompile : log->log.recompiles()) {
    const trace::CompileId new_id = recompile.id.without_attempt();
    INFO("recompile " << new_id.str());
    const trace::CompileId before{new_id.frame_id, new_id.frame_compile_id - 1, 0};
    // The new compile's own input, as the tab pre-fills it for that unit.
    const auto target = views::load_unit_guards(*log, unit_index(*log, new_id.str()));
    show(panel, unit_index(*log, before.str()));
    REQUIRE(panel.recompiles().rowCount() > 0);
    GuardInputModel& inputs = panel.inputs();
    for (const auto& t : target.recorded_input.tensors) {
      const std::string name = views::plain_source(t.source);
      if (t.sizes) REQUIRE(edit(inputs, name, GuardInputModel::kShape, views::dims_text(*t.sizes)));
      if (t.dtype) {
        REQUIRE(edit(inputs, name, GuardInputModel::kDtype, std::string(t.dtype->short_name)));
      }
      if (t.strides) {
        REQUIRE(edit(inputs, name, GuardInputModel::kStrides, views::dims_text(*t.strides)));
      }
    }
    for (const auto& c : target.recorded_input.constants) {
      REQUIRE(edit(inputs, views::plain_source(c.source), GuardInputModel::kValue,
                   guards::python_repr(c.value)));
    }
    REQUIRE(wait_until([&] { return !panel.busy(); }));
    // The tab's list names the recorded recompile with the guard that failed ...
    const views::RecompileRow* row = nullptr;
    for (const auto& r : panel.recompiles().rows()) {
      if (r.compile_id == new_id.str()) row = &r;
    }
    REQUIRE(row != nullptr);
    // ... and the edited input fails the same guards, newest entry first, in the same words.
    std::vector<std::string> verdict = lines_of(panel.verdict_text().toStdString());
    REQUIRE(verdict.size() >= 2);
    CHECK(verdict.back().starts_with("=> recompiles"));
    verdict.pop_back();
    CHECK(verdict == lines_of(row->recorded));
    reproduced += verdict == lines_of(row->recorded) ? 1U : 0U;
  }
  CHECK(reproduced == log->log.recompiles().size());
  CHECK(reproduced == 6);
}

TEST_CASE("Guards tab models pass QAbstractItemModelTester", "[views][guards]") {
  qt_app();
  const auto log = load_sample("graph_breaks");
  views::GraphPanel graph;
  GuardsPanel panel(graph);
  QtWarningCapture warnings;
  QAbstractItemModelTester inputs(&panel.inputs(),
                                  QAbstractItemModelTester::FailureReportingMode::Warning);
  QAbstractItemModelTester guards(&panel.guard_list(),
                                  QAbstractItemModelTester::FailureReportingMode::Warning);
  QAbstractItemModelTester recompiles(&panel.recompiles(),
                                      QAbstractItemModelTester::FailureReportingMode::Warning);
  panel.set_log(log);
  show(panel, unit_index(*log, "4/2"));
  CHECK(panel.guard_list().rowCount() > 0);
  CHECK(panel.recompiles().rowCount() > 0);
  edit(panel.inputs(), "x", GuardInputModel::kShape, "3x3");
  REQUIRE(wait_until([&] { return !panel.busy(); }));
  panel.set_log(nullptr);
  panel.set_log(log);
  show(panel, unit_index(*log, "0/0"));
  INFO(warnings.text());
  CHECK(warnings.text().empty());
}

TEST_CASE("Guards tab: the frame's recompile causes ranked, each with its fix",
          "[views][guards][recompiles]") {
  qt_app();
  const auto log = load_sample("graph_breaks");
  views::GraphPanel graph;
  GuardsPanel panel(graph);
  graph.context().set_log(log);
  panel.set_log(log);
  show(panel, unit_index(*log, "4/0"));
  const std::string causes = panel.recompile_causes().toStdString();
  // Frame 4's causes alone, the dtype change (3 recompiles) first.
  CHECK_THAT(causes, Catch::StartsWith("why it recompiled, most often first:\n"
                                       "  3x dtype of x: Float -> Double  [4/2, 4/3, 4/4]"));
  CHECK_THAT(causes, Catch::Contains("fix: cast x to one dtype before the call"));
  CHECK_THAT(causes, Catch::Contains("fix: hoist the branch on act"));
  CHECK_THAT(causes, !Catch::Contains("___stack0"));
  // A frame that never recompiled shows none.
  show(panel, unit_index(*log, "0/0"));
  CHECK(panel.recompile_causes().isEmpty());
}

}  // namespace fxscope::test
