#pragma once
// File > Export: the current view as SVG or PNG (with its overlays and legend), and the shown
// unit as annotated DOT, fxscope JSON or a Chrome trace of its kernels (measured when a GPU run
// of the unit is loaded, else predicted). Pictures paint on the UI thread from the built scene;
// the other formats plan the unit on Qt's pool and write the file there.

#include <QObject>
#include <QString>

class QMenu;
class QWidget;

namespace fxscope::views {

class MainWindow;

class ExportActions : public QObject {
  Q_OBJECT

 public:
  enum class Format { kSvg, kPng, kDot, kJson, kChromeTrace };

  // Adds the Export submenu to MENU; the exports read WINDOW's log and graph panel.
  ExportActions(MainWindow& window, QMenu& menu);

  // Writes FORMAT to PATH without asking; `finished` reports the outcome.
  void export_to(Format format, const QString& path);
  bool busy() const { return pending_ > 0; }

  static QString file_filter(Format format);

 signals:
  // ERROR is empty when PATH was written.
  void finished(const QString& path, const QString& error);

 private:
  void ask_and_export(Format format);
  void report(const QString& path, const QString& error);

  MainWindow& window_;
  int pending_ = 0;
};

}  // namespace fxscope::views
