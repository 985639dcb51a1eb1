// zstd behind ChunkCompressor and ChunkDecompressor (see chunk_compression.h).
#include "storage/chunk_compression.h"

#include <zstd.h>

#include <bit>
#include <memory>

namespace sift::storage {

struct ChunkCompressor::Context {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ~Context() { ZSTD_freeCCtx(cctx); }
};

ChunkCompressor::ChunkCompressor() : context_(std::make_unique<Context>()) {}
ChunkCompressor::~ChunkCompressor() = default;

bool ChunkCompressor::Compress(std::string_view records, int level, std::string* out) {
  if (context_->cctx == nullptr || records.empty()) return false;
  const size_t before = out->size();
  // Room for the worst case, so zstd never stops short; the string keeps its capacity between chunks.
  out->resize(before + ZSTD_compressBound(records.size()));
  const size_t n = ZSTD_compressCCtx(context_->cctx, out->data() + before, out->size() - before, records.data(),
                                     records.size(), level);
  if (ZSTD_isError(n) || n >= records.size()) {
    out->resize(before);
    return false;
  }
  out->resize(before + n);
  return true;
}

struct ChunkDecompressor::Context {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::unique_ptr<char[]> buffer;  // not a string: growing it need not zero what zstd overwrites
  size_t capacity = 0;
  ~Context() { ZSTD_freeDCtx(dctx); }
};

ChunkDecompressor::ChunkDecompressor() : context_(std::make_unique<Context>()) {}
ChunkDecompressor::~ChunkDecompressor() = default;

bool ChunkDecompressor::Decompress(std::string_view stored, size_t raw_bytes, std::string_view* records,
                                   const char** why) {
  Context& c = *context_;
  if (c.dctx == nullptr) {
    *why = "cannot create a zstd decompression context";
    return false;
  }
  if (raw_bytes > c.capacity) {
    // To the next power of two: chunks of one stream differ by a few bytes, and a reader scanning them
    // grows its buffer once or twice, not at every chunk a little larger than the last.
    const size_t capacity = std::bit_ceil(raw_bytes);
    c.buffer.reset(new (std::nothrow) char[capacity]);
    c.capacity = c.buffer != nullptr ? capacity : 0;
    if (c.buffer == nullptr) {
      *why = "no memory for the decompressed records";
      return false;
    }
  }
  const size_t n = ZSTD_decompressDCtx(c.dctx, c.buffer.get(), raw_bytes, stored.data(), stored.size());
  if (ZSTD_isError(n)) {
    *why = ZSTD_getErrorName(n);
    return false;
  }
  if (n != raw_bytes) {
    *why = "compressed records decompress to another size than the header's";
    return false;
  }
  *records = std::string_view(c.buffer.get(), n);
  return true;
}

}  // namespace sift::storage
