#include "window/path_drop_filter.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QWidget>

namespace fxscope::views {
namespace {

// The first local path among the dropped URLs; empty when there is none (a web link, text).
QString local_path(const QMimeData* mime) {
  if (mime == nullptr || !mime->hasUrls()) return {};
  for (const QUrl& url : mime->urls()) {
    if (url.isLocalFile()) return url.toLocalFile();
  }
  return {};
}

}  // namespace

PathDropFilter::PathDropFilter(QWidget* target) : QObject(target) {
  target->setAcceptDrops(true);
  target->installEventFilter(this);
}

bool PathDropFilter::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
    case QEvent::DragEnter:
    case QEvent::DragMove: {
      auto* drag = static_cast<QDragMoveEvent*>(event);
      if (local_path(drag->mimeData()).isEmpty()) return false;
      drag->acceptProposedAction();
      return true;
    }
    case QEvent::Drop: {
      auto* drop = static_cast<QDropEvent*>(event);
      const QString path = local_path(drop->mimeData());
      if (path.isEmpty()) return false;
      drop->acceptProposedAction();
      emit dropped(path);
      return true;
    }
    default:
      return QObject::eventFilter(watched, event);
  }
}

}  // namespace fxscope::views
