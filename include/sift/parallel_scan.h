// sift/parallel_scan.h: one bounded, filtered read of a stream split across threads, delivered in
// order (StreamEngine::ParallelScan): its options, the sink that receives the matches, its statistics.
//
// A replay of a stored range is embarrassingly parallel: each message is judged on its own. The scan
// cuts [start, end) into `threads` contiguous offset ranges at chunk boundaries (so no chunk is read
// twice), runs one Consumer per range on its own thread, and hands the matches to the sink strictly
// in offset order, exactly as one Consumer would: the range whose turn it is delivers straight to
// the sink, the later ones hold their matches (copied, up to max_buffered_bytes each, after which
// they wait for their turn). A corrupt chunk under CorruptionPolicy::kStop ends the scan where a
// single consumer would have ended it: the matches before it are delivered, none after it.
//
// Only bounded, non-following scans are split: with follow, or with a timestamp end, or when the
// range is small, the scan runs one Consumer on the calling thread.
//
// Thread safety: the sink is called from one thread at a time (not always the caller's), and not
// after ParallelScan returns; any number of scans may run over one StreamEngine at once.
#ifndef SIFT_PARALLEL_SCAN_H_
#define SIFT_PARALLEL_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sift/consumer.h"
#include "sift/delivery.h"
#include "sift/status.h"

namespace sift {

struct ParallelScanOptions {
  // The read: stream, filter, start, end, corruption policy, cache use. `credit` is the batch size
  // of each range's consumer; `follow` forces a single-threaded scan.
  ConsumerOptions consumer;
  // Threads to split the range over (1: no split). At most 64.
  uint32_t threads = 2;
  // Matches a range that is not yet in turn may hold before it waits (bytes, per range).
  size_t max_buffered_bytes = size_t{64} << 20;
  // Ranges smaller than this many messages are not split further.
  uint64_t min_messages_per_thread = 65536;
};

class ScanSink {
 public:
  virtual ~ScanSink() = default;
  // One match, in offset order, as a consumer delivers it (decode it with ToJson / ToProton if
  // wanted). Its bytes live until the call returns. Return false to end the scan.
  virtual bool Deliver(const Delivery& delivery) = 0;
  // Now and then: messages scanned so far by all threads, out of `total` (0 when unknown).
  virtual void Progress(uint64_t scanned, uint64_t total) { (void)scanned, (void)total; }
};

struct ParallelScanStats {
  ConsumerStats consumer;  // summed over the ranges; `elapsed` is the wall time of the whole scan
  uint32_t threads = 1;    // ranges actually scanned in parallel
  Status last_corruption;  // the error of the last corrupt chunk skipped (kSkip), ok if none
};

}  // namespace sift

#endif  // SIFT_PARALLEL_SCAN_H_
