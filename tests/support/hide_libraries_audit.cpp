// An LD_AUDIT module that hides libraries from the dynamic loader, so that a test can run
// fxscope-cli as it runs on a machine without them (a GPU host without Graphviz, a laptop
// without CUDA) on a build host that has them: removing the files is not an option there, and
// LD_LIBRARY_PATH cannot hide a library in a system folder. FXSCOPE_HIDDEN_LIBRARIES lists what
// to hide, comma-separated: every name or path tried that contains one of them is not found.
#include <link.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

bool hidden(const char* name) {
  const char* list = std::getenv("FXSCOPE_HIDDEN_LIBRARIES");
  if (list == nullptr) return false;
  while (*list != '\0') {
    const char* comma = std::strchr(list, ',');
    const std::size_t n =
        comma != nullptr ? static_cast<std::size_t>(comma - list) : std::strlen(list);
    // A substring of NAME, compared without copying: the loader calls this for every path.
    for (const char* at = name; n > 0 && *at != '\0'; ++at) {
      if (std::strncmp(at, list, n) == 0) return true;
    }
    if (comma == nullptr) break;
    list = comma + 1;
  }
  return false;
}

}  // namespace

extern "C" unsigned int la_version(unsigned int) {
  return LAV_CURRENT;
}

// Called for the name asked for and for each path tried; no answer means "not found". Every
// other library loads as usual.
extern "C" char* la_objsearch(const char* name, uintptr_t*, unsigned int) {
  if (hidden(name)) return nullptr;
  return const_cast<char*>(name);
}
