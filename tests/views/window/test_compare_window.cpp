// File > Compare with... in the window, offscreen: two ranks of one DDP run mark exactly the unit
// whose graph differs (the tree, the Compare tab and that unit's graph), a log against itself
// marks nothing, a changed Inductor setting shows as cache hits turned misses with the key
// component named, and an unreadable or unrelated second log ends in a message while the window
// keeps working.
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "canvas/change_legend.h"
#include "canvas/graph_canvas.h"
#include "compare/change_marks.h"
#include "models/comparison_summary_model.h"
#include "models/compile_units_model.h"
#include "models/unit_comparison_model.h"
#include "panels/comparison_panel.h"
#include "panels/graph_panel.h"
#include "sample_log_file.h"
#include "views_test_support.h"
#include "window/main_window.h"
#include "window_test_support.h"

namespace fxscope::test {
namespace {

using views::ChangeMark;
using views::CompileUnitsModel;
using views::MainWindow;

// The rank's file of the DDP sample: a file, not the directory, so no ranks table loads beside.
QString rank_file(int rank) {
  const std::string tag = "_rank_" + std::to_string(rank) + "_";
  for (const auto& e : std::filesystem::directory_iterator(sample("ranks_ddp"))) {
    if (e.path().filename().string().find(tag) != std::string::npos) {
      return QString::fromStdString(e.path().string());
    }
  }
  FAIL("no rank " << rank << " in ranks_ddp");
  return {};
}

void open(MainWindow& window, const QString& path) {
  QSignalSpy loaded(&window, &MainWindow::log_loaded);
  window.open_path(path);
  REQUIRE(loaded.wait(kWindowTimeoutMs));
}

void compare(MainWindow& window, const QString& path) {
  QSignalSpy compared(&window, &MainWindow::comparison_loaded);
  window.compare_with(path);
  REQUIRE(compared.wait(kWindowTimeoutMs));
  REQUIRE(window.comparison() != nullptr);
}

void show_unit(MainWindow& window, const QString& id) {
  QSignalSpy shown(&window.graph_panel(), &views::GraphPanel::graph_shown);
  REQUIRE(window.select_unit(id));
  REQUIRE(shown.wait(kWindowTimeoutMs));
}

// Compile id -> mark of every unit row of the tree that carries a mark.
std::map<std::string, ChangeMark> tree_marks(const CompileUnitsModel& model) {
  std::map<std::string, ChangeMark> marks;
  for (int f = 0; f < model.rowCount(); ++f) {
    const QModelIndex frame = model.index(f, 0);
    for (int u = 0; u < model.rowCount(frame); ++u) {
      const QModelIndex unit = model.index(u, 0, frame);
      const QVariant mark = unit.data(CompileUnitsModel::kChangeRole);
      if (mark.isValid()) marks[unit.data().toString().toStdString()] = ChangeMark(mark.toInt());
    }
  }
  return marks;
}

std::set<std::string> marked(const std::map<std::string, ChangeMark>& marks) {
  std::set<std::string> ids;
  for (const auto& [id, mark] : marks) {
    if (mark != ChangeMark::none) ids.insert(id);
  }
  return ids;
}

// The summary's row whose label is WHAT; -1 when there is none.
int summary_row(const views::ComparisonSummaryModel& summary, const QString& what) {
  for (int r = 0; r < summary.rowCount(); ++r) {
    if (summary.index(r, 0).data().toString() == what) return r;
  }
  return -1;
}

}  // namespace

TEST_CASE("rank 0 compared with rank 3 marks exactly the unit whose graph differs",
          "[views][compare]") {
  qt_app();
  MainWindow window;
  open(window, rank_file(0));
  compare(window, rank_file(3));

  const auto marks = tree_marks(window.compile_units());
  CHECK(marks.size() == 6);  // every unit of rank 0 is marked, most as unchanged
  CHECK(marked(marks) == std::set<std::string>{"5/0"});
  CHECK(marks.at("5/0") == ChangeMark::changed);

  // The Compare tab: the changed pair, and rank 3's recompiles as units only after.
  const auto& units = window.comparison_panel().units();
  REQUIRE(units.rowCount() == 8);
  std::map<std::string, std::string> row_marks;
  for (int r = 0; r < units.rowCount(); ++r) {
    const QString id = units.index(r, views::UnitComparisonModel::kBefore).data().toString() +
                       QStringLiteral("|") +
                       units.index(r, views::UnitComparisonModel::kAfter).data().toString();
    if (units.mark(r) != ChangeMark::none) {
      row_marks[id.toStdString()] = views::to_text(units.mark(r)).toStdString();
    }
  }
  CHECK(row_marks == std::map<std::string, std::string>{
                         {"5/0|5/0", "changed"}, {"|0/1", "added"}, {"|4/1", "added"}});
  const auto& summary = window.comparison_panel().summary();
  REQUIRE(summary.rowCount() >= 5);
  CHECK(summary.index(0, 0).data().toString() == QStringLiteral("Compile units"));
  CHECK(summary.index(0, 1).data().toString() == QStringLiteral("6"));
  CHECK(summary.index(0, 2).data().toString() == QStringLiteral("8"));
  CHECK(summary.index(0, 3).data().toString() == QStringLiteral("+2"));
  CHECK(summary.index(2, 0).data().toString() == QStringLiteral("Recompiles"));
  CHECK(summary.index(2, 3).data().toString() == QStringLiteral("+2"));
  CHECK(window.comparison_panel().verdict_text().contains(QStringLiteral("1 graph changed")));

  // On the changed unit's graph, the kernel rank 3 fused otherwise is marked, and the op rank 3
  // has that this graph lacks is named in the legend.
  show_unit(window, QStringLiteral("5/0"));
  const views::GraphMarks& graph_marks = window.graph_panel().marks();
  CHECK(graph_marks.unit == ChangeMark::changed);
  CHECK(graph_marks.marked_groups() >= 1);
  REQUIRE(graph_marks.only_after.size() == 1);
  CHECK(graph_marks.only_after[0].find("aten.tanh") != std::string::npos);
  const auto& legend = window.graph_panel().canvas().change_legend();
  CHECK(legend.isVisibleTo(&window));
  CHECK(legend.headline().contains(QStringLiteral("changed")));

  // An unchanged unit's graph has nothing marked.
  show_unit(window, QStringLiteral("0/0"));
  CHECK(window.graph_panel().marks().unit == ChangeMark::none);
  CHECK(window.graph_panel().marks().marked_nodes() == 0);
  CHECK(window.graph_panel().marks().marked_groups() == 0);

  window.clear_comparison();
  CHECK(window.comparison() == nullptr);
  CHECK(tree_marks(window.compile_units()).empty());
  CHECK(window.comparison_panel().units().rowCount() == 0);
  CHECK_FALSE(window.graph_panel().canvas().change_legend().isVisibleTo(&window));
}

TEST_CASE("dynamic against static attention marks the slices whose count changed",
          "[views][compare]") {
  qt_app();
  MainWindow window;
  open(window, QString::fromStdString(sample("corpus/hand_attention_dynamic_fp16")));
  compare(window, QString::fromStdString(sample("corpus/hand_attention_ro_bf16")));
  show_unit(window, QStringLiteral("0/0"));
  const auto& panel = window.graph_panel();
  const views::GraphMarks& marks = panel.marks();
  CHECK(marks.unit == ChangeMark::changed);
  REQUIRE(marks.marked_nodes() > 0);
  // Only slices are marked: the other ops the diff names (the scalar reads, a mul) are on the
  // Dynamo and AOT graphs, not on this post-grad graph.
  const auto& graph = panel.shown()->graph;
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    const bool slice = graph.node(id).target == "torch.ops.aten.slice.Tensor";
    CHECK((marks.nodes[id] == ChangeMark::changed) == slice);
  }
  CHECK(marks.marked_groups() >= 1);
  REQUIRE(window.graph_panel().search(QStringLiteral("slice")));
  CHECK(panel.inspector_text().contains(
      QStringLiteral("compared: torch.ops.aten.slice.Tensor 6 before, 4 after")));
}

