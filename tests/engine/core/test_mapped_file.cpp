#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fxscope/core/mapped_file.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a missing file gives an error naming the path", "[core]") {
  const auto f = MappedFile::open("/nonexistent/fxscope.log");
  REQUIRE_FALSE(f.ok());
  CHECK_THAT(f.error().message, Catch::Contains("/nonexistent/fxscope.log"));
}

TEST_CASE("an empty file maps to an empty view", "[core]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "fxscope_test_empty.log").string();
  { std::ofstream(path).flush(); }
  const auto f = MappedFile::open(path);
  REQUIRE(f.ok());
  CHECK(f->view().empty());
  std::remove(path.c_str());
}

TEST_CASE("a directory is not a file", "[core]") {
  const auto f = MappedFile::open(test::sample("residual_mlp"));
  REQUIRE_FALSE(f.ok());
  CHECK_THAT(f.error().message, Catch::Contains("not a regular file"));
}
