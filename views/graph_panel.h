#pragma once
// The centre of the window: a toolbar (level, groups, mode, fit, search), a banner for graph
// breaks, the graph canvas and the node inspector. Planning and layout run on Qt's thread pool;
// the newest request wins and a result arriving after the panel is gone is dropped.

#include <QModelIndex>
#include <QWidget>
#include <cstdint>
#include <optional>

#include "canvas_graph.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace fxscope::views {

class GraphCanvas;
class GraphScene;

class GraphPanel : public QWidget {
  Q_OBJECT

 public:
  explicit GraphPanel(QWidget* parent = nullptr);

  void set_log(LoadedLogPtr log);
  // Shows the unit of a CompileUnitsModel row; a frame row shows the frame's first unit.
  void show_row(const QModelIndex& index);
  void show_unit(std::size_t unit);
  void set_level(GraphLevel level);
  void set_groups(GroupSource groups);
  void set_mode(fusion::Mode mode);
  // Selects and centres the next node whose name or op contains TEXT; false when none does.
  bool search(const QString& text);

  bool busy() const { return pending_; }
  const CanvasGraphPtr& shown() const;
  GraphScene& scene() const { return *scene_; }
  GraphCanvas& canvas() const { return *canvas_; }
  QString banner_text() const;
  QString inspector_text() const;

 signals:
  // After every finished request, with or without a graph to draw.
  void graph_shown();
  void node_selected(std::size_t id);
  void status(const QString& message);

 private:
  void build_toolbar();
  void request();
  void on_built(CanvasGraphPtr graph);
  void on_node_selected(std::size_t id);
  void update_banner();
  CanvasRequest current_request() const;

  LoadedLogPtr log_;
  std::optional<std::size_t> unit_;
  std::optional<int> frame_;  // set when a frame row, not a unit row, was chosen
  std::uint64_t generation_ = 0;
  bool pending_ = false;
  GraphScene* scene_ = nullptr;
  GraphCanvas* canvas_ = nullptr;
  QComboBox* level_ = nullptr;
  QComboBox* groups_ = nullptr;
  QComboBox* mode_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* banner_ = nullptr;
  QPlainTextEdit* inspector_ = nullptr;
};

}  // namespace fxscope::views
