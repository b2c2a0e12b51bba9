// NVRTC with an on-disk cache. The cache key is the MD5 of everything that changes the cubin
// (NVRTC's version, the architecture, the options and the source); files are written to a
// temporary name and renamed, so concurrent processes never read half a cubin.

#include "fxscope/gpu/nvrtc_compiler.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "fxscope/trace/md5.h"
#include "kernels/nvrtc_api.h"

namespace fxscope::gpu {
namespace {

namespace fs = std::filesystem;

std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  std::string first;
  while (std::getline(in, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
  }
  return first;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_atomically(const fs::path& path, const std::string& bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return;
  const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return;
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace

std::string default_kernel_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (fs::path(xdg) / "fxscope" / "kernels").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (fs::path(home) / ".cache" / "fxscope" / "kernels").string();
  }
  std::error_code ec;
  return (fs::temp_directory_path(ec) / "fxscope-kernels").string();
}

Result<CompiledCubin> compile_cuda(const std::string& source, const std::string& entry,
                                   const NvrtcOptions& options) {
  std::vector<std::string> args = {"--gpu-architecture=" + options.arch, "-std=c++17",
                                   "-default-device"};
  args.insert(args.end(), options.extra.begin(), options.extra.end());
  auto loaded = nvrtc_api();
  if (!loaded) return make_error(entry + ": " + loaded.error().message);
  const NvrtcApi& nvrtc = **loaded;
  int major = 0;
  int minor = 0;
  nvrtc.version(&major, &minor);
  std::string key_text = "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + "\n";
  for (const std::string& a : args) key_text += a + "\n";
  key_text += source;
  CompiledCubin out;
  if (options.use_cache) {
    const std::string dir =
        options.cache_dir.empty() ? default_kernel_cache_dir() : options.cache_dir;
    out.cache_path =
        (fs::path(dir) / (trace::md5_hex(key_text) + "_" + options.arch + ".cubin")).string();
    std::string cached = read_file(out.cache_path);
    if (!cached.empty()) {
      out.cubin = std::move(cached);
      out.from_cache = true;
      return out;
    }
  }
  nvrtcProgram prog = nullptr;
  const std::string file = entry + ".cu";
  if (const nvrtcResult r =
          nvrtc.create_program(&prog, source.c_str(), file.c_str(), 0, nullptr, nullptr);
      r != NVRTC_SUCCESS) {
    return make_error(entry + ": NVRTC: " + nvrtc.error_string(r));
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const nvrtcResult built = nvrtc.compile_program(prog, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  nvrtc.program_log_size(prog, &log_size);
  if (log_size > 1) {
    out.log.resize(log_size);
    nvrtc.program_log(prog, out.log.data());
    out.log.resize(log_size - 1);  // the log's terminating NUL
  }
  if (built != NVRTC_SUCCESS) {
    nvrtc.destroy_program(&prog);
    const std::string line = first_error_line(out.log);
    return make_error(entry + ": NVRTC: " + (line.empty() ? nvrtc.error_string(built) : line));
  }
  std::size_t size = 0;
  nvrtc.cubin_size(prog, &size);
  out.cubin.resize(size);
  if (size) nvrtc.cubin(prog, out.cubin.data());
  nvrtc.destroy_program(&prog);
  if (out.cubin.empty()) return make_error(entry + ": NVRTC produced no cubin for " + options.arch);
  if (options.use_cache) write_atomically(out.cache_path, out.cubin);
  return out;
}

}  // namespace fxscope::gpu
