// FlowControl: alarm evaluation (see flow_control.h).
#include "tools/serve/flow_control.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

#include "tools/units.h"

namespace sift::tools {

FlowControl::FlowControl(uint64_t memory_budget, uint64_t min_disk_free)
    : memory_budget_(memory_budget), low_water_(memory_budget / 10 * 9), min_disk_free_(min_disk_free) {}

bool FlowControl::Evaluate(std::string* change) {
  const FlowState s = state();
  const uint64_t used = s.inbound_bytes + s.outbound_bytes + s.link_bytes;
  bool changed = false;
  std::string what;
  if (memory_budget_ > 0) {
    const bool raise = !s.memory_alarm && used >= memory_budget_;
    const bool clear = s.memory_alarm && used < low_water_;
    if (raise || clear) {
      memory_alarm_.store(raise, std::memory_order_relaxed);
      changed = true;
      what += std::string(raise ? "memory alarm raised" : "memory alarm cleared") + ": " + FormatByteSize(used) +
              " in use, budget " + FormatByteSize(memory_budget_);
    }
  }
  if (min_disk_free_ > 0) {
    const bool low = s.disk_free < min_disk_free_;
    if (low != s.disk_alarm) {
      disk_alarm_.store(low, std::memory_order_relaxed);
      changed = true;
      if (!what.empty()) what += "; ";
      what += std::string(low ? "disk alarm raised" : "disk alarm cleared") + ": " + FormatByteSize(s.disk_free) +
              " free, threshold " + FormatByteSize(min_disk_free_);
    }
  }
  if (changed) *change = what;
  return changed;
}

FlowState FlowControl::state() const {
  FlowState s;
  s.memory_alarm = memory_alarm_.load(std::memory_order_relaxed);
  s.disk_alarm = disk_alarm_.load(std::memory_order_relaxed);
  s.store_unwritable = store_unwritable_.load(std::memory_order_relaxed);
  s.inbound_bytes = NonNegative(inbound_);
  s.outbound_bytes = outbound();
  s.link_bytes = links();
  s.memory_budget = memory_budget_;
  s.disk_free = disk_free_.load(std::memory_order_relaxed);
  s.min_disk_free = min_disk_free_;
  return s;
}

bool FileSystemFreeBytes(const std::string& path, uint64_t* free_bytes, std::string* error) {
  struct statvfs st {};
  if (statvfs(path.c_str(), &st) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  *free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  return true;
}

}  // namespace sift::tools
