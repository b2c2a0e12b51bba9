#include "panels/ranks_panel.h"

#include <QFont>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QScrollBar>
#include <QSet>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "text/display_format.h"

namespace fxscope::views {

namespace {

QString ranks_text(const std::vector<int>& ranks) {
  return QString::fromStdString(report::ranks_text(ranks));
}

// A group's value one item a line: schedules and compile-id lists are comma-separated.
QString as_lines(const std::string& value) {
  QString text = QString::fromStdString(value);
  if (!text.contains(QLatin1Char('\n'))) text.replace(QStringLiteral(", "), QStringLiteral("\n"));
  return text.isEmpty() ? QObject::tr("(none)") : text;
}

// Marks the lines of EDIT that OTHER lacks, so the difference stands out in both sides.
void mark_differences(QPlainTextEdit* edit, const QString& other) {
  const QStringList other_lines = other.split(QLatin1Char('\n'));
  const QSet<QString> others(other_lines.begin(), other_lines.end());
  QList<QTextEdit::ExtraSelection> marks;
  const QStringList lines = edit->toPlainText().split(QLatin1Char('\n'));
  for (int i = 0; i < lines.size(); ++i) {
    // The same line at the same place is no difference; elsewhere it is moved.
    if (i < other_lines.size() && other_lines[i] == lines[i]) continue;
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(others.contains(lines[i]) ? QColor(255, 236, 179)
                                                        : QColor(255, 205, 210));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.cursor = QTextCursor(edit->document()->findBlockByNumber(i));
    marks.append(mark);
  }
  edit->setExtraSelections(marks);
}

// The phases named as why the slowest rank was slow; the CLI's compile-time --all-ranks lists more.
constexpr std::size_t kSlowPhasesShown = 3;

QPlainTextEdit* make_side(QWidget* parent) {
  auto* edit = new QPlainTextEdit(parent);
  edit->setReadOnly(true);
  edit->setLineWrapMode(QPlainTextEdit::NoWrap);
  return edit;
}

}  // namespace

RanksPanel::RanksPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("ranks_panel"));
  status_ = new QLabel(tr("Open a directory of per-rank logs to compare its ranks"), this);
  status_->setWordWrap(true);
  progress_ = new QProgressBar(this);
  progress_->hide();

  slowest_ = new QLabel(this);
  slowest_->setObjectName(QStringLiteral("slowest_rank"));
  slowest_->setWordWrap(true);
  slowest_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  slowest_->hide();

  ranks_ = new QTableWidget(0, 6, this);
  ranks_->setObjectName(QStringLiteral("ranks_table"));
  ranks_->setHorizontalHeaderLabels({tr("Rank"), tr("Units"), tr("Graph breaks"), tr("Recompiles"),
                                     tr("Kernels"), tr("Compile time")});
  ranks_->horizontalHeaderItem(5)->setToolTip(
      tr("Every unit's forward and backward compile, from the compile-time events"));
  ranks_->verticalHeader()->hide();
  ranks_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  ranks_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  ranks_->setSelectionBehavior(QAbstractItemView::SelectRows);
  ranks_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  ranks_->setToolTip(tr("Double-click a rank to open its log"));
  connect(ranks_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    if (!comparison_ || row < 0 || static_cast<std::size_t>(row) >= comparison_->ranks.size()) {
      return;
    }
    const auto& r = comparison_->ranks[static_cast<std::size_t>(row)];
    emit rank_chosen(r.rank, QString::fromStdString(r.path));
  });

  divergences_ = new QListWidget(this);
  divergences_->setObjectName(QStringLiteral("divergence_list"));
  divergences_->setWordWrap(true);
  connect(divergences_, &QListWidget::currentRowChanged, this, &RanksPanel::show_divergence);

  auto* sides = new QWidget(this);
  auto* sides_layout = new QHBoxLayout(sides);
  sides_layout->setContentsMargins(0, 0, 0, 0);
  auto* left_box = new QVBoxLayout;
  auto* right_box = new QVBoxLayout;
  left_title_ = new QLabel(this);
  right_title_ = new QLabel(this);
  left_ = make_side(this);
  right_ = make_side(this);
  left_box->addWidget(left_title_);
  left_box->addWidget(left_);
  right_box->addWidget(right_title_);
  right_box->addWidget(right_);
  sides_layout->addLayout(left_box);
  sides_layout->addLayout(right_box);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* lists = new QSplitter(Qt::Vertical, splitter);
  lists->addWidget(ranks_);
  lists->addWidget(divergences_);
  splitter->addWidget(lists);
  splitter->addWidget(sides);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(status_);
  // Above the table, across the panel: the slowest rank and why.
  layout->addWidget(slowest_);
  layout->addWidget(progress_);
  layout->addWidget(splitter, 1);
}

void RanksPanel::load(const QString& dir) {
  const std::uint64_t generation = ++generation_;
  loading_ = true;
  status_->setText(tr("Reading the ranks of %1 ...").arg(dir));
  progress_->setRange(0, 0);
  progress_->show();
  // Progress comes from the pool's threads; it reaches the panel queued, and not at all once
  // the panel is gone.
  const QPointer<RanksPanel> self(this);
  auto progress = [self, generation](std::size_t done, std::size_t total) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, done, total] {
          if (self) self->on_progress(generation, static_cast<int>(done), static_cast<int>(total));
        },
        Qt::QueuedConnection);
  };
  auto* watcher = new QFutureWatcher<Result<report::RankComparison>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    on_finished(generation, watcher->result());
  });
  watcher->setFuture(QtConcurrent::run(
      [d = dir.toStdString(), progress] { return report::compare_ranks(d, progress); }));
}

