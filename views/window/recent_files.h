#pragma once
// File > Open Recent: the logs and directories opened last, newest first, kept in QSettings.
// A path is remembered once it has loaded, so a bad path never enters the list.

#include <QObject>
#include <QStringList>

class QMenu;

namespace fxscope::views {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxPaths = 10;

  // Fills MENU (and refills it on every change).
  RecentFiles(QMenu* menu, QObject* parent);

  // PATH is being opened; it is remembered when loaded() follows.
  void opening(const QString& path);
  void loaded();
  void add(const QString& path);
  QStringList paths() const { return paths_; }
  void clear();

 signals:
  void open_requested(const QString& path);

 private:
  void rebuild_menu();
  void save() const;

  QMenu* menu_;
  QStringList paths_;
  QString pending_;
};

}  // namespace fxscope::views
