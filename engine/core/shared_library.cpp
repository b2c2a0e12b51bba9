#include "fxscope/core/shared_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <string_view>

namespace fxscope {
namespace {

constexpr std::string_view kNotThere = "cannot open shared object file";

// Why CANDIDATE did not load, from dlerror: "" when it is simply not there (the loader's text is
// "NAME: cannot open shared object file: ...", or none at all when an LD_AUDIT module hid it),
// else what went wrong: a library it needs is missing, or the file is broken or foreign.
std::string load_failure(const std::string& candidate) {
  const char* why = ::dlerror();
  const std::string text = why != nullptr ? why : "";
  const auto missing = text.find(kNotThere);
  if (missing == std::string::npos) return text;
  const std::string name = text.substr(0, missing > 2 ? missing - 2 : 0);  // before ": "
  if (name.empty() || name == candidate) return "";
  return candidate + " needs " + name + ", which is not found";
}

std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& s : items) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace

Result<SharedLibrary> SharedLibrary::open(const LibrarySearch& search) {
  const std::vector<std::string> candidates = unique(search.candidates);
  std::string failure;
  for (const std::string& c : candidates) {
    if (void* handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return SharedLibrary(handle, c);
    const std::string why = load_failure(c);
    if (failure.empty()) failure = why;
  }
  if (!failure.empty()) return make_error(search.library + ": " + failure);
  if (candidates.empty()) return make_error(search.library + ": nowhere to look for it");
  std::string elsewhere;
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    elsewhere += (i == 1 ? "; also looked for " : ", ") + candidates[i];
  }
  return make_error(candidates.front() + " not found (" + search.library + elsewhere +
                    "): " + search.install);
}

void* SharedLibrary::symbol(const char* name) const {
  return ::dlsym(handle_, name);
}

Error SharedLibrary::wrong_version(const std::string& found, const std::string& expected) const {
  return make_error(path_ + ": " + found + " found, " + expected + " expected");
}

std::optional<Error> EntryPoints::missing(const std::string& expected) const {
  if (missing_.empty()) return std::nullopt;
  return make_error(library_.path() + " has no " + missing_ + " (" + expected + " expected)");
}

}  // namespace fxscope
