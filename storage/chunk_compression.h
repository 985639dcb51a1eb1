// Compression of a chunk's records (docs/store-format.md, "Compressed chunks"): zstd, one frame per
// chunk, with contexts and buffers kept from one chunk to the next so that neither compressing nor
// decompressing allocates once they have grown to the largest chunk. Private to storage/.
#ifndef SIFT_STORAGE_CHUNK_COMPRESSION_H_
#define SIFT_STORAGE_CHUNK_COMPRESSION_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace sift::storage {

// Compresses records. Not thread-safe: one per writing thread.
class ChunkCompressor {
 public:
  ChunkCompressor();
  ~ChunkCompressor();
  ChunkCompressor(const ChunkCompressor&) = delete;
  ChunkCompressor& operator=(const ChunkCompressor&) = delete;

  // Appends `records` compressed at zstd `level` to *out. False when zstd fails (out of memory) or
  // the result would be no smaller than `records`: the chunk is then stored raw. *out keeps what it
  // held before either way.
  bool Compress(std::string_view records, int level, std::string* out);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

// Decompresses records into a buffer of its own, valid until the next call. Not thread-safe: one per
// reader.
class ChunkDecompressor {
 public:
  ChunkDecompressor();
  ~ChunkDecompressor();
  ChunkDecompressor(const ChunkDecompressor&) = delete;
  ChunkDecompressor& operator=(const ChunkDecompressor&) = delete;

  // Decompresses `stored` (one zstd frame) which must give exactly `raw_bytes`. On failure returns
  // false and sets *why to the reason (zstd's error, or a size that differs).
  bool Decompress(std::string_view stored, size_t raw_bytes, std::string_view* records, const char** why);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_CHUNK_COMPRESSION_H_
