// The Ranks tab on real captured logs laid out as ranks: 64 ranks load off the UI thread (the
// event loop keeps turning while they do), the table lists every rank, a divergence shows its
// two groups side by side, a rank double-clicked asks to be opened, and the slowest rank is named
// with the phases that made it slow.
#include <QElapsedTimer>
#include <QLabel>
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

TEST_CASE("ranks panel: ranks_ddp names rank 3 slowest and the phases that made it slow",
          "[views][ranks]") {
  test::qt_app();
  RanksPanel panel;
  QSignalSpy loaded(&panel, &RanksPanel::loaded);
  panel.load(QString::fromStdString(test::sample("ranks_ddp")));
  REQUIRE(loaded.wait(60000));
  REQUIRE(panel.comparison().has_value());
  const auto& times = panel.comparison()->compile_time;
  REQUIRE(times.ranks.size() == 4);

  auto* table = panel.findChild<QTableWidget*>(QStringLiteral("ranks_table"));
  REQUIRE(table != nullptr);
  REQUIRE(table->rowCount() == 4);
  CHECK(table->horizontalHeaderItem(5)->text() == QStringLiteral("Compile time"));
  // Each rank's cell is its compile-time report's total; rank 3's is the largest, in bold.
  for (int row = 0; row < 4; ++row) {
    INFO(row);
    const double total = times.ranks[std::size_t(row)].total_s;
    CHECK(table->item(row, 5)->text() == QStringLiteral("%1 s").arg(total, 0, 'f', 2));
    CHECK(table->item(row, 5)->font().bold() == (row == 3));
    if (row != 3) CHECK(total < times.ranks[3].total_s);
  }

  auto* slowest = panel.findChild<QLabel*>(QStringLiteral("slowest_rank"));
  REQUIRE(slowest != nullptr);
  CHECK_FALSE(slowest->isHidden());
  const QString text = slowest->text();
  INFO(text.toStdString());
  CHECK(text.startsWith(QStringLiteral("Rank 3 compiled slowest: %1 s against a median of %2 s")
                            .arg(times.ranks[3].total_s, 0, 'f', 2)
                            .arg(times.others_median_s, 0, 'f', 2)));
  // Rank 3 waited longest for its Triton compiles: the first phase named.
  CHECK(
      text.contains(QStringLiteral("Its time went to async_compile.wait (wait for Triton "
                                   "compiles)")));
}
