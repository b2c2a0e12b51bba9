// next_in as a pointer to const: the mapped file is read-only.
#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "decompress.h"

namespace fxscope::trace {

namespace {

// zlib counts in uInt: feed it at most this much at a time.
constexpr std::size_t kMaxChunk = std::size_t{1} << 30;

// Deflate expands at most ~1032:1; a size field promising more is damaged.
constexpr std::size_t kMaxDeflateRatio = 1032;

uInt chunk(std::size_t n) {
  return static_cast<uInt>(std::min(n, kMaxChunk));
}

// The last member's ISIZE (its text size modulo 2^32) is the whole text's size for the usual
// one-member file under 4 GiB; otherwise it undershoots and the buffer grows.
std::size_t size_hint(std::string_view data) {
  if (data.size() < 18) return 0;
  const auto* tail = reinterpret_cast<const unsigned char*>(data.data() + data.size() - 4);
  const std::uint32_t isize =
      static_cast<std::uint32_t>(tail[0]) | static_cast<std::uint32_t>(tail[1]) << 8 |
      static_cast<std::uint32_t>(tail[2]) << 16 | static_cast<std::uint32_t>(tail[3]) << 24;
  return std::min<std::size_t>(std::max<std::size_t>(isize, data.size() * 4),
                               data.size() * kMaxDeflateRatio);
}

class Inflater {
 public:
  Inflater() { ok_ = inflateInit2(&zs_, 16 + MAX_WBITS) == Z_OK; }  // gzip wrapper only
  ~Inflater() {
    if (ok_) inflateEnd(&zs_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  bool ok() const { return ok_; }
  z_stream& stream() { return zs_; }

 private:
  z_stream zs_{};
  bool ok_ = false;
};

std::string zlib_says(const z_stream& zs) {
  return zs.msg != nullptr ? std::string(" (zlib: ") + zs.msg + ")" : std::string();
}

}  // namespace

Result<DecodedText> gunzip_log(std::string_view data, OutputBuffer& out) {
  out.reserve_hint(size_hint(data));
  Inflater inflater;
  if (!inflater.ok()) return out.error("out of memory starting zlib");
  z_stream& zs = inflater.stream();
  const auto* in = reinterpret_cast<const Bytef*>(data.data());
  std::size_t consumed = 0;
  int member = 1;
  for (;;) {
    if (auto full = out.make_room()) return *full;
    zs.next_in = in + consumed;
    zs.avail_in = chunk(data.size() - consumed);
    zs.next_out = reinterpret_cast<Bytef*>(out.tail());
    zs.avail_out = chunk(out.room());
    const uInt in_before = zs.avail_in;
    const uInt out_before = zs.avail_out;
    const int ret = inflate(&zs, Z_NO_FLUSH);
    consumed += in_before - zs.avail_in;
    out.advance(out_before - zs.avail_out);
    const bool input_done = consumed == data.size();
    switch (ret) {
      case Z_STREAM_END:
        if (input_done) return out.finish();
        // Concatenated members (`cat a.gz b.gz`, pigz's blocks) are one stream of text.
        if (data.size() - consumed < 2 || in[consumed] != 0x1f || in[consumed + 1] != 0x8b) {
          return out.error(std::to_string(data.size() - consumed) + " bytes after gzip member " +
                           std::to_string(member) + " are not gzip data");
        }
        inflateReset(&zs);
        ++member;
        break;
      case Z_OK:
      case Z_BUF_ERROR:
        // No end marker and nothing left to read, though there was room to write: cut short.
        if (input_done && zs.avail_out > 0) {
          return out.finish_cut_short("the file ends inside gzip member " + std::to_string(member) +
                                      ", before its end marker");
        }
        break;
      case Z_MEM_ERROR:
        return out.error("out of memory in zlib");
      case Z_NEED_DICT:
        return out.error("corrupt data: member " + std::to_string(member) +
                         " asks for a preset dictionary, which gzip files never use");
      default:
        return out.error("corrupt data at byte " + std::to_string(consumed) + " of " +
                         std::to_string(data.size()) + zlib_says(zs));
    }
  }
}

}  // namespace fxscope::trace
