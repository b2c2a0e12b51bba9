#pragma once
// Decoders of whole compressed logs (private to the trace module, which alone links zlib and
// libzstd). Each reads the mapped file and writes its text into an OutputBuffer; errors name
// the path: truncated stream, corrupt data, beyond the limit, out of memory.

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "fxscope/core/result.h"
#include "fxscope/trace/log_file.h"

namespace fxscope::trace {

// How much text a decoder has made final, for a reader on another thread.
class TextProgress {
 public:
  void publish(std::string_view text);  // the decoder: this much is final
  void close();                         // the decoder: no more is coming
  // The reader: waits until more than SEEN bytes are final or the decoder is done; CLOSED says
  // which.
  std::string_view wait_past(std::size_t seen, bool& closed);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string_view text_;
  bool closed_ = false;
};

struct DecodedText {
  TextPages pages;
  std::size_t size = 0;
  // Where the stream ended early (a file cut short), what precedes the cut being the text:
  // "the file ends inside zstd frame 1 (zstd, after N bytes of text)"; empty when whole.
  std::string cut_short;
};

// Where a decoder writes. The whole limit is reserved as address space up front and committed
// as the text grows, so the text never moves: views a reader took of it stay valid.
class OutputBuffer {
 public:
  OutputBuffer(const std::string& path, Compression format, std::size_t limit,
               TextProgress* progress)
      : path_(path), format_(format), limit_(limit), progress_(progress) {}

  // Commits room for TOTAL bytes when the stream says how large it is. Only a hint: one that
  // cannot be met (a damaged size field) leaves the growth to make_room.
  void reserve_hint(std::size_t total);
  // Some room after the text, or why not: the limit is reached, or memory is out.
  std::optional<Error> make_room();

  char* tail() { return base_ + size_; }
  // The room a decoder may fill in one call: bounded when a reader waits, so that it gets the
  // text in steps.
  std::size_t room() const;
  void advance(std::size_t n);  // N more bytes of text are final
  std::size_t size() const { return size_; }
  std::size_t limit() const { return limit_; }

  // The text, the pages past it given back.
  DecodedText finish();
  // The text so far, of a stream cut short at WHAT ("the file ends inside zstd frame 1").
  DecodedText finish_cut_short(const std::string& what);

  // "PATH: FOUND than LIMIT of text, the limit ...", FOUND saying how the stream exceeds it.
  Error too_large(const std::string& found) const;
  // "PATH: WHAT (gzip, after N bytes of text)", for the decoders' messages.
  Error error(const std::string& what) const;

 private:
  // "WHAT (gzip, after N bytes of text)": where in the stream the decoder stopped.
  std::string described(const std::string& what) const;
  bool reserve();
  bool commit(std::size_t bytes);

  const std::string& path_;
  Compression format_;
  std::size_t limit_;
  TextProgress* progress_;
  TextPages pages_;
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t committed_ = 0;
};

// Every gzip member in DATA, one after the other (concatenated members are one stream, as gzip
// itself reads them).
Result<DecodedText> gunzip_log(std::string_view data, OutputBuffer& out);

// Every zstd frame in DATA, skippable frames skipped.
Result<DecodedText> unzstd_log(std::string_view data, OutputBuffer& out);

}  // namespace fxscope::trace
