#pragma once
// The comparison's legend over the canvas's top-right corner: what each colour means, against
// which log, and what the other log has that the shown graph cannot draw.

#include <QString>
#include <QStringList>
#include <QWidget>

namespace fxscope::views {

class ChangeLegend : public QWidget {
  Q_OBJECT

 public:
  explicit ChangeLegend(QWidget* parent = nullptr);

  // AFTER names the compared log; HEADLINE says how this unit fared ("unit 5/0: changed");
  // ONLY_AFTER lists what that log has and this graph lacks.
  void set_text(const QString& after, const QString& headline, const QStringList& only_after);
  QString headline() const { return headline_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QStringList lines() const;

  QString after_;
  QString headline_;
  QStringList only_after_;
};

}  // namespace fxscope::views