TEST_CASE("a changed Inductor setting: warm-cache hits before, misses after, the key named",
          "[views][compare]") {
  qt_app();
  MainWindow window;
  open(window, QString::fromStdString(sample("pairs/cache_warm")));
  compare(window, QString::fromStdString(sample("pairs/cache_config")));
  const auto& summary = window.comparison_panel().summary();
  // Lookups as PyTorch counted them (the pairs' expected.json): the forward's and the
  // backward's FX graphs and the one AOTAutograd entry hit, then all three miss.
  const struct {
    const char* what;
    const char* before;
    const char* after;
    const char* change;
  } rows[] = {{"FX graph cache hits", "2", "0", "-2"},
              {"FX graph cache misses", "0", "2", "+2"},
              {"AOTAutograd cache hits", "1", "0", "-1"},
              {"AOTAutograd cache misses", "0", "1", "+1"}};
  for (const auto& expected : rows) {
    INFO(expected.what);
    const int r = summary_row(summary, QString::fromLatin1(expected.what));
    REQUIRE(r >= 0);
    CHECK(summary.index(r, 1).data().toString() == QLatin1String(expected.before));
    CHECK(summary.index(r, 2).data().toString() == QLatin1String(expected.after));
    CHECK(summary.index(r, 3).data().toString() == QLatin1String(expected.change));
  }
  // The one setting the keys differ in, with its value on each side and no change column.
  const int key = summary_row(summary, QStringLiteral("  cache key differs in "
                                                      "inductor_config[max_autotune_pointwise]"));
  REQUIRE(key >= 0);
  CHECK(summary.index(key, 1).data().toString() == QStringLiteral("False"));
  CHECK(summary.index(key, 2).data().toString() == QStringLiteral("True"));
  CHECK(summary.index(key, 3).data().toString().isEmpty());
  // No other component differs: compile time follows.
  CHECK(summary.index(key + 1, 0).data().toString() == QStringLiteral("Compile time"));
  CHECK(window.comparison_panel().verdict_text().contains(
      QStringLiteral("cache keys differ in inductor_config[max_autotune_pointwise]")));
}

