#pragma once
// A shared library opened at run time (dlopen) on first use instead of linked: a NEEDED entry
// stops a binary from starting where the library is missing, and costs every start its load
// time, though most commands never call it. A library's entry points are bound into a table of
// function pointers once per process; what is missing is an Error naming the library, where it
// was looked for and what to install, never an abort.

#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope {

// Where a library is looked for, and what to tell a user who has none.
struct LibrarySearch {
  std::string library;                  // the name a user knows: "cuBLASLt"
  std::vector<std::string> candidates;  // sonames (found as the loader finds them) or paths
  std::string install;                  // "install the CUDA 13 toolkit, or ..."
};

class SharedLibrary {
 public:
  // The first candidate that loads. The handle stays open for the life of the process: the
  // libraries keep state (contexts, handles) that outlives every caller.
  static Result<SharedLibrary> open(const LibrarySearch& search);

  const std::string& path() const { return path_; }
  void* symbol(const char* name) const;
  // "PATH: FOUND found, EXPECTED expected": the library loaded is not the version built for.
  Error wrong_version(const std::string& found, const std::string& expected) const;

 private:
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

// Binds entry points of one library into typed function pointers, collecting those missing.
class EntryPoints {
 public:
  explicit EntryPoints(const SharedLibrary& library) : library_(library) {}

  template <class Fn>
  EntryPoints& bind(const char* name, Fn& fn) {
    void* s = library_.symbol(name);
    if (s == nullptr) missing_ += std::string(missing_.empty() ? "" : ", ") + name;
    // POSIX guarantees that dlsym's object pointer converts to the function's pointer type.
    fn = reinterpret_cast<Fn>(s);
    return *this;
  }

  // None when every entry point was found, else an error naming the file and what it lacks.
  std::optional<Error> missing(const std::string& expected) const;

 private:
  const SharedLibrary& library_;
  std::string missing_;
};

// A library's table of entry points API, loaded and bound when constructed: each library's
// accessor keeps one as a function-local static, so it is made on the first call, once, also
// when threads arrive together. BIND fills the table and may reject the library (a version other
// than the one fxscope was built for).
template <class Api>
class LoadedLibrary {
 public:
  template <class Bind>
  LoadedLibrary(const LibrarySearch& search, Bind bind) {
    auto library = SharedLibrary::open(search);
    if (!library) {
      error_ = library.error();
      return;
    }
    Api api;
    if (std::optional<Error> e = bind(*library, api)) {
      error_ = *e;
      return;
    }
    api_ = api;
  }

  Result<const Api*> get() const {
    if (!api_) return error_;
    return &*api_;
  }

 private:
  std::optional<Api> api_;
  Error error_;
};

}  // namespace fxscope
