#include "models/guard_input_model.h"

#include <string>
#include <utility>

#include "fxscope/guards/input_spec.h"
#include "text/guard_wording.h"

namespace fxscope::views {
namespace {

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

}  // namespace

GuardInputModel::GuardInputModel(QObject* parent) : QAbstractTableModel(parent) {}

void GuardInputModel::set_input(guards::ProposedInput input) {
  beginResetModel();
  input_ = std::move(input);
  endResetModel();
}

int GuardInputModel::row_of(const QString& name) const {
  const std::string source = guards::canonical_source(name.toStdString());
  for (std::size_t i = 0; i < input_.tensors.size(); ++i) {
    if (guards::canonical_source(input_.tensors[i].source) == source) return int(i);
  }
  for (std::size_t i = 0; i < input_.constants.size(); ++i) {
    if (guards::canonical_source(input_.constants[i].source) == source) {
      return int(input_.tensors.size() + i);
    }
  }
  return -1;
}

int GuardInputModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(input_.tensors.size() + input_.constants.size());
}

int GuardInputModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

bool GuardInputModel::is_tensor_row(int row) const {
  return row >= 0 && std::size_t(row) < input_.tensors.size();
}

QVariant GuardInputModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole) return {};
  const int row = index.row();
  if (is_tensor_row(row)) {
    const guards::TensorInput& t = input_.tensors[std::size_t(row)];
    switch (index.column()) {
      case kName:
        return qs(plain_source(t.source));
      case kShape:
        return t.sizes ? qs(dims_text(*t.sizes)) : QString();
      case kDtype:
        return t.dtype ? qs(std::string(t.dtype->short_name)) : QString();
      case kStrides:
        if (t.strides) return qs(dims_text(*t.strides));
        // Left out, strides are the contiguous ones of the shape: show what will be checked.
        return t.sizes ? qs(dims_text(guards::contiguous_strides(*t.sizes))) : QString();
      default:
        return {};
    }
  }
  const guards::ConstantInput& c = input_.constants[std::size_t(row) - input_.tensors.size()];
  if (index.column() == kName) return qs(plain_source(c.source));
  if (index.column() == kValue) return qs(guards::python_repr(c.value));
  return {};
}

QVariant GuardInputModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return tr("Input");
    case kShape:
      return tr("Shape");
    case kDtype:
      return tr("Dtype");
    case kStrides:
      return tr("Strides");
    case kValue:
      return tr("Value");
    default:
      return {};
  }
}

Qt::ItemFlags GuardInputModel::flags(const QModelIndex& index) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) {
    return Qt::NoItemFlags;
  }
  Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  const bool tensor = is_tensor_row(index.row());
  const int column = index.column();
  if ((tensor && (column == kShape || column == kDtype || column == kStrides)) ||
      (!tensor && column == kValue)) {
    flags |= Qt::ItemIsEditable;
  }
  return flags;
}

// A tensor edit is checked by the same parser as `fxscope-cli guards --input`: the row is
// written back as NAME=SHAPE:DTYPE:stride=STRIDES with the edited field replaced. A new shape
// without strides takes contiguous strides, as a freshly made tensor has.
bool GuardInputModel::set_tensor_field(int row, int column, const QString& text) {
  const guards::TensorInput& t = input_.tensors[std::size_t(row)];
  const std::string typed = text.trimmed().toStdString();
  std::string shape = column == kShape ? typed : (t.sizes ? dims_text(*t.sizes) : "");
  if (shape == "scalar") shape.clear();
  std::string spec = "x=" + shape;
  const std::string dtype =
      column == kDtype ? typed : (t.dtype ? std::string(t.dtype->short_name) : "");
  if (!dtype.empty()) spec += ":" + dtype;
  if (column == kStrides && !typed.empty()) {
    spec += ":stride=" + typed;
  } else if (column != kShape && column != kStrides && t.strides) {
    spec += ":stride=" + dims_text(*t.strides);
  }
  auto parsed = guards::parse_tensor_spec(spec);
  if (!parsed) {
    emit edit_refused(tr("%1: '%2' is not a valid %3 (%4)")
                          .arg(qs(plain_source(t.source)), text,
                               headerData(column, Qt::Horizontal).toString().toLower(),
                               qs(parsed.error().message)));
    return false;
  }
  guards::TensorInput& target = input_.tensors[std::size_t(row)];
  target.sizes = parsed->sizes;
  target.dtype = parsed->dtype;
  target.strides = parsed->strides;
  return true;
}

bool GuardInputModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
  const int row = index.row();
  if (is_tensor_row(row)) {
    if (!set_tensor_field(row, index.column(), value.toString())) return false;
    emit dataChanged(this->index(row, kShape), this->index(row, kStrides));
  } else {
    auto& constant = input_.constants[std::size_t(row) - input_.tensors.size()];
    constant.value = guards::parse_user_value(value.toString().trimmed().toStdString());
    emit dataChanged(index, index);
  }
  emit input_edited();
  return true;
}

}  // namespace fxscope::views
