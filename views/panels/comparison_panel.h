#pragma once
// The Compare tab: what File > Compare with... found. The verdict line, the summary before beside
// after, every unit paired or not, and the engine's full diff text (breaks under their units).
// It reads one Comparison; it compares nothing itself.

#include <QString>
#include <QWidget>

#include "compare/comparison.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableView;

namespace fxscope::views {

class ComparisonSummaryModel;
class UnitComparisonModel;

class ComparisonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ComparisonPanel(QWidget* parent = nullptr);

  // Null clears the tab back to its hint.
  void set_comparison(const ComparisonPtr& comparison);
  QString verdict_text() const;
  QString details_text() const;
  const UnitComparisonModel& units() const { return *units_; }
  const ComparisonSummaryModel& summary() const { return *summary_; }

 signals:
  // A row of a unit the shown log has was clicked: show it (its compile id).
  void unit_chosen(const QString& compile_id);

 private:
  QLabel* verdict_ = nullptr;
  QLabel* paths_ = nullptr;
  ComparisonSummaryModel* summary_ = nullptr;
  UnitComparisonModel* units_ = nullptr;
  QTableView* summary_view_ = nullptr;
  QTableView* units_view_ = nullptr;
  QPlainTextEdit* details_ = nullptr;
  QTabWidget* tabs_ = nullptr;
};

}  // namespace fxscope::views
