// Record file reader and writer (record_file.h, docs/record-format.md).
#include "amqp/record_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "base/byte_order.h"
#include "amqp/coding.h"

namespace sift::amqp {

RecordFileReader::~RecordFileReader() { Close(); }

void RecordFileReader::Close() {
  if (map_ != nullptr) munmap(map_, map_size_);
  map_ = nullptr;
  map_size_ = 0;
  buffer_.clear();
  data_ = nullptr;
  size_ = 0;
  index_ = 0;
  position_ = 0;
  prefetched_ = 0;
  error_.clear();
}

void RecordFileReader::Release(uint64_t begin, uint64_t end) const {
  if (map_ == nullptr) return;  // a buffer, or bytes of the caller's: dropping pages would lose them
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (begin + page - 1) / page * page;  // the mapping starts on a page
  const uint64_t last = std::min<uint64_t>(end, map_size_) / page * page;
  // A private mapping of a file never written to: dropped pages read as the file's again.
  if (last > first) (void)madvise(static_cast<uint8_t*>(map_) + first, last - first, MADV_DONTNEED);
}

bool RecordFileReader::Open(const std::string& path, const RecordFileOptions& options) {
  if (path == "-") return OpenFd(0, "stdin", options);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Close();
    name_ = path;
    error_ = fmt::format("{}: cannot open: {}", path, std::strerror(errno));
    return false;
  }
  const bool ok = OpenFd(fd, path, options);
  ::close(fd);  // a mapping stays valid after its descriptor is closed
  return ok;
}

bool RecordFileReader::OpenFd(int fd, const std::string& name, const RecordFileOptions& options) {
  Close();
  options_ = options;
  name_ = name;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (st.st_size == 0) return true;  // an empty file holds no records
    void* m = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      map_ = m;
      map_size_ = static_cast<size_t>(st.st_size);
      madvise(m, map_size_, MADV_SEQUENTIAL);
      data_ = static_cast<const uint8_t*>(m);
      size_ = map_size_;
      return true;
    }
  }
  // Pipes, terminals and anything that cannot be mapped: read it all.
  uint8_t chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = fmt::format("{}: cannot read: {}", name_, std::strerror(errno));
      return false;
    }
    buffer_.insert(buffer_.end(), chunk, chunk + n);
  }
  data_ = buffer_.data();
  size_ = buffer_.size();
  return true;
}

void RecordFileReader::OpenBytes(std::span<const uint8_t> bytes, const std::string& name,
                                 const RecordFileOptions& options) {
  Close();
  options_ = options;
  name_ = name;
  data_ = bytes.data();
  size_ = bytes.size();
}

bool RecordFileReader::Next(std::span<const uint8_t>* message) {
  if (!error_.empty() || position_ >= size_) return false;
  const uint8_t* p = data_ + position_;
  const uint8_t* limit = data_ + size_;
  uint32_t length = 0;
  const uint8_t* q = ReadU32(p, limit, &length);
  if (q == nullptr) {
    error_ = fmt::format("{}: record {} at byte {}: truncated length prefix ({} of 4 bytes)", name_, index_, position_,
                         size_ - position_);
    return false;
  }
  if (length > options_.max_record_size) {
    error_ = fmt::format("{}: record {} at byte {}: length {} exceeds the maximum record size {}", name_, index_,
                         position_, length, options_.max_record_size);
    return false;
  }
  const size_t left = BytesLeft(q, limit);
  if (length > left) {
    error_ = fmt::format("{}: record {} at byte {}: truncated: length {} but only {} bytes left", name_, index_,
                         position_, length, left);
    return false;
  }
  *message = {q, length};
  position_ += 4 + uint64_t{length};
  ++index_;
  // Each record's length says where the next one starts, so reading only the framing is a chain of
  // dependent loads, one cache miss per record; asking for the bytes a few records ahead turns it into
  // a stream the memory serves at its bandwidth (a prefetch of an address not mapped yet is dropped,
  // never a fault).
  constexpr uint64_t kPrefetchAhead = 4096;
  constexpr uint64_t kLine = 64;
  const uint64_t want = std::min<uint64_t>(position_ + kPrefetchAhead, size_);
  for (prefetched_ = std::max(prefetched_, position_ & ~(kLine - 1)); prefetched_ < want; prefetched_ += kLine) {
    __builtin_prefetch(data_ + prefetched_);
  }
  return true;
}

