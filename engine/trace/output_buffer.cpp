#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "decompress.h"

namespace fxscope::trace {

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kFirstCommit = 4 * kMiB;
// How much text a reader on another thread is handed at a time: small enough that reading
// starts early, large enough that the hand-overs cost nothing.
constexpr std::size_t kStep = 2 * kMiB;

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return (bytes + page - 1) / page * page;
}

// "8192 MiB", or "4096 bytes" under a MiB.
std::string size_text(std::size_t bytes) {
  if (bytes < kMiB) return std::to_string(bytes) + " bytes";
  return std::to_string((bytes + kMiB - 1) / kMiB) + " MiB";
}

}  // namespace

TextPages::TextPages(TextPages&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), mapped_(std::exchange(other.mapped_, 0)) {}

TextPages& TextPages::operator=(TextPages&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

TextPages::~TextPages() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
}

void TextPages::trim(std::size_t bytes) {
  const std::size_t keep = round_to_pages(bytes);
  if (data_ == nullptr || keep >= mapped_) return;
  ::munmap(data_ + keep, mapped_ - keep);
  mapped_ = keep;
  if (keep == 0) data_ = nullptr;
}

void TextProgress::publish(std::string_view text) {
  {
    const std::lock_guard lock(mutex_);
    text_ = text;
  }
  changed_.notify_one();
}

void TextProgress::close() {
  {
    const std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_one();
}

std::string_view TextProgress::wait_past(std::size_t seen, bool& closed) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return closed_ || text_.size() > seen; });
  closed = closed_;
  return text_;
}

bool OutputBuffer::reserve() {
  if (base_ != nullptr) return true;
  // Address space only (PROT_NONE is neither committed nor counted against overcommit limits);
  // pages become writable, and then real, as the text reaches them.
  const std::size_t span = round_to_pages(std::max<std::size_t>(limit_, 1));
  void* p = ::mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  base_ = static_cast<char*>(p);
  pages_ = TextPages(base_, span);
  // Huge pages where the system allows them: a tenth of the page faults of writing the text.
  ::madvise(p, span, MADV_HUGEPAGE);
  return true;
}

bool OutputBuffer::commit(std::size_t bytes) {
  const std::size_t target = std::min(round_to_pages(bytes), pages_.mapped());
  if (target <= committed_) return true;
  if (::mprotect(base_ + committed_, target - committed_, PROT_READ | PROT_WRITE) != 0) {
    return false;
  }
  committed_ = target;
  return true;
}

void OutputBuffer::reserve_hint(std::size_t total) {
  if (reserve()) (void)commit(std::min(total, limit_));
}

std::size_t OutputBuffer::room() const {
  const std::size_t left = std::min(committed_, limit_) - size_;
  return progress_ != nullptr ? std::min(left, kStep) : left;
}

std::optional<Error> OutputBuffer::make_room() {
  if (base_ != nullptr && room() > 0) return std::nullopt;
  if (base_ != nullptr && size_ >= limit_) return too_large("it decompresses to more");
  if (!reserve()) {
    return make_error(path_ + ": out of memory: cannot reserve " + size_text(limit_) +
                      " of address space for the " + std::string(compression_name(format_)) +
                      " log's text (lower ReadOptions::max_decompressed_bytes, or decompress "
                      "it and open the plain file)");
  }
  const std::size_t wanted = std::min(std::max(committed_ * 2, kFirstCommit), limit_);
  if (!commit(wanted)) {
    return make_error(path_ + ": out of memory decompressing " +
                      std::string(compression_name(format_)) + " data: cannot hold " +
                      size_text(wanted) + " of text");
  }
  return std::nullopt;
}

void OutputBuffer::advance(std::size_t n) {
  size_ += n;
  if (progress_ != nullptr && n > 0) progress_->publish({base_, size_});
}

DecodedText OutputBuffer::finish() {
  pages_.trim(size_);
  return DecodedText{std::move(pages_), size_, {}};
}

DecodedText OutputBuffer::finish_cut_short(const std::string& what) {
  std::string where = described(what);
  DecodedText text = finish();
  text.cut_short = std::move(where);
  return text;
}

std::string OutputBuffer::described(const std::string& what) const {
  return what + " (" + std::string(compression_name(format_)) + ", after " + std::to_string(size_) +
         " bytes of text)";
}

Error OutputBuffer::too_large(const std::string& found) const {
  return make_error(path_ + ": " + found + " than " + size_text(limit_) +
                    " of text, the limit for a compressed log (held in memory, where a plain "
                    "log is mapped); decompress it and open the plain file");
}

Error OutputBuffer::error(const std::string& what) const {
  return make_error(path_ + ": " + described(what));
}

}  // namespace fxscope::trace
