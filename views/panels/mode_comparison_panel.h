#pragma once
// The A/B tab: two modes of the shown compile unit side by side. Totals and launches, the
// largest wins and losses, and per kernel of B the change against A on the same nodes; measured
// where the GPU run has the mode, predicted otherwise (and labelled so). Planning runs on Qt's
// thread pool; the newest request wins.

#include <QWidget>
#include <cstdint>
#include <string>

#include "gpu_run/gpu_runner.h"
#include "window/loaded_log.h"

class QComboBox;
class QLabel;
class QTableView;

namespace fxscope::views {

class ModeComparisonModel;
class ViewContext;

class ModeComparisonPanel : public QWidget {
  Q_OBJECT

 public:
  ModeComparisonPanel(ViewContext& context, QWidget* parent = nullptr);

  void set_modes(int a, int b);  // fusion::Mode values
  const ModeComparisonModel& model() const { return *model_; }
  QString summary() const;
  bool busy() const { return pending_; }

 signals:
  void compared();

 private:
  void request();

  ViewContext& context_;
  QComboBox* a_ = nullptr;
  QComboBox* b_ = nullptr;
  QLabel* summary_ = nullptr;
  ModeComparisonModel* model_ = nullptr;
  QTableView* table_ = nullptr;
  std::uint64_t generation_ = 0;
  bool pending_ = false;
  // What the newest comparison was asked for. The context's graph changes with every graph the
  // canvas shows, the canvas's own mode and level included, which leave the comparison as it is:
  // planning the unit twice again for each would only load the pool (LLaMA: two fuse reports of
  // 4,969 nodes per switch).
  struct Asked {
    LoadedLogPtr log;
    RunResultPtr run;
    std::string unit;
    int a = -1;
    int b = -1;
    bool operator==(const Asked&) const = default;
  };
  Asked asked_;
};

}  // namespace fxscope::views