namespace {

// Whether `message` starts like an encoded message: a described section whose descriptor is a
// small ulong, a ulong or a symbol.
bool LooksLikeMessage(const uint8_t* p, uint32_t length) {
  if (length < 3 || p[0] != 0x00) return false;
  const uint8_t c = p[1];
  return c == 0x53 || c == 0x80 || c == 0xa3 || c == 0xb3;
}

}  // namespace

bool GuessRecordBoundary(std::span<const uint8_t> bytes, size_t from, size_t to, const RecordFileOptions& options,
                         int chain, size_t* position) {
  const size_t size = bytes.size();
  for (size_t start = from; start < to && start < size; ++start) {
    size_t p = start;
    int found = 0;
    for (; found < chain; ++found) {
      if (size - p < 4) break;
      const uint32_t length = base::LoadBE32(bytes.data() + p);
      if (length > options.max_record_size || length > size - p - 4 || !LooksLikeMessage(bytes.data() + p + 4, length))
        break;
      p += 4 + size_t{length};
      if (p == size) {
        found = chain;  // the chain runs to the end of the file
        break;
      }
    }
    if (found >= chain) {
      *position = start;
      return true;
    }
  }
  return false;
}

// ---- Writer ----

RecordFileWriter::~RecordFileWriter() { Close(); }

bool RecordFileWriter::Open(const std::string& path) {
  if (path == "-") return OpenFd(1, "stdout");
  Close();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  name_ = path;
  error_.clear();
  if (fd < 0) {
    error_ = fmt::format("{}: cannot create: {}", path, std::strerror(errno));
    return false;
  }
  fd_ = fd;
  owns_fd_ = true;
  return true;
}

bool RecordFileWriter::OpenFd(int fd, const std::string& name) {
  Close();
  fd_ = fd;
  owns_fd_ = false;
  name_ = name;
  error_.clear();
  return true;
}

bool RecordFileWriter::Append(std::span<const uint8_t> message) {
  if (!error_.empty()) return false;
  if (fd_ < 0) {
    error_ = fmt::format("{}: not open", name_);
    return false;
  }
  if (message.size() > UINT32_MAX) {
    error_ = fmt::format("{}: record {}: {} bytes do not fit a 4-byte length", name_, records_, message.size());
    return false;
  }
  AppendRecord(message, &buffer_);
  ++records_;
  if (buffer_.size() >= (1u << 20)) return Flush();
  return true;
}

bool RecordFileWriter::Flush() {
  if (!error_.empty()) return false;
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = fmt::format("{}: cannot write: {}", name_, std::strerror(errno));
      return false;
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
  return true;
}

bool RecordFileWriter::Close() {
  bool ok = true;
  if (fd_ >= 0) {
    ok = Flush();
    if (owns_fd_ && ::close(fd_) != 0 && ok) {
      error_ = fmt::format("{}: cannot close: {}", name_, std::strerror(errno));
      ok = false;
    }
  }
  fd_ = -1;
  owns_fd_ = false;
  buffer_.clear();
  return ok;
}

void AppendRecord(std::span<const uint8_t> message, std::vector<uint8_t>* out) {
  uint8_t prefix[4];
  base::StoreBE32(prefix, static_cast<uint32_t>(message.size()));
  out->insert(out->end(), prefix, prefix + 4);
  out->insert(out->end(), message.begin(), message.end());
}

}  // namespace sift::amqp
