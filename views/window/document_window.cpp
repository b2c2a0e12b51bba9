#include "window/document_window.h"

#include <QComboBox>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QPointer>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "layout/document_canvas.h"

namespace fxscope::views {
namespace {

struct ReadResult {
  std::shared_ptr<const graph::Document> doc;
  QString error;
};

}  // namespace

DocumentWindow::DocumentWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("document_window"));
  setAttribute(Qt::WA_DeleteOnClose);
  resize(1100, 800);
  scene_ = new GraphScene(this);
  canvas_ = new GraphCanvas(scene_, this);
  graphs_ = new QComboBox(this);
  graphs_->setObjectName(QStringLiteral("document_graphs"));
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  auto* bar = addToolBar(tr("Document"));
  bar->addWidget(new QLabel(tr(" Graph "), bar));
  bar->addWidget(graphs_);
  bar->addAction(tr("Fit"), canvas_, &GraphCanvas::fit_to_view);
  auto* centre = new QWidget(this);
  auto* layout = new QVBoxLayout(centre);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(message_);
  layout->addWidget(canvas_, 1);
  setCentralWidget(centre);
  connect(graphs_, &QComboBox::activated, this, &DocumentWindow::show_graph);
}

void DocumentWindow::open(const QString& path) {
  setWindowTitle(tr("fxscope - %1").arg(QFileInfo(path).fileName()));
  message_->setText(tr("Reading %1 ...").arg(path));
  ++pending_;
  auto* watcher = new QFutureWatcher<ReadResult>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<DocumentWindow>(this), watcher] {
            watcher->deleteLater();
            if (!self) return;
            --self->pending_;
            const ReadResult result = watcher->result();
            self->on_read(result.doc, result.error);
          });
  watcher->setFuture(QtConcurrent::run([file = path.toStdString()] {
    auto doc = read_document(file);
    if (!doc) return ReadResult{nullptr, QString::fromStdString(doc.error().message)};
    return ReadResult{std::make_shared<const graph::Document>(std::move(*doc)), {}};
  }));
}

void DocumentWindow::on_read(DocumentPtr doc, const QString& error) {
  if (!doc) {
    message_->setText(error);
    emit failed(error);
    return;
  }
  doc_ = std::move(doc);
  graphs_->clear();
  int first = 0;
  for (std::size_t i = 0; i < doc_->size(); ++i) {
    const auto& entry = doc_->graphs()[i];
    graphs_->addItem(QString::fromStdString(entry.label));
    if (entry.level == "post_grad" && first == 0 && doc_->graphs()[0].level != "post_grad") {
      first = int(i);
    }
  }
  if (doc_->size() == 0) {
    message_->setText(tr("The document holds no graph."));
    emit graph_shown();
    return;
  }
  graphs_->setCurrentIndex(first);
  show_graph(first);
}

void DocumentWindow::show_graph(int index) {
  if (!doc_ || index < 0) return;
  ++pending_;
  auto* watcher = new QFutureWatcher<CanvasGraphPtr>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [self = QPointer<DocumentWindow>(this), watcher, index] {
            watcher->deleteLater();
            if (!self) return;
            --self->pending_;
            if (index != self->graphs_->currentIndex()) return;  // a newer choice wins
            const CanvasGraphPtr graph = watcher->result();
            self->scene_->show_graph(graph);
            self->canvas_->show_start();
            self->message_->setText(
                graph->problem.empty()
                    ? tr("%1: %2 nodes, %3 kernel groups (from the file's annotations)")
                          .arg(QString::fromStdString(graph->where))
                          .arg(graph->graph.size())
                          .arg(graph->groups.size())
                    : QString::fromStdString(graph->problem));
            emit self->graph_shown();
          });
  watcher->setFuture(
      QtConcurrent::run([doc = doc_, index] { return document_canvas(*doc, std::size_t(index)); }));
}

const CanvasGraphPtr& DocumentWindow::shown() const {
  return scene_->graph();
}

QString DocumentWindow::message() const {
  return message_->text();
}

}  // namespace fxscope::views
