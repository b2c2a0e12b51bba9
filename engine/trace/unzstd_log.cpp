#include <zstd.h>
#include <zstd_errors.h>

#include <memory>

#include "decompress.h"

namespace fxscope::trace {

namespace {

struct FreeDctx {
  void operator()(ZSTD_DCtx* dctx) const { ZSTD_freeDCtx(dctx); }
};

// Logs compressed with `zstd --long` use windows past the decoder's 128 MiB default; accept the
// largest a frame may declare (the decoder allocates only what the frame asks for).
constexpr int kWindowLogMax = 31;

}  // namespace

Result<DecodedText> unzstd_log(std::string_view data, OutputBuffer& out) {
  // The first frame's content size, written by `zstd` for files: the whole text when the file is
  // one frame, else a lower bound and the buffer grows.
  const unsigned long long declared = ZSTD_getFrameContentSize(data.data(), data.size());
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR) {
    if (declared > out.limit()) return out.too_large("its first zstd frame declares more");
    out.reserve_hint(static_cast<std::size_t>(declared));
  }
  std::unique_ptr<ZSTD_DCtx, FreeDctx> dctx(ZSTD_createDCtx());
  if (!dctx) return out.error("out of memory starting libzstd");
  ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, kWindowLogMax);

  ZSTD_inBuffer in{data.data(), data.size(), 0};
  int frame = 1;
  bool between_frames = false;  // the last call ended a frame
  for (;;) {
    if (auto full = out.make_room()) return *full;
    ZSTD_outBuffer chunk{out.tail(), out.room(), 0};
    // 0 once a frame is decoded and flushed; the next call starts the next frame, if any.
    const std::size_t ret = ZSTD_decompressStream(dctx.get(), &chunk, &in);
    out.advance(chunk.pos);
    if (ZSTD_isError(ret)) {
      if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation) {
        return out.error("out of memory in libzstd");
      }
      if (between_frames && ZSTD_getErrorCode(ret) == ZSTD_error_prefix_unknown) {
        return out.error(std::to_string(data.size() - in.pos) + " bytes after zstd frame " +
                         std::to_string(frame - 1) + " are not zstd data");
      }
      // A frame held whole in the input is decoded in one call, which reports no position.
      return out.error("corrupt data in zstd frame " + std::to_string(frame) +
                       ", at or after byte " + std::to_string(in.pos) + " of " +
                       std::to_string(data.size()) + " (libzstd: " + ZSTD_getErrorName(ret) + ")");
    }
    const bool input_done = in.pos == in.size;
    if (ret == 0 && input_done) return out.finish();
    // Mid-frame with nothing left to read, though there was room to write: cut short.
    if (ret != 0 && input_done && chunk.pos < chunk.size) {
      return out.finish_cut_short("the file ends inside zstd frame " + std::to_string(frame));
    }
    between_frames = ret == 0;
    if (between_frames) ++frame;
  }
}

}  // namespace fxscope::trace
