// The compile units tree on the real graph_breaks log: 5 frames, 11 units, breaks and recompile
// reasons under the units they belong to.
#include <QAbstractItemModelTester>

#include "models/compile_units_model.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

using views::CompileUnitsModel;

std::string cell(const QModelIndex& index, int column, int role = Qt::DisplayRole) {
  return index.siblingAtColumn(column).data(role).toString().toStdString();
}

// The unit row with compile id ID, searched under every frame.
QModelIndex find_unit(const CompileUnitsModel& model, const std::string& id) {
  for (int f = 0; f < model.rowCount(); ++f) {
    const QModelIndex frame = model.index(f, 0);
    for (int u = 0; u < model.rowCount(frame); ++u) {
      const QModelIndex unit = model.index(u, 0, frame);
      if (cell(unit, CompileUnitsModel::kId) == id) return unit;
    }
  }
  return {};
}

}  // namespace

TEST_CASE("CompileUnitsModel passes QAbstractItemModelTester through a reset", "[views]") {
  CompileUnitsModel model;
  check_model_through_reset(model, "graph_breaks");
}

TEST_CASE("CompileUnitsModel groups graph_breaks into 5 frames and 11 units", "[views]") {
  qt_app();
  CompileUnitsModel model;
  CHECK(model.rowCount() == 0);
  model.set_log(load_sample("graph_breaks"));
  REQUIRE(model.rowCount() == 5);
  int units = 0;
  for (int f = 0; f < model.rowCount(); ++f) units += model.rowCount(model.index(f, 0));
  CHECK(units == 11);
  CHECK(model.rowCount(model.index(4, 0)) == 5);  // pointwise_fn compiled five times
  CHECK(model.columnCount() == CompileUnitsModel::kColumnCount);
  CHECK(model.headerData(CompileUnitsModel::kAtenOps, Qt::Horizontal).toString() == "ATen ops");
}

TEST_CASE("CompileUnitsModel shows a frame and a unit's counts", "[views]") {
  qt_app();
  CompileUnitsModel model;
  model.set_log(load_sample("graph_breaks"));
  const QModelIndex frame = model.index(0, 0);
  CHECK(cell(frame, CompileUnitsModel::kId) == "frame 0");
  CHECK(cell(frame, CompileUnitsModel::kFunction) == "forward  capture.py:81");
  CHECK(frame.data(CompileUnitsModel::kFrameRole).toInt() == 0);
  CHECK_FALSE(frame.data(CompileUnitsModel::kUnitRole).isValid());

  const QModelIndex unit = find_unit(model, "0/0");
  REQUIRE(unit.isValid());
  CHECK(cell(unit, CompileUnitsModel::kDynamoOps) == "3");
  CHECK(cell(unit, CompileUnitsModel::kAtenOps) == "4");
  CHECK(cell(unit, CompileUnitsModel::kKernels) == "2");
  CHECK(cell(unit, CompileUnitsModel::kCompileTime) == "4.03 s");
  CHECK(cell(unit, CompileUnitsModel::kFunction, Qt::ToolTipRole).ends_with("capture.py:81"));
  CHECK(unit.data(CompileUnitsModel::kUnitRole).toULongLong() == 0);
  CHECK(model.unit_index(0) == unit);
}

TEST_CASE("CompileUnitsModel puts breaks and recompile reasons under their unit", "[views]") {
  qt_app();
  CompileUnitsModel model;
  model.set_log(load_sample("graph_breaks"));

  const QModelIndex first = find_unit(model, "0/0");
  REQUIRE(model.rowCount(first) == 1);
  const QModelIndex graph_break = model.index(0, 0, first);
  CHECK(cell(graph_break, CompileUnitsModel::kId) ==
        "graph break at capture.py:83: Unsupported Tensor.item() call with "
        "capture_scalar_outputs=False");
  CHECK(cell(graph_break, CompileUnitsModel::kDynamoOps).empty());
  CHECK(graph_break.data(CompileUnitsModel::kUnitRole).toULongLong() == 0);
  CHECK(model.parent(graph_break) == first);

  // 1/1 broke at line 85 and was recompiled because a guard of 1/0 failed.
  const QModelIndex recompiled = find_unit(model, "1/1");
  REQUIRE(model.rowCount(recompiled) == 2);
  CHECK(cell(model.index(1, 0, recompiled), CompileUnitsModel::kId) ==
        "recompiled, guard of 1/0 failed: ___stack0 == 124.3185043334961");

  const QModelIndex last = find_unit(model, "4/4");
  REQUIRE(model.rowCount(last) == 4);
  CHECK(cell(model.index(3, 0, last), CompileUnitsModel::kId) ==
        "recompiled, guard of 4/0 failed: act == 'relu'");
}

}  // namespace fxscope::test
