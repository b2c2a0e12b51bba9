#include "fxscope/trace/log_file.h"

#include <filesystem>
#include <optional>
#include <thread>

#include "decompress.h"
#include "fxscope/core/text.h"

namespace fxscope::trace {

std::string_view compression_name(Compression compression) {
  switch (compression) {
    case Compression::gzip:
      return "gzip";
    case Compression::zstd:
      return "zstd";
    case Compression::none:
      break;
  }
  return "plain";
}

Compression compression_of_bytes(std::string_view head) {
  if (text::starts_with(head, "\x1f\x8b")) return Compression::gzip;
  if (text::starts_with(head, "\x28\xb5\x2f\xfd")) return Compression::zstd;
  return Compression::none;
}

Compression compression_of_name(std::string_view file_name) {
  if (text::ends_with(file_name, ".gz")) return Compression::gzip;
  if (text::ends_with(file_name, ".zst")) return Compression::zstd;
  return Compression::none;
}

namespace {

std::string_view magic_of(Compression compression) {
  return compression == Compression::gzip ? "1f 8b" : "28 b5 2f fd";
}

Result<DecodedText> decode(std::string_view bytes, OutputBuffer& out, Compression compression) {
  return compression == Compression::gzip ? gunzip_log(bytes, out) : unzstd_log(bytes, out);
}

// Decodes on a worker thread while READ takes the text as it becomes final on this one.
Result<DecodedText> decode_while_reading(std::string_view bytes, const std::string& path,
                                         Compression compression, std::size_t limit,
                                         const TextReader& read) {
  TextProgress progress;
  // Outlives the worker: on an error the pages are given back only after the reader let go.
  OutputBuffer out(path, compression, limit, &progress);
  std::optional<Result<DecodedText>> decoded;
  // Joined however this returns, READ throwing included.
  std::jthread worker([&] {
    decoded.emplace(decode(bytes, out, compression));
    progress.close();
  });
  std::size_t seen = 0;
  for (bool closed = false; !closed;) {
    const std::string_view text = progress.wait_past(seen, closed);
    // The last part is handed over whole once the decoder has checked the stream's end.
    if (!closed) read(text, false);
    seen = text.size();
  }
  worker.join();
  return std::move(*decoded);
}

}  // namespace

Result<LogFile> LogFile::open(const std::string& path, std::size_t max_decompressed_bytes,
                              const TextReader& read) {
  auto mapped = MappedFile::open(path);
  if (!mapped) return mapped.error();
  LogFile log;
  log.path_ = path;
  log.stored_bytes_ = mapped->size();
  const std::string_view bytes = mapped->view();
  // The bytes decide, not the name: a log renamed, or compressed under a plain name, still opens.
  log.compression_ = compression_of_bytes(bytes);
  if (log.compression_ == Compression::none) {
    const Compression named = compression_of_name(std::filesystem::path(path).filename().string());
    if (named != Compression::none && !bytes.empty()) {
      return make_error(path + ": named as " + std::string(compression_name(named)) +
                        " but does not start with its magic bytes " + std::string(magic_of(named)) +
                        "; expected a " + std::string(compression_name(named)) +
                        "-compressed TORCH_TRACE log");
    }
    log.mapped_ = std::move(*mapped);
    log.text_ = log.mapped_.view();
  } else {
    auto decoded = [&]() -> Result<DecodedText> {
      if (read) {
        return decode_while_reading(bytes, path, log.compression_, max_decompressed_bytes, read);
      }
      OutputBuffer out(path, log.compression_, max_decompressed_bytes, nullptr);
      return decode(bytes, out, log.compression_);
    }();
    if (!decoded) return decoded.error();
    log.owned_ = std::move(decoded->pages);
    log.text_ = std::string_view(log.owned_.data(), decoded->size);
    log.cut_short_ = std::move(decoded->cut_short);
  }
  if (read) read(log.text_, true);
  return log;
}

}  // namespace fxscope::trace
