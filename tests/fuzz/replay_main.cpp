// A main() for a fuzz target without libFuzzer: feeds each file of the given corpus directories
// (or single files) to LLVMFuzzerTestOneInput once, so that any compiler replays the kept corpus
// as an ordinary test. A bad input shows as the crash or sanitizer report it causes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// Files of PATH in name order (so a failing run is the same run again), or PATH itself.
std::vector<fs::path> inputs_of(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR_OR_FILE...\n";
    return 2;
  }
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::cerr << argv[i] << ": no such file or directory\n";
      return 2;
    }
    for (const auto& file : inputs_of(argv[i])) {
      // Printed before the run, so that a crash names the input that caused it.
      std::cout << "replaying " << file.string() << std::endl;
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
      // An exact-size heap copy, as libFuzzer passes it, so ASan builds catch an over-read.
      const std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
      LLVMFuzzerTestOneInput(data.data(), data.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::cerr << "no input found: an empty corpus tests nothing\n";
    return 1;
  }
  std::cout << replayed << " inputs replayed\n";
  return 0;
}
