#pragma once
// The text of one TORCH_TRACE log file: a plain log is memory-mapped; a gzip or zstd log is
// decompressed once into pages the LogFile owns. Either way text() stays valid, at the same
// address, for as long as the LogFile (or whatever it was moved into) lives, so the string_views
// the reader hands out point into it.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "fxscope/core/mapped_file.h"
#include "fxscope/core/result.h"

namespace fxscope::trace {

enum class Compression { none, gzip, zstd };

// "plain", "gzip", "zstd".
std::string_view compression_name(Compression compression);

// What the first bytes of a file say it is: gzip (1f 8b), zstd (28 b5 2f fd), else none.
Compression compression_of_bytes(std::string_view head);

// What a file name says it is: ".gz", ".zst", else none.
Compression compression_of_name(std::string_view file_name);

// A compressed log is held whole in memory; past this many bytes of text the reader stops and
// says so, rather than let a damaged or hostile file exhaust the memory. A plain log is mapped
// and has no such limit, which is the way to read a larger one.
inline constexpr std::size_t kMaxDecompressedBytes = std::size_t{8} << 30;  // 8 GiB

// Anonymous pages holding decompressed text, unmapped when the owner goes.
class TextPages {
 public:
  TextPages() = default;
  TextPages(char* data, std::size_t mapped) : data_(data), mapped_(mapped) {}
  TextPages(TextPages&& other) noexcept;
  TextPages& operator=(TextPages&& other) noexcept;
  TextPages(const TextPages&) = delete;
  TextPages& operator=(const TextPages&) = delete;
  ~TextPages();

  char* data() const { return data_; }
  std::size_t mapped() const { return mapped_; }
  // Gives back every page past the first BYTES.
  void trim(std::size_t bytes);

 private:
  char* data_ = nullptr;
  std::size_t mapped_ = 0;
};

// Receives a log's text as it becomes final: each call's TEXT is a longer view of the same
// buffer, the last call's with WHOLE true. For a compressed log the calls come while the rest is
// still being decompressed on another thread, so reading and decompressing overlap.
using TextReader = std::function<void(std::string_view text, bool whole)>;

class LogFile {
 public:
  // Opens PATH and, when its first bytes are a gzip or zstd magic, decompresses it whole,
  // handing the text to READ (if given) as it goes. Errors name the path: cannot open, named
  // compressed but not, corrupt stream, decompressed size beyond MAX_DECOMPRESSED_BYTES, out of
  // memory. On an error READ may have seen part of the text. A stream cut short is no error:
  // the text is what precedes the cut, and cut_short() says where it ends.
  static Result<LogFile> open(const std::string& path,
                              std::size_t max_decompressed_bytes = kMaxDecompressedBytes,
                              const TextReader& read = {});

  LogFile() = default;

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  Compression compression() const { return compression_; }
  std::size_t stored_bytes() const { return stored_bytes_; }  // the file's size on disk
  // Why a compressed log's text ends early (its stream cut short: "the file ends inside zstd
  // frame 1 (zstd, after N bytes of text)"), the text being what precedes the cut; empty when
  // the stream is whole.
  const std::string& cut_short() const { return cut_short_; }

 private:
  std::string path_;
  MappedFile mapped_;  // a plain log
  TextPages owned_;    // a compressed log's text
  std::string_view text_;
  Compression compression_ = Compression::none;
  std::size_t stored_bytes_ = 0;
  std::string cut_short_;
};

}  // namespace fxscope::trace
