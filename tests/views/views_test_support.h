#pragma once
// What every views test needs: one QApplication for the whole run (Catch's main makes none),
// logs loaded the way the window loads them, and Qt warnings captured for CHECKs.

#include <unistd.h>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>
#include <QtGlobal>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "samples.h"
#include "window/loaded_log.h"

namespace fxscope::test {

// How long a views test waits for work off the UI thread (a log's load, a layout, a plan).
inline constexpr int kTimeoutMs = 120000;

// Created on first use and never destroyed: Qt allows one application object per process, and
// a static one would be destroyed after Qt's own statics, which crashes at exit. Its destructor
// is what joins Qt's thread pool in the app; here pool_drain_listener.cpp does, after each test
// case.
inline QApplication& qt_app() {
  static int argc = 1;
  static char name[] = "test_views";
  static char* argv[] = {name, nullptr};
  static auto* app = [] {
    // The window keeps recent files and GPU run settings in QSettings: in Qt's test mode they go
    // to a scratch location, not the user's own configuration.
    QStandardPaths::setTestModeEnabled(true);
    // ctest runs each test case in a process of its own, several at once, and Qt's test mode
    // gives them all one folder: a window loading a log in one process put its path in another's
    // Open Recent list. Each process keeps its settings in a folder of its own, removed at exit.
    static const std::filesystem::path settings =
        std::filesystem::temp_directory_path() /
        ("fxscope-test-settings-" + std::to_string(getpid()));
    std::filesystem::create_directories(settings);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(settings, ignored);
    });
    for (const auto format : {QSettings::NativeFormat, QSettings::IniFormat}) {
      QSettings::setPath(format, QSettings::UserScope, QString::fromStdString(settings.string()));
    }
    return new QApplication(argc, argv);
  }();
  return *app;
}

// A sample log read and summarized on the calling thread, for model tests.
inline views::LoadedLogPtr load_sample(const std::string& name) {
  auto loaded = views::load_log(sample(name));
  REQUIRE(loaded.ok());
  return *loaded;
}

// Collects the warnings Qt prints while it lives (QAbstractItemModelTester reports through
// them in Warning mode), so a test can CHECK that there were none.
class QtWarningCapture {
 public:
  QtWarningCapture() {
    messages().clear();
    previous_ = qInstallMessageHandler(&QtWarningCapture::handle);
  }
  ~QtWarningCapture() { qInstallMessageHandler(previous_); }
  QtWarningCapture(const QtWarningCapture&) = delete;
  QtWarningCapture& operator=(const QtWarningCapture&) = delete;

  // The captured messages, one string, empty when there were none.
  std::string text() const { return messages().join(QLatin1Char('\n')).toStdString(); }

 private:
  static QStringList& messages() {
    static QStringList captured;
    return captured;
  }
  static void handle(QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type != QtDebugMsg && type != QtInfoMsg) messages() << message;
  }

  QtMessageHandler previous_ = nullptr;
};

// Runs MODEL through QAbstractItemModelTester while it is filled from SAMPLE, cleared and
// filled again; any warning the tester (or Qt) prints fails the check.
template <class Model>
void check_model_through_reset(Model& model, const std::string& sample) {
  qt_app();
  QtWarningCapture warnings;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Warning);
  model.set_log(load_sample(sample));
  model.set_log(nullptr);
  model.set_log(load_sample(sample));
  CHECK(warnings.text().empty());
}

}  // namespace fxscope::test