void RanksPanel::on_progress(std::uint64_t generation, int done, int total) {
  if (generation != generation_) return;
  progress_->setRange(0, total);
  progress_->setValue(done);
  status_->setText(tr("Read %1 of %2 ranks ...").arg(done).arg(total));
}

void RanksPanel::on_finished(std::uint64_t generation, Result<report::RankComparison> result) {
  if (generation != generation_) return;
  loading_ = false;
  progress_->hide();
  if (!result) {
    comparison_.reset();
    fill();
    status_->setText(QString::fromStdString(result.error().message));
    emit failed(QString::fromStdString(result.error().message));
    return;
  }
  comparison_ = std::move(*result);
  fill();
  emit loaded(static_cast<int>(comparison_->ranks.size()),
              static_cast<int>(comparison_->divergence.size()));
}

void RanksPanel::fill() {
  ranks_->setRowCount(0);
  divergences_->clear();
  left_->clear();
  right_->clear();
  left_title_->clear();
  right_title_->clear();
  fill_slowest();
  if (!comparison_) return;
  const auto& c = *comparison_;
  const auto& times = c.compile_time;
  ranks_->setRowCount(static_cast<int>(c.ranks.size()));
  for (std::size_t i = 0; i < c.ranks.size(); ++i) {
    const auto& r = c.ranks[i];
    const int row = static_cast<int>(i);
    // Both lists are indexed like the rank logs compare_ranks read; a rank not read has no time.
    const bool timed = i < times.ranks.size() && times.ranks[i].error.empty();
    const bool slowest = times.slowest == i;
    const QStringList cells{
        QString::number(r.rank),
        QString::number(r.units),
        QString::number(r.graph_breaks),
        QString::number(r.recompiles),
        QString::number(r.kernels),
        seconds_text(timed ? std::optional(times.ranks[i].total_s) : std::nullopt)};
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setToolTip(QString::fromStdString(r.error.empty() ? r.path : r.error));
      if (col > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (slowest) {
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
      }
      ranks_->setItem(row, col, item);
    }
  }
  fit_table();
  for (const auto& d : c.divergence) {
    divergences_->addItem(QStringLiteral("[%1] %2").arg(
        QString::fromUtf8(to_string(d.kind).data(), static_cast<int>(to_string(d.kind).size())),
        QString::fromStdString(d.detail)));
  }
  status_->setText(
      c.divergence.empty()
          ? tr("%1 ranks: they agree (same compiles, graphs, caches, recompiles and collectives)")
                .arg(c.ranks.size())
          : tr("%1 ranks, %2 divergences, most harmful first")
                .arg(c.ranks.size())
                .arg(c.divergence.size()));
  if (!c.divergence.empty()) divergences_->setCurrentRow(0);
}

void RanksPanel::fit_table() {
  // The whole table, up to a width that leaves the two sides room: its columns are what a reader
  // compares, the compile time last. A minimum, so later dock resizes keep it.
  ranks_->horizontalHeader()->resizeSections(QHeaderView::ResizeToContents);
  const int wanted = ranks_->horizontalHeader()->length() + 2 * ranks_->frameWidth() +
                     ranks_->verticalScrollBar()->sizeHint().width();
  ranks_->setMinimumWidth(std::min(wanted, fontMetrics().averageCharWidth() * 72));
}

void RanksPanel::fill_slowest() {
  slowest_->clear();
  slowest_->hide();
  if (!comparison_ || !comparison_->compile_time.slowest) return;
  const auto& times = comparison_->compile_time;
  const auto& slow = times.ranks[*times.slowest];
  QString text = tr("Rank %1 compiled slowest: %2 against a median of %3 on the other ranks (%4).")
                     .arg(slow.rank)
                     .arg(seconds_text(slow.total_s), seconds_text(times.others_median_s))
                     .arg(QLatin1Char('+') + seconds_text(slow.total_s - times.others_median_s));
  if (times.gaps.empty()) {
    text += QLatin1Char(' ') + tr("No phase took longer on it than on the others.");
  } else {
    QStringList phases;
    for (std::size_t i = 0; i < times.gaps.size() && i < kSlowPhasesShown; ++i) {
      const auto& g = times.gaps[i];
      QString phase = QString::fromStdString(g.name);
      if (!g.what.empty()) phase += QStringLiteral(" (%1)").arg(QString::fromStdString(g.what));
      phases
          << tr("%1 %2 against %3").arg(phase, seconds_text(g.slowest_s), seconds_text(g.others_s));
    }
    text += QLatin1Char(' ') + tr("Its time went to %1.").arg(phases.join(QStringLiteral("; ")));
  }
  slowest_->setText(text);
  slowest_->show();
}

void RanksPanel::show_divergence(int index) {
  if (!comparison_ || index < 0 ||
      static_cast<std::size_t>(index) >= comparison_->divergence.size()) {
    return;
  }
  if (divergences_->currentRow() != index) divergences_->setCurrentRow(index);
  const auto& d = comparison_->divergence[static_cast<std::size_t>(index)];
  const auto side = [&d](std::size_t g) {
    return g < d.values.size() ? as_lines(d.values[g]) : QString();
  };
  left_title_->setText(d.groups.empty() ? QString() : ranks_text(d.groups[0]));
  right_title_->setText(d.groups.size() < 2 ? tr("(every other rank agrees)")
                                            : ranks_text(d.groups[1]));
  left_->setPlainText(side(0));
  right_->setPlainText(d.groups.size() < 2 ? QString() : side(1));
  mark_differences(left_, right_->toPlainText());
  mark_differences(right_, left_->toPlainText());
}

}  // namespace fxscope::views
