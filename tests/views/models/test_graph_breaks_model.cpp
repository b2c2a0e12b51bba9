// The graph breaks table on the real graph_breaks log: three distinct breaks, one hit twice.
#include <QAbstractItemModelTester>

#include "models/graph_breaks_model.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

using views::GraphBreaksModel;

std::string cell(const GraphBreaksModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.index(row, column).data(role).toString().toStdString();
}

}  // namespace

TEST_CASE("GraphBreaksModel passes QAbstractItemModelTester through a reset", "[views]") {
  GraphBreaksModel model;
  check_model_through_reset(model, "graph_breaks");
}

TEST_CASE("GraphBreaksModel lists the three breaks of graph_breaks", "[views]") {
  qt_app();
  GraphBreaksModel model;
  CHECK(model.rowCount() == 0);
  model.set_log(load_sample("graph_breaks"));
  REQUIRE(model.rowCount() == 3);
  REQUIRE(model.columnCount() == GraphBreaksModel::kColumnCount);

  CHECK(cell(model, 0, GraphBreaksModel::kLocation) == "capture.py:83");
  CHECK(cell(model, 0, GraphBreaksModel::kCode) == "gb0124");
  CHECK(cell(model, 0, GraphBreaksModel::kCount) == "1");

  CHECK(cell(model, 1, GraphBreaksModel::kLocation) == "capture.py:85");
  CHECK(cell(model, 1, GraphBreaksModel::kReason) == "Failed to trace builtin operator");
  CHECK(cell(model, 1, GraphBreaksModel::kHint).starts_with("Avoid calling builtin `print`"));
  CHECK(cell(model, 1, GraphBreaksModel::kCode) == "gb0059");
  CHECK(cell(model, 1, GraphBreaksModel::kCount) == "2");
  // The tooltip has every hint, one a line; the cell the first one.
  CHECK(QString::fromStdString(cell(model, 1, GraphBreaksModel::kHint, Qt::ToolTipRole))
            .count(QLatin1Char('\n')) == 2);
  CHECK(cell(model, 1, GraphBreaksModel::kLocation, Qt::ToolTipRole)
            .ends_with("sample_graphs/capture.py:85"));

  CHECK(cell(model, 2, GraphBreaksModel::kReason) == "Dynamic shape operator");
  CHECK(model.headerData(GraphBreaksModel::kCode, Qt::Horizontal).toString() == "GB code");
}

}  // namespace fxscope::test
