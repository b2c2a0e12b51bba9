#include "window/recent_files.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace fxscope::views {
namespace {

const QString kKey = QStringLiteral("recent/paths");

}  // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
  paths_ = QSettings().value(kKey).toStringList();
  if (paths_.size() > kMaxPaths) paths_.resize(kMaxPaths);
  rebuild_menu();
}

void RecentFiles::opening(const QString& path) {
  pending_ = path;
}

void RecentFiles::loaded() {
  if (pending_.isEmpty()) return;
  add(pending_);
  pending_.clear();
}

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  paths_.removeAll(absolute);
  paths_.prepend(absolute);
  if (paths_.size() > kMaxPaths) paths_.resize(kMaxPaths);
  save();
  rebuild_menu();
}

void RecentFiles::clear() {
  paths_.clear();
  save();
  rebuild_menu();
}

void RecentFiles::save() const {
  QSettings().setValue(kKey, paths_);
}

void RecentFiles::rebuild_menu() {
  menu_->clear();
  for (int i = 0; i < paths_.size(); ++i) {
    const QString& path = paths_[i];
    // The folder name says which capture; the tooltip and status bar give the whole path.
    const QString label =
        QStringLiteral("&%1 %2")
            .arg((i + 1) % 10)
            .arg(QFileInfo(path).fileName().isEmpty() ? path : QFileInfo(path).fileName());
    QAction* action = menu_->addAction(label, this, [this, path] { emit open_requested(path); });
    action->setToolTip(QDir::toNativeSeparators(path));
    action->setStatusTip(QDir::toNativeSeparators(path));
  }
  if (!paths_.isEmpty()) menu_->addSeparator();
  QAction* clear_action = menu_->addAction(tr("Clear Recent"), this, &RecentFiles::clear);
  clear_action->setEnabled(!paths_.isEmpty());
}

}  // namespace fxscope::views
