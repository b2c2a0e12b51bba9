// fxscope, the desktop app: `fxscope [PATH] [--mode M] [--unit ID]
// [--screenshot FILE.png [--find TEXT]] [--tab NAME] [--compare LOG] [--benchmark-open]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>
#include <cstdio>

#include "canvas/graph_canvas.h"
#include "context/view_context.h"
#include "gpu_run/gpu_run_controller.h"
#include "panels/graph_panel.h"
#include "window/main_window.h"
#include "window/open_benchmark.h"
#include "window/window_screenshot.h"

int main(int argc, char* argv[]) {
  // The open benchmark counts from here: Qt's own start-up is part of what a user waits for.
  QElapsedTimer since_start;
  since_start.start();
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
  const QCommandLineOption mode(
      QStringLiteral("mode"),
      QStringLiteral("plan the graph in MODE: eager, default, "
                     "reduce-overhead or max-autotune (default: default)"),
      QStringLiteral("MODE"));
  parser.addOption(mode);
  const QCommandLineOption level(
      QStringLiteral("level"),
      QStringLiteral("show the aten (default), the dynamo or a training unit's "
                     "backward (aten) graph"),
      QStringLiteral("LEVEL"));
  parser.addOption(level);
  const QCommandLineOption groups(
      QStringLiteral("groups"),
      QStringLiteral("draw fxscope's (default) or inductor's kernel groups"),
      QStringLiteral("GROUPS"));
  parser.addOption(groups);
  const QCommandLineOption find(
      QStringLiteral("find"),
      QStringLiteral("with --screenshot: select the first node whose name or op contains TEXT"),
      QStringLiteral("TEXT"));
  parser.addOption(find);
  const QCommandLineOption benchmark_open(
      QStringLiteral("benchmark-open"),
      QStringLiteral("load PATH, time the first paint of its first compile unit's graph and a "
                     "scripted pan and zoom, print the times and exit"));
  parser.addOption(benchmark_open);
  const QCommandLineOption run_file(
      QStringLiteral("run"),
      QStringLiteral("overlay the GPU run FILE (saved `fxscope-cli run --json` output)"),
      QStringLiteral("FILE"));
  parser.addOption(run_file);
  const QCommandLineOption fit(QStringLiteral("fit"),
                               QStringLiteral("with --screenshot: fit the whole graph in view"));
  parser.addOption(fit);
  const QCommandLineOption unit(
      QStringLiteral("unit"),
      QStringLiteral(
          "with --screenshot: select compile unit ID (such as 3/1) instead of the first"),
      QStringLiteral("ID"));
  parser.addOption(unit);
  const QCommandLineOption dock(
      QStringLiteral("dock"),
      QStringLiteral("with --screenshot: bring dock NAME to the front of its tabs (kernels, "
                     "kernel_source, guards, ...: the dock's object name without _dock)"),
      QStringLiteral("NAME"));
  parser.addOption(dock);
  const QCommandLineOption tab(
      QStringLiteral("tab"),
      QStringLiteral("show the centre tab NAME (graph, summary, compile) instead of the graph"),
      QStringLiteral("NAME"));
  parser.addOption(tab);
  const QCommandLineOption compare(
      QStringLiteral("compare"),
      QStringLiteral("compare PATH (before) with the log LOG (after), as File > Compare with..."),
      QStringLiteral("LOG"));
  parser.addOption(compare);
  parser.process(app);

  QString path = parser.positionalArguments().value(0);
  if (path.isEmpty() && QFileInfo::exists(QStringLiteral(FXSCOPE_DEFAULT_SAMPLE))) {
    path = QStringLiteral(FXSCOPE_DEFAULT_SAMPLE);
  }

  fxscope::views::MainWindow window;
  if (parser.isSet(tab)) {
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("centre_tabs"));
    int found = -1;
    for (int i = 0; tabs != nullptr && i < tabs->count(); ++i) {
      if (tabs->tabText(i).compare(parser.value(tab), Qt::CaseInsensitive) == 0) found = i;
    }
    if (found < 0) {
      std::fprintf(stderr, "fxscope: no tab %s\n", qPrintable(parser.value(tab)));
      return 2;
    }
    tabs->setCurrentIndex(found);
  }
  if (parser.isSet(mode)) {
    const auto parsed = fxscope::fusion::parse_mode(parser.value(mode).toStdString());
    if (!parsed) {
      std::fprintf(stderr, "fxscope: unknown mode %s\n", qPrintable(parser.value(mode)));
      return 2;
    }
    window.context().set_mode(*parsed);
  }
  if (parser.value(level) == QStringLiteral("dynamo")) {
    window.context().set_level(fxscope::views::GraphLevel::kDynamo);
  } else if (parser.value(level) == QStringLiteral("backward")) {
    window.context().set_level(fxscope::views::GraphLevel::kAtenBackward);
  } else if (parser.isSet(level) && parser.value(level) != QStringLiteral("aten")) {
    std::fprintf(stderr, "fxscope: unknown level %s (aten, dynamo or backward)\n",
                 qPrintable(parser.value(level)));
    return 2;
  }
  if (parser.value(groups) == QStringLiteral("inductor")) {
    window.context().set_groups(fxscope::views::GroupSource::kInductor);
  }
  if (parser.isSet(run_file)) {
    // Opening a log drops the run of the previous one (runs name units by id), so the run is
    // read once the log is in; read at once, a small run would land first and be dropped.
    auto* once = new QObject(&window);
    QObject::connect(&window, &fxscope::views::MainWindow::log_loaded, once,
                     [&window, once, file = parser.value(run_file)] {
                       window.gpu_runs().load_run_file(file);
                       once->deleteLater();
                     });
  }
  if (parser.isSet(compare)) {
    // As with --run: a comparison is of the open log, so it starts once that log is in.
    auto* once = new QObject(&window);
    QObject::connect(&window, &fxscope::views::MainWindow::log_loaded, once,
                     [&window, once, file = parser.value(compare)] {
                       window.compare_with(file);
                       once->deleteLater();
                     });
  }
  if (parser.isSet(screenshot)) {
    if (path.isEmpty()) {
      std::fprintf(stderr, "fxscope: --screenshot needs a PATH to load\n");
      return 2;
    }
    // Default layout, not the user's saved one, so that screenshots are the same everywhere.
    auto* run = new fxscope::views::WindowScreenshot(&window, parser.value(screenshot), &window);
    run->set_find(parser.value(find));
    run->set_unit(parser.value(unit));
    if (parser.isSet(run_file)) run->wait_for_run(&window.gpu_runs());
    if (parser.isSet(compare)) run->wait_for_comparison();
    if (parser.isSet(fit)) {
      // Connected after the screenshot's own handler, whose grab is queued: fitted before it.
      QObject::connect(&window.graph_panel(), &fxscope::views::GraphPanel::graph_shown,
                       &window.graph_panel().canvas(), &fxscope::views::GraphCanvas::fit_to_view);
    }
    QObject::connect(run, &fxscope::views::WindowScreenshot::finished, &app, &QApplication::exit,
                     Qt::QueuedConnection);
    window.show();
    if (parser.isSet(dock)) {
      auto* shown = window.findChild<QDockWidget*>(parser.value(dock) + QStringLiteral("_dock"));
      if (shown == nullptr) {
        std::fprintf(stderr, "fxscope: no dock %s\n", qPrintable(parser.value(dock)));
        return 2;
      }
      run->set_dock(shown);
    }
    window.open_path(path);
    return QApplication::exec();
  }

  if (parser.isSet(benchmark_open)) {
    if (path.isEmpty()) {
      std::fprintf(stderr, "fxscope: --benchmark-open needs a PATH to load\n");
      return 2;
    }
    auto* run = new fxscope::views::OpenBenchmark(&window, since_start, &window);
    QObject::connect(run, &fxscope::views::OpenBenchmark::finished, &app, &QApplication::exit,
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
