#pragma once
// A read-only memory mapping of a whole file; the trace reader keeps string_views into it.

#include <cstddef>
#include <string>
#include <string_view>

#include "fxscope/core/result.h"

namespace fxscope {

class MappedFile {
 public:
  // Maps PATH; an empty file maps to an empty view. The error names the path and the reason.
  static Result<MappedFile> open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view view() const { return {data_, size_}; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  void release();

  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace fxscope
