#pragma once
// The A/B tab: two modes of the shown compile unit side by side. Totals and launches, the
// largest wins and losses, and per kernel of B the change against A on the same nodes; measured
// where the GPU run has the mode, predicted otherwise (and labelled so). Planning runs on Qt's
// thread pool; the newest request wins.

#include <QWidget>
#include <cstdint>

class QComboBox;
class QLabel;
class QTableView;

namespace fxscope::views {

class GraphPanel;
class ModeComparisonModel;

class ModeComparisonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ModeComparisonPanel(GraphPanel* graph, QWidget* parent = nullptr);

  void set_modes(int a, int b);  // fusion::Mode values
  const ModeComparisonModel& model() const { return *model_; }
  QString summary() const;
  bool busy() const { return pending_; }

 signals:
  void compared();

 private:
  void request();

  GraphPanel* graph_;
  QComboBox* a_ = nullptr;
  QComboBox* b_ = nullptr;
  QLabel* summary_ = nullptr;
  ModeComparisonModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  std::uint64_t generation_ = 0;
  bool pending_ = false;
};

}  // namespace fxscope::views
