// An LD_AUDIT module that hides libgvc.so.6 from the dynamic loader, so that a test can run
// fxscope-cli as it runs on a GPU host without Graphviz, on a build host that has it: removing
// the file is not an option there, and LD_LIBRARY_PATH cannot hide a library in a system folder.
#include <link.h>

#include <cstdint>
#include <cstring>

extern "C" unsigned int la_version(unsigned int) {
  return LAV_CURRENT;
}

// Called for the name asked for and for each path tried; no answer means "not found". Every
// other library loads as usual.
extern "C" char* la_objsearch(const char* name, uintptr_t*, unsigned int) {
  if (std::strstr(name, "libgvc.so") != nullptr) return nullptr;
  return const_cast<char*>(name);
}
