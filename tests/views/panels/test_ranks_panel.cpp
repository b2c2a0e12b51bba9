// The Ranks tab on real captured logs laid out as ranks: 64 ranks load off the UI thread (the
// event loop keeps turning while they do), the table lists every rank, a divergence shows its
// two groups side by side, and a rank double-clicked asks to be opened.
#include <QElapsedTimer>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTimer>
#include <filesystem>

#include "panels/ranks_panel.h"
#include "sample_log_file.h"
#include "scratch_dir.h"
#include "views_test_support.h"

using namespace fxscope;
using namespace fxscope::views;

TEST_CASE("ranks panel: 64 ranks load with the UI responsive", "[views][ranks]") {
  test::qt_app();
  const test::ScratchDir dir("ranks_panel_64");
  for (int r = 0; r < 64; ++r) {
    dir.copy(test::sample_log_file(r == 63 ? "graph_breaks" : "pointwise_chain"),
             "dedicated_log_torch_trace_rank_" + std::to_string(r) + ".log");
  }
  RanksPanel panel;
  QSignalSpy loaded(&panel, &RanksPanel::loaded);
  QElapsedTimer clock;
  clock.start();
  panel.load(QString::fromStdString(dir.path()));
  // load() hands the work to the pool and returns.
  CHECK(clock.elapsed() < 500);
  CHECK(panel.loading());
  // The event loop turns while the ranks are read: a timer ticking every 10 ms keeps firing.
  int ticks = 0;
  QTimer tick;
  QObject::connect(&tick, &QTimer::timeout, [&ticks] { ++ticks; });
  tick.start(10);
  REQUIRE(loaded.wait(60000));
  CHECK(ticks > 0);
  CHECK_FALSE(panel.loading());

  auto* table = panel.findChild<QTableWidget*>(QStringLiteral("ranks_table"));
  REQUIRE(table != nullptr);
  CHECK(table->rowCount() == 64);
  CHECK(table->item(63, 0)->text() == QStringLiteral("63"));
  auto* list = panel.findChild<QListWidget*>(QStringLiteral("divergence_list"));
  REQUIRE(list != nullptr);
  REQUIRE(list->count() > 0);
  CHECK(list->item(0)->text().startsWith(QStringLiteral("[graphs]")));

  // The first divergence is shown: ranks 0..62 on the left, rank 63 on the right, both marked.
  const auto sides = panel.findChildren<QPlainTextEdit*>();
  REQUIRE(sides.size() == 2);
  CHECK_FALSE(sides[0]->toPlainText().isEmpty());
  CHECK(sides[0]->toPlainText() != sides[1]->toPlainText());
  CHECK_FALSE(sides[0]->extraSelections().isEmpty());

  QSignalSpy chosen(&panel, &RanksPanel::rank_chosen);
  emit table->cellDoubleClicked(5, 0);
  REQUIRE(chosen.size() == 1);
  CHECK(chosen[0][0].toInt() == 5);
  CHECK(chosen[0][1].toString().endsWith(QStringLiteral("dedicated_log_torch_trace_rank_5.log")));
}

TEST_CASE("ranks panel: a directory without ranks says so", "[views][ranks]") {
  test::qt_app();
  RanksPanel panel;
  QSignalSpy failed(&panel, &RanksPanel::failed);
  panel.load(QString::fromStdString(test::sample("pointwise_chain")));
  REQUIRE(failed.wait(30000));
  CHECK(failed[0][0].toString().contains(QStringLiteral("no per-rank logs")));
}
