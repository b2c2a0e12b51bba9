#include "runtime/cuda_libraries.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace fxscope::gpu {
namespace {

namespace fs = std::filesystem;

// The folders CMake found the toolkit's libraries in, ':'-separated (CUPTI may sit apart, under
// extras/CUPTI): where the build's own toolkit is, whatever the loader's path says.
std::vector<std::string> configured_folders() {
  std::vector<std::string> out;
  const std::string all = FXSCOPE_CUDA_LIBRARY_DIRS;
  std::size_t begin = 0;
  while (begin <= all.size()) {
    const std::size_t end = std::min(all.find(':', begin), all.size());
    if (end > begin) out.push_back(all.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// site-packages (or dist-packages) folders of the Pythons PyTorch is usually installed in.
std::vector<fs::path> python_package_folders() {
  std::vector<fs::path> roots = {"/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib"};
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    roots.insert(roots.begin(), fs::path(venv) / "lib");
  }
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::path& root : roots) {
    for (const auto& python : fs::directory_iterator(root, ec)) {
      if (python.path().filename().string().rfind("python", 0) != 0) continue;
      for (const char* site : {"site-packages", "dist-packages"}) {
        if (fs::is_directory(python.path() / site / "nvidia", ec))
          out.push_back(python.path() / site);
      }
    }
  }
  return out;
}

}  // namespace

std::string toolkit_package(const std::string& part, const std::string& debian_package) {
  const std::string major = std::to_string(CUDART_VERSION / 1000);
  return "the CUDA " + major + " toolkit's " + part + " (" + debian_package + "-" + major + "-0)";
}

LibrarySearch cuda_library_search(const CudaLibrary& l) {
  const std::string soname = l.stem + ".so." + std::to_string(l.major);
  std::vector<std::string> folders = configured_folders();
  folders.emplace_back("/usr/local/cuda/lib64");
  LibrarySearch s;
  s.library = l.library;
  s.candidates.push_back(soname);
  for (const std::string& folder : folders) s.candidates.push_back(folder + "/" + soname);
  // CUDA 13's wheels share one folder (nvidia/cu13/lib); CUDA 12's have one per library.
  const std::string shared_wheel_folder = "cu" + std::to_string(CUDART_VERSION / 1000);
  for (const fs::path& site : python_package_folders()) {
    for (const std::string& folder : {shared_wheel_folder, l.folder}) {
      std::error_code ec;
      const fs::path file = site / "nvidia" / folder / "lib" / soname;
      if (fs::exists(file, ec)) s.candidates.push_back(file.string());
    }
  }
  s.candidates.push_back(l.stem + ".so");
  s.install = "install " + l.package + " or PyTorch's " + l.wheel +
              " wheel, or add the folder that holds " + soname + " to LD_LIBRARY_PATH";
  return s;
}

}  // namespace fxscope::gpu
