// fxscope, the desktop app: `fxscope [PATH] [--screenshot FILE.png]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSettings>
#include <cstdio>

#include "main_window.h"
#include "window_screenshot.h"

int main(int argc, char* argv[]) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("fxscope"));
  QApplication::setApplicationName(QStringLiteral("fxscope"));
  QApplication::setApplicationVersion(QStringLiteral(FXSCOPE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Debugger for PyTorch torch.compile TORCH_TRACE logs"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("PATH"), QStringLiteral("a TORCH_TRACE log file or the directory holding it"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("load PATH, select its first compile unit, save the window as FILE and exit"),
      QStringLiteral("FILE"));
  parser.addOption(screenshot);
  parser.process(app);

  QString path = parser.positionalArguments().value(0);
  if (path.isEmpty() && QFileInfo::exists(QStringLiteral(FXSCOPE_DEFAULT_SAMPLE))) {
    path = QStringLiteral(FXSCOPE_DEFAULT_SAMPLE);
  }

  fxscope::views::MainWindow window;
  if (parser.isSet(screenshot)) {
    if (path.isEmpty()) {
      std::fprintf(stderr, "fxscope: --screenshot needs a PATH to load\n");
      return 2;
    }
    // Default layout, not the user's saved one, so that screenshots are the same everywhere.
    auto* run = new fxscope::views::WindowScreenshot(&window, parser.value(screenshot), &window);
    QObject::connect(run, &fxscope::views::WindowScreenshot::finished, &app, &QApplication::exit,
                     Qt::QueuedConnection);
    window.show();
    window.open_path(path);
    return QApplication::exec();
  }

  QSettings settings;
  window.restore_layout(settings);
  window.show();
  if (path.isEmpty()) {
    window.show_status(QStringLiteral("Open a TORCH_TRACE log file or directory with File > Open"));
  } else {
    window.open_path(path);
  }
  const int exit_code = QApplication::exec();
  window.save_layout(settings);
  return exit_code;
}
