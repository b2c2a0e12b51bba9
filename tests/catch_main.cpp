// The one translation unit that compiles Catch2's runner (it is slow to compile).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
