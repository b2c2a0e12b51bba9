#pragma once
// A window for an fxscope JSON file (File > Open, or `fxscope FILE.json`): the graphs it holds,
// one at a time, drawn with the kernel groups its annotations name. Reading and layout run on
// Qt's pool; a file that is not an fxscope document is a message in the window.

#include <QMainWindow>
#include <QString>
#include <memory>

#include "fxscope/graph/document.h"
#include "layout/canvas_graph.h"

class QComboBox;
class QLabel;

namespace fxscope::views {

class GraphCanvas;
class GraphScene;

class DocumentWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit DocumentWindow(QWidget* parent = nullptr);

  // Reads PATH and shows its first post-grad graph (else its first graph).
  void open(const QString& path);
  void show_graph(int index);
  const CanvasGraphPtr& shown() const;
  QString message() const;
  bool busy() const { return pending_ > 0; }

 signals:
  void graph_shown();
  void failed(const QString& message);

 private:
  using DocumentPtr = std::shared_ptr<const graph::Document>;
  void on_read(DocumentPtr doc, const QString& error);

  DocumentPtr doc_;
  int pending_ = 0;
  GraphScene* scene_ = nullptr;
  GraphCanvas* canvas_ = nullptr;
  QComboBox* graphs_ = nullptr;
  QLabel* message_ = nullptr;
};

}  // namespace fxscope::views
