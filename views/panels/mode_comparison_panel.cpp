#include "panels/mode_comparison_panel.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "context/view_context.h"
#include "models/mode_comparison_model.h"
#include "models/mode_side.h"

namespace fxscope::views {
namespace {

constexpr std::size_t kListed = 3;

// What the pool hands back: QFuture wants a default-constructible value.
struct Outcome {
  report::ModeComparison comparison;
  QString error;
};

QString mode_name(fusion::Mode mode) {
  const auto name = fusion::to_string(mode);
  return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

QString side_line(const report::ModeSide& side) {
  return QObject::tr("%1: %2 µs, %3 launches (%4)")
      .arg(QString::fromStdString(side.run.mode))
      .arg(side.run.total_us, 0, 'f', 1)
      .arg(side.run.launches, 0, 'f', 0)
      .arg(side.measured ? QObject::tr("measured") : QObject::tr("predicted"));
}

constexpr qsizetype kNameChars = 48;

QString listed(const std::vector<report::KernelDelta>& rows) {
  QStringList items;
  for (const auto& row : rows) {
    QString name = QString::fromStdString(row.name);
    if (name.size() > kNameChars) name = name.left(kNameChars - 1) + QChar(0x2026);
    items << QStringLiteral("%1 %2").arg(name, QString::asprintf("%+.1f µs", row.delta_us()));
  }
  return items.isEmpty() ? QObject::tr("none") : items.join(QStringLiteral("; "));
}

}  // namespace

ModeComparisonPanel::ModeComparisonPanel(ViewContext& context, QWidget* parent)
    : QWidget(parent), context_(context) {
  setObjectName(QStringLiteral("mode_comparison_panel"));
  a_ = new QComboBox(this);
  a_->setObjectName(QStringLiteral("ab_mode_a"));
  b_ = new QComboBox(this);
  b_->setObjectName(QStringLiteral("ab_mode_b"));
  for (fusion::Mode mode : fusion::kAllModes) {
    a_->addItem(mode_name(mode), int(mode));
    b_->addItem(mode_name(mode), int(mode));
  }
  a_->setCurrentIndex(a_->findData(int(fusion::Mode::eager)));
  b_->setCurrentIndex(b_->findData(int(fusion::Mode::default_mode)));
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("ab_summary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  model_ = new ModeComparisonModel(this);
  auto* sorted = new QSortFilterProxyModel(this);
  sorted->setSourceModel(model_);
  sorted->setSortRole(ModeComparisonModel::kSortRole);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("ab_view"));
  table_->setModel(sorted);
  table_->setSortingEnabled(true);
  table_->sortByColumn(ModeComparisonModel::kDelta, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setWordWrap(false);
  // Kernel names can be 200 characters: the name column takes what the numbers leave.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(ModeComparisonModel::kKernel,
                                                   QHeaderView::Stretch);

  auto* pick = new QHBoxLayout;
  pick->addWidget(new QLabel(tr("A"), this));
  pick->addWidget(a_);
  pick->addWidget(new QLabel(tr("B"), this));
  pick->addWidget(b_);
  pick->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(pick);
  layout->addWidget(summary_);
  layout->addWidget(table_, 1);
  for (QComboBox* box : {a_, b_}) {
    connect(box, &QComboBox::currentIndexChanged, this, &ModeComparisonPanel::request);
  }
  // A new unit (its graph drawn) or a new run; the canvas's own mode does not change the
  // comparison. The unit is the drawn graph's, so that planning both modes waits for the canvas's.
  for (const auto changed :
       {&ViewContext::log_changed, &ViewContext::graph_changed, &ViewContext::run_changed}) {
    connect(&context_, changed, this, &ModeComparisonPanel::request);
  }
  request();
}

void ModeComparisonPanel::set_modes(int a, int b) {
  a_->setCurrentIndex(a_->findData(a));
  b_->setCurrentIndex(b_->findData(b));
}

QString ModeComparisonPanel::summary() const {
  return summary_->text();
}

void ModeComparisonPanel::request() {
  const CanvasGraphPtr& graph = context_.graph();
  const LoadedLogPtr log = context_.log();
  if (!graph || !log || graph->compile_id.empty() || !graph->problem.empty()) {
    ++generation_;
    asked_ = {};
    pending_ = false;
    model_->clear();
    summary_->setText(tr("Select a compile unit to compare two of its modes."));
    emit compared();
    return;
  }
  Asked asked{log, context_.run(), graph->compile_id, a_->currentData().toInt(),
              b_->currentData().toInt()};
  // Asked already: the comparison shown, or on its way, is this one.
  if (asked == asked_) return;
  asked_ = std::move(asked);
  const std::uint64_t generation = ++generation_;
  pending_ = true;
  summary_->setText(
      tr("Planning %1 in %2 and %3 ...")
          .arg(QString::fromStdString(graph->compile_id), a_->currentText(), b_->currentText()));
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(
      watcher, &QFutureWatcherBase::finished, this,
      [self = QPointer<ModeComparisonPanel>(this), watcher, generation] {
        watcher->deleteLater();
        if (!self || generation != self->generation_) return;
        self->pending_ = false;
        const Outcome outcome = watcher->result();
        if (!outcome.error.isEmpty()) {
          self->model_->clear();
          self->summary_->setText(outcome.error);
          emit self->compared();
          return;
        }
        const report::ModeComparison& c = outcome.comparison;
        const double saved = c.a.run.total_us - c.b.run.total_us;
        self->summary_->setText(
            tr("A %1;  B %2\nB %3 %4 µs (%5x). Largest wins: %6. Largest losses: %7")
                .arg(side_line(c.a), side_line(c.b), saved >= 0 ? tr("saves") : tr("costs"))
                .arg(std::abs(saved), 0, 'f', 1)
                .arg(c.b.run.total_us > 0 ? c.a.run.total_us / c.b.run.total_us : 0.0, 0, 'f', 2)
                .arg(listed(c.largest_wins(kListed)), listed(c.largest_losses(kListed))));
        self->model_->set_comparison(c);
        emit self->compared();
      });
  const auto a = fusion::Mode(asked_.a);
  const auto b = fusion::Mode(asked_.b);
  watcher->setFuture(QtConcurrent::run([log, run = asked_.run, unit = asked_.unit, a, b] {
    auto side_a = mode_side(*log, run.get(), unit, a);
    if (!side_a) return Outcome{{}, QString::fromStdString(side_a.error().message)};
    auto side_b = mode_side(*log, run.get(), unit, b);
    if (!side_b) return Outcome{{}, QString::fromStdString(side_b.error().message)};
    return Outcome{report::compare_modes(std::move(*side_a), std::move(*side_b)), {}};
  }));
}

}  // namespace fxscope::views
