// The store's info log (see info_log.h).
#include "storage/info_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace sift::storage {
namespace {

class StoreInfoLog final : public rocksdb::Logger {
 public:
  StoreInfoLog(std::string dir, size_t keep_old, uint64_t max_bytes)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL),
        dir_(std::move(dir)),
        path_(dir_ + "/LOG"),
        keep_old_(keep_old),
        max_bytes_(max_bytes) {}
  ~StoreInfoLog() override { CloseFile(); }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override { Write(format, ap); }
  void Logv(rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel()) return;
    Write(format, ap);
  }
  size_t GetLogFileSize() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<size_t>(size_);
  }

 protected:
  rocksdb::Status CloseImpl() override {
    CloseFile();
    return rocksdb::Status::OK();
  }

 private:
  void Write(const char* format, va_list ap) {
    // A line: "2026/12/05-14:03:38.123456 <thread> <message>\n", as RocksDB's own log writes it.
    char stack[1024];
    std::vector<char> heap;
    char* buf = stack;
    size_t cap = sizeof stack;
    const auto now = std::chrono::system_clock::now();
    const time_t secs = std::chrono::system_clock::to_time_t(now);
    const long micros = static_cast<long>(
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
    struct tm t;
    localtime_r(&secs, &t);
    const unsigned long long thread = static_cast<unsigned long long>(pthread_self());
    const int head = snprintf(buf, cap, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %llx ", t.tm_year + 1900, t.tm_mon + 1,
                              t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, micros, thread);
    if (head < 0) return;
    va_list copy;
    va_copy(copy, ap);
    int body = vsnprintf(buf + head, cap - static_cast<size_t>(head), format, copy);
    va_end(copy);
    if (body < 0) return;
    if (static_cast<size_t>(head + body) + 2 > cap) {
      heap.resize(static_cast<size_t>(head + body) + 2);
      std::copy(buf, buf + head, heap.data());
      buf = heap.data();
      cap = heap.size();
      va_copy(copy, ap);
      body = vsnprintf(buf + head, cap - static_cast<size_t>(head), format, copy);
      va_end(copy);
      if (body < 0) return;
    }
    size_t len = static_cast<size_t>(head + body);
    if (len == 0 || buf[len - 1] != '\n') buf[len++] = '\n';
    Append(std::string_view(buf, len));
  }

  void Append(std::string_view line) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ < 0 || size_ >= max_bytes_) OpenFile();
    if (fd_ < 0) {
      ++dropped_;
      return;
    }
    if (dropped_ > 0) {
      char note[96];
      const int n = snprintf(note, sizeof note, "(%llu earlier lines could not be written)\n",
                             static_cast<unsigned long long>(dropped_));
      if (n > 0 && WriteAll(std::string_view(note, static_cast<size_t>(n)))) dropped_ = 0;
    }
    if (!WriteAll(line)) ++dropped_;
  }

  // One write per line, so lines from other threads never interleave; a short write (a disk that just
  // filled) ends the line where it stopped, and the next line starts on a line of its own.
  bool WriteAll(std::string_view bytes) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n > 0) size_ += static_cast<uint64_t>(n);
    if (n == static_cast<ssize_t>(bytes.size())) return true;
    if (n > 0 && ::write(fd_, "\n", 1) == 1) ++size_;
    return false;
  }

  void OpenFile() {
    CloseFile();
    struct stat st;
    if (::stat(path_.c_str(), &st) == 0 && st.st_size > 0) RotateOld();
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    size_ = 0;
  }

  void RotateOld() {
    const long long micros =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    std::error_code ec;
    std::filesystem::rename(path_, path_ + ".old." + std::to_string(micros), ec);
    if (ec) return;
    std::vector<std::string> old;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("LOG.old.", 0) == 0) old.push_back(name);
    }
    // Same-length microsecond stamps sort by time as text.
    std::sort(old.begin(), old.end());
    for (size_t i = 0; i + keep_old_ < old.size(); ++i) std::filesystem::remove(dir_ + "/" + old[i], ec);
  }

  void CloseFile() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  const std::string dir_, path_;
  const size_t keep_old_;
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewStoreInfoLog(const std::string& dir, size_t keep_old, uint64_t max_bytes) {
  return std::make_shared<StoreInfoLog>(dir, keep_old, max_bytes);
}

}  // namespace sift::storage
