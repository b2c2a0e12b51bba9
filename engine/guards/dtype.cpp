#include "fxscope/guards/dtype.h"

#include <array>
#include <cctype>
#include <string>

namespace fxscope::guards {

namespace {

// c10 name, torch name, short name, then other spellings users type.
struct DtypeRow {
  Dtype dtype;
  std::array<std::string_view, 2> aliases;
};

constexpr std::array<DtypeRow, 18> kDtypes{{
    {{"Float", "torch.float32", "f32"}, {"float", "fp32"}},
    {{"Double", "torch.float64", "f64"}, {"double", "fp64"}},
    {{"Half", "torch.float16", "f16"}, {"half", "fp16"}},
    {{"BFloat16", "torch.bfloat16", "bf16"}, {"bfloat16", ""}},
    {{"Long", "torch.int64", "i64"}, {"long", ""}},
    {{"Int", "torch.int32", "i32"}, {"int", ""}},
    {{"Short", "torch.int16", "i16"}, {"short", ""}},
    {{"Char", "torch.int8", "i8"}, {"", ""}},
    {{"Byte", "torch.uint8", "u8"}, {"", ""}},
    {{"Bool", "torch.bool", "b8"}, {"bool", ""}},
    {{"ComplexFloat", "torch.complex64", "c64"}, {"cfloat", ""}},
    {{"ComplexDouble", "torch.complex128", "c128"}, {"cdouble", ""}},
    {{"ComplexHalf", "torch.complex32", "c32"}, {"chalf", ""}},
    {{"Float8_e4m3fn", "torch.float8_e4m3fn", "f8e4m3fn"}, {"", ""}},
    {{"Float8_e5m2", "torch.float8_e5m2", "f8e5m2"}, {"", ""}},
    {{"UInt16", "torch.uint16", "u16"}, {"", ""}},
    {{"UInt32", "torch.uint32", "u32"}, {"", ""}},
    {{"UInt64", "torch.uint64", "u64"}, {"", ""}},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<Dtype> parse_dtype(std::string_view name) {
  const std::string wanted = lower(name);
  const std::string bare = wanted.rfind("torch.", 0) == 0 ? wanted.substr(6) : wanted;
  for (const auto& row : kDtypes) {
    const std::string torch_bare = lower(row.dtype.torch_name.substr(6));
    if (bare == lower(row.dtype.c10_name) || bare == torch_bare ||
        bare == lower(row.dtype.short_name)) {
      return row.dtype;
    }
    for (const auto alias : row.aliases) {
      if (!alias.empty() && bare == alias) return row.dtype;
    }
  }
  return std::nullopt;
}

}  // namespace fxscope::guards
