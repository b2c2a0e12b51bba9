#pragma once
// A scratch directory per process and test (CTest runs tests in parallel processes), removed at
// the end: tests that lay out folders of logs (ranks, compressed copies) build them here.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace fxscope::test {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("fxscope_test_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes BYTES to NAME (a path relative to the directory; its folders are made) and returns
  // the file's path.
  std::string write(const std::string& name, std::string_view bytes) const {
    const auto path = path_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }
  // Copies FROM to NAME inside the directory and returns the copy's path.
  std::string copy(const std::string& from, const std::string& name) const {
    const auto path = path_ / name;
    std::filesystem::create_directories(path.parent_path());
    std::filesystem::copy_file(from, path, std::filesystem::copy_options::overwrite_existing);
    return path.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace fxscope::test
