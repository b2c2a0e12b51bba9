#pragma once
// The Ranks tab: every rank of a distributed job's log directory, read off the UI thread with
// progress, the per-rank table, the divergences most harmful first, and for the divergence chosen
// the first two groups' values (collective schedules, compile ids, recompile reasons, ...) side
// by side with the lines that differ marked. Above the table, the rank that compiled slowest and
// the phases that made it slow. Double-clicking a rank opens that rank's log.

#include <QString>
#include <QWidget>
#include <cstdint>
#include <optional>

#include "fxscope/report/rank_comparison.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QTableWidget;

namespace fxscope::views {

class RanksPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RanksPanel(QWidget* parent = nullptr);

  // Reads every rank of DIR on the thread pool; returns at once. A newer load drops an older
  // one's result.
  void load(const QString& dir);
  bool loading() const { return loading_; }
  const std::optional<report::RankComparison>& comparison() const { return comparison_; }
  // Shows divergence INDEX side by side (as choosing it in the list does).
  void show_divergence(int index);

 signals:
  void loaded(int ranks, int divergences);
  void failed(const QString& message);
  // The user chose a rank to open (the rank switcher): its log file.
  void rank_chosen(int rank, const QString& path);

 private:
  void on_progress(std::uint64_t generation, int done, int total);
  void on_finished(std::uint64_t generation, Result<report::RankComparison> result);
  void fill();
  void fill_slowest();
  void fit_table();

  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* slowest_ = nullptr;
  QTableWidget* ranks_ = nullptr;
  QListWidget* divergences_ = nullptr;
  QLabel* left_title_ = nullptr;
  QLabel* right_title_ = nullptr;
  QPlainTextEdit* left_ = nullptr;
  QPlainTextEdit* right_ = nullptr;
  std::optional<report::RankComparison> comparison_;
  std::uint64_t generation_ = 0;
  bool loading_ = false;
};

}  // namespace fxscope::views
