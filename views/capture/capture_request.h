#pragma once
// What File > Capture... runs: the user's command line, its working directory and extra
// environment variables, kept in QSettings between runs, and the argv and environment the
// program is started with (TORCH_TRACE and the cache defaults of a capture on top).

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

class QSettings;

namespace fxscope::views {

struct CaptureRequest {
  QString command;      // split into words as a shell would: "python3 train.py --name 'a b'"
  QString working_dir;  // empty: the app's own
  QString extra_env;    // "NAME=VALUE NAME2='a b'", split the same way

  static CaptureRequest load(const QSettings& settings);
  void save(QSettings& settings) const;

  QStringList argv() const;
  // The variables of extra_env; an empty ERROR when every word is NAME=VALUE, else the word that
  // is not.
  QStringList extra_variables(QString* error) const;
  // This process's environment, then extra_env, then what a capture into TRACE_DIR sets (the
  // caches off unless one of the two already sets them).
  QProcessEnvironment environment(const QString& trace_dir) const;
};

}  // namespace fxscope::views
