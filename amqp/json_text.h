// JsonText: a growable text buffer for writers that append many small pieces (a message's typed JSON
// takes a hundred): every append is an inlined capacity check and a copy, where std::string's append is
// an out-of-line call, and growing never fills the new room with zeros first. It keeps its capacity
// when cleared, so one buffer serves message after message. Not thread-safe: one per thread.
#ifndef SIFT_ENGINE_AMQP_JSON_TEXT_H_
#define SIFT_ENGINE_AMQP_JSON_TEXT_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace sift::amqp {

class JsonText {
 public:
  void clear() { len_ = 0; }
  size_t size() const { return len_; }
  bool empty() const { return len_ == 0; }
  char* data() { return buf_.get(); }
  std::string_view view() const { return {buf_.get(), len_}; }
  explicit operator std::string_view() const { return view(); }

  void push_back(char c) {
    if (len_ == cap_) Grow(1);
    buf_[len_++] = c;
  }
  void append(const char* s, size_t n) {
    if (cap_ - len_ < n) Grow(n);
    std::memcpy(buf_.get() + len_, s, n);
    len_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  // A literal: its length is known where the call is inlined.
  template <size_t N>
  void append(const char (&literal)[N]) {
    append(literal, N - 1);
  }
  // Room for `n` more bytes at data() + size(), then commit(k) for the k written.
  char* Room(size_t n) {
    if (cap_ - len_ < n) Grow(n);
    return buf_.get() + len_;
  }
  void commit(size_t n) { len_ += n; }
  // Sets the length: shorter drops the tail, longer leaves the new bytes for the caller to fill.
  void resize(size_t n) {
    if (n > len_) Room(n - len_);
    len_ = n;
  }
  void insert(size_t at, const char* s, size_t n) {
    Room(n);
    std::memmove(buf_.get() + at + n, buf_.get() + at, len_ - at);
    std::memcpy(buf_.get() + at, s, n);
    len_ += n;
  }
  void insert(size_t at, size_t count, char c) {
    Room(count);
    std::memmove(buf_.get() + at + count, buf_.get() + at, len_ - at);
    std::memset(buf_.get() + at, c, count);
    len_ += count;
  }

 private:
  [[gnu::noinline]] void Grow(size_t n) {
    const size_t cap = std::max(cap_ * 2, len_ + n + 256);
    std::unique_ptr<char[]> bigger(new char[cap]);
    if (len_ > 0) std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
    cap_ = cap;
  }

  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t len_ = 0;
};

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_JSON_TEXT_H_