TEST_CASE("a log compared with itself marks nothing", "[views][compare]") {
  qt_app();
  MainWindow window;
  const QString log = QString::fromStdString(sample_log_file("graph_breaks"));
  open(window, log);
  compare(window, log);
  const auto marks = tree_marks(window.compile_units());
  CHECK(marks.size() == 11);
  CHECK(marked(marks).empty());
  CHECK(window.comparison_panel().verdict_text() == QStringLiteral("no difference"));
  const auto& units = window.comparison_panel().units();
  CHECK(units.rowCount() == 11);
  for (int r = 0; r < units.rowCount(); ++r) CHECK(units.mark(r) == ChangeMark::none);
  REQUIRE(window.select_first_unit());
  QSignalSpy shown(&window.graph_panel(), &views::GraphPanel::graph_shown);
  REQUIRE(shown.wait(kWindowTimeoutMs));
  CHECK(window.graph_panel().marks().marked_nodes() == 0);
  CHECK(window.graph_panel().marks().marked_groups() == 0);
  CHECK(window.graph_panel().marks().only_after.empty());
}

TEST_CASE("an unreadable or unrelated second log is a message and the window goes on",
          "[views][compare]") {
  qt_app();
  MainWindow window;
  const QString log = QString::fromStdString(sample_log_file("resnet18"));
  open(window, log);
  const auto shown_log = window.log();

  QSignalSpy failed(&window, &MainWindow::comparison_failed);
  window.compare_with(QStringLiteral("/nonexistent/fxscope_no_such.log"));
  REQUIRE(failed.wait(kWindowTimeoutMs));
  CHECK(failed.takeFirst().at(0).toString().contains(QStringLiteral("fxscope_no_such.log")));
  CHECK(window.comparison() == nullptr);
  CHECK(window.log() == shown_log);
  CHECK(window.statusBar()->currentMessage().startsWith(QStringLiteral("Could not compare")));

  compare(window, QString::fromStdString(sample_log_file("gpt2_2layer")));
  CHECK(window.comparison()->diff.unrelated());
  CHECK(window.comparison_panel().verdict_text().startsWith(
      QStringLiteral("the logs look unrelated: only 0 of 1 compile units pair up")));
  const QString messages =
      window.findChild<QPlainTextEdit*>(QStringLiteral("message_log"))->toPlainText();
  CHECK(messages.contains(QStringLiteral("the logs look unrelated")));
  // resnet18's one unit pairs with nothing: the whole unit is marked removed.
  CHECK(marked(tree_marks(window.compile_units())).size() == 1);

  // The window still opens, draws and compares what comes next.
  REQUIRE(window.select_first_unit());
  QSignalSpy drawn(&window.graph_panel(), &views::GraphPanel::graph_shown);
  REQUIRE(drawn.wait(kWindowTimeoutMs));
  CHECK(window.graph_panel().marks().unit == ChangeMark::removed);
  CHECK(window.graph_panel().marks().marked_nodes() == window.graph_panel().shown()->graph.size());
  open(window, QString::fromStdString(sample_log_file("residual_mlp")));
  CHECK(window.comparison() == nullptr);  // it was of the previous log
  compare(window, QString::fromStdString(sample_log_file("residual_mlp")));
  CHECK(window.comparison_panel().verdict_text() == QStringLiteral("no difference"));
}

}  // namespace fxscope::test
