// StreamStore: streams, appends, offsets, timestamps, reopen after a clean close, validation, batches,
// group commit and thread safety.
#include "storage/stream_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "storage/key_layout.h"
#include "tests/storage/store_test_util.h"

namespace sift::storage {
namespace {

// A summary of a chunk's message count. With `vouch`, it checks messages as it adds them
// (AddChecked) and vouches for those `vouch` accepts; without, it cannot check (the default).
struct CountingSummarizer : ChunkSummarizer {
  size_t n = 0;
  std::function<bool(std::string_view)> vouch;
  void Reset() override { n = 0; }
  void Add(std::string_view) override { ++n; }
  bool AddChecked(std::string_view m) override {
    ++n;
    return vouch && vouch(m);
  }
  void Finish(std::string* out) override { *out = std::to_string(n); }
};

TEST(StreamStore, OpenCreatesTheFolder) {
  TempDir dir;
  const std::string path = dir.path() + "/nested/store";
  std::unique_ptr<StreamStore> store;
  ASSERT_TRUE(StreamStore::Open(path, StoreOptions{}, &store).ok());
  EXPECT_TRUE(std::filesystem::is_directory(path));
  std::vector<std::string> names;
  ASSERT_TRUE(store->ListStreams(&names).ok());
  EXPECT_TRUE(names.empty());
}

TEST(StreamStore, OpenWithoutCreateIfMissingFails) {
  TempDir dir;
  StoreOptions o;
  o.create_if_missing = false;
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(dir.path() + "/absent", o, &store);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(store, nullptr);
}

TEST(StreamStore, OpenRejectsBadOptions) {
  TempDir dir;
  std::unique_ptr<StreamStore> store;
  StoreOptions o;
  o.max_chunk_messages = 0;
  Status s = StreamStore::Open(dir.path(), o, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.why().find("max_chunk_messages"), std::string_view::npos);
}

TEST(StreamStore, OpenRejectsEveryBadOption) {
  TempDir dir;
  std::unique_ptr<StreamStore> store;
  auto expect_refused = [&](StoreOptions o, std::string_view field) {
    Status s = StreamStore::Open(dir.path(), o, &store);
    EXPECT_TRUE(s.IsInvalidArgument()) << field << ": " << s.ToString();
    EXPECT_NE(s.why().find(field), std::string_view::npos) << field << ": " << s.ToString();
    store.reset();
  };
  StoreOptions o;
  o.max_chunk_bytes = 0;
  expect_refused(o, "max_chunk_bytes");
  o = StoreOptions{};
  o.max_message_bytes = 0;
  expect_refused(o, "max_message_bytes");
  o = StoreOptions{};
  o.max_message_bytes = 0xFFFF0000u;
  expect_refused(o, "4 GiB");
  o = StoreOptions{};
  o.linger = std::chrono::microseconds(-1);
  expect_refused(o, "linger");
  o = StoreOptions{};
  o.write_buffer_bytes = 1024;
  expect_refused(o, "write_buffer_bytes");
  EXPECT_TRUE(StreamStore::Open("", StoreOptions{}, &store).IsInvalidArgument());
  EXPECT_EQ(store, nullptr);
}

TEST(StreamStore, OpenOnAFileIsAnError) {
  TempDir dir;
  const std::string file = dir.path() + "/plain-file";
  { std::ofstream(file) << "not a store"; }
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(file, StoreOptions{}, &store);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.why().find("plain-file"), std::string_view::npos) << s.ToString();
}

TEST(StreamStore, SecondOpenOfTheSameFolderIsBusy) {
  TempDir dir;
  std::unique_ptr<StreamStore> a, b;
  ASSERT_TRUE(StreamStore::Open(dir.path(), StoreOptions{}, &a).ok());
  Status s = StreamStore::Open(dir.path(), StoreOptions{}, &b);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
}

// A read-only open takes no lock (it works beside a writer, here in the same process), writes nothing
// (the folder's files and their sizes stay as they were, through open, reads and close), sees what was
// stored when it opened, and refuses every write as NotSupported.
TEST(StreamStore, ReadOnlyOpenReadsBesideAWriterAndWritesNothing) {
  TempDir dir;
  std::unique_ptr<StreamStore> writer = OpenStore(dir.path());
  ASSERT_TRUE(writer->CreateStream("s").ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(writer->Append("s", Message(i), nullptr).ok());
  ASSERT_TRUE(writer->Flush().ok());
  StoreOptions o = FastOptions();
  o.read_only = true;
  {
    std::unique_ptr<StreamStore> reader;
    Status s = StreamStore::Open(dir.path(), o, &reader);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const std::vector<OwnedRecord> records = ReadAll(*reader, "s");
    ASSERT_EQ(records.size(), 10u);
    EXPECT_EQ(records[3].data, Message(3));
    ASSERT_TRUE(writer->Append("s", Message(10), nullptr).ok());  // after the open: not seen
    StreamInfo info;
    ASSERT_TRUE(reader->GetStreamInfo("s", &info).ok());
    EXPECT_EQ(info.next_offset, 10u);
    const std::string_view one = "x";
    const Status refused[] = {
        reader->CreateStream("t"),
        reader->DeleteStream("s"),
        reader->SetRetention("s", RetentionPolicy{}),
        reader->Append("s", "x", nullptr),
        reader->AppendBatch("s", std::span<const std::string_view>(&one, 1), nullptr),
        reader->IngestBatch("s", std::span<const std::string_view>(&one, 1), nullptr, nullptr),
        reader->PutChunkSummary("s", 0, "summary"),
        reader->Flush(),
        reader->EnforceRetention(),
    };
    for (const Status& r : refused) {
      EXPECT_TRUE(r.IsNotSupported()) << r.ToString();
      EXPECT_NE(r.why().find("reading only"), std::string_view::npos) << r.ToString();
    }
  }
  writer.reset();
  std::unique_ptr<StreamStore> reopened = OpenStore(dir.path());
  EXPECT_EQ(ReadAll(*reopened, "s").size(), 11u);  // the writer's append after the read-only open
  reopened.reset();
  // A read-only open and close of a closed store leaves its folder exactly as it was.
  TempDir other;
  {
    std::unique_ptr<StreamStore> w = OpenStore(other.path());
    ASSERT_TRUE(w->CreateStream("s").ok());
    ASSERT_TRUE(w->Append("s", Message(0), nullptr).ok());
  }
  auto files_of = [](const std::string& path) {
    std::vector<std::pair<std::string, uintmax_t>> files;
    for (const auto& e : std::filesystem::directory_iterator(path))
      files.emplace_back(e.path().filename(), e.file_size());
    std::sort(files.begin(), files.end());
    return files;
  };
  const auto closed = files_of(other.path());
  {
    std::unique_ptr<StreamStore> r;
    ASSERT_TRUE(StreamStore::Open(other.path(), o, &r).ok());
    EXPECT_EQ(ReadAll(*r, "s").size(), 1u);
  }
  EXPECT_EQ(files_of(other.path()), closed);
}

TEST(StreamStore, ReadOnlyOpenOfAFolderWithoutAStoreFails) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/empty");
  StoreOptions o;
  o.read_only = true;
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(dir.path() + "/empty", o, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.why().find("holds no store"), std::string_view::npos) << s.ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/empty"));
  s = StreamStore::Open(dir.path() + "/absent", o, &store);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/absent"));
}

TEST(StreamStore, CreateListDeleteStreams) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("b").ok());
  ASSERT_TRUE(store->CreateStream("a").ok());
  Status dup = store->CreateStream("a");
  EXPECT_TRUE(dup.IsAlreadyExists()) << dup.ToString();
  std::vector<std::string> names;
  ASSERT_TRUE(store->ListStreams(&names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(store->DeleteStream("a").ok());
  EXPECT_TRUE(store->DeleteStream("a").IsNotFound());
  ASSERT_TRUE(store->ListStreams(&names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"b"}));
}

TEST(StreamStore, BadStreamNamesAreRefused) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<std::string> names;
  EXPECT_TRUE(store->CreateStream("").IsInvalidArgument());
  EXPECT_TRUE(store->CreateStream(std::string(256, 'x')).IsInvalidArgument());
  Status s = store->CreateStream(std::string("a\nb"));
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.why().find("byte 1"), std::string_view::npos) << s.ToString();
  EXPECT_TRUE(store->CreateStream(std::string(255, 'x')).ok());
  EXPECT_TRUE(store->CreateStream("orders/eu-west.v2 é").ok());
  // Not UTF-8: a stray continuation byte, a sequence cut by the end, an overlong NUL, a surrogate.
  s = store->CreateStream(std::string("bad-\xff\xfe"));
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.why().find("not UTF-8: byte 0xff at byte 4"), std::string_view::npos) << s.ToString();
  s = store->CreateStream(std::string("cut-\xc3"));
  EXPECT_NE(s.why().find("ends inside the sequence at byte 4"), std::string_view::npos) << s.ToString();
  EXPECT_TRUE(store->CreateStream(std::string("nul-\xc0\x80")).IsInvalidArgument());
  EXPECT_TRUE(store->CreateStream(std::string("sur-\xed\xa0\x80")).IsInvalidArgument());
  // A NUL, and a C1 control character (U+0085, NEL) that some log readers take as a line break.
  s = store->CreateStream(std::string("public-a\0secret", 15));
  EXPECT_NE(s.why().find("(U+0000) at byte 8"), std::string_view::npos) << s.ToString();
  s =
      store->CreateStream(std::string("line\xc2\x85"
                                      "break"));
  EXPECT_NE(s.why().find("(U+0085) at byte 4"), std::string_view::npos) << s.ToString();
  ASSERT_TRUE(store->ListStreams(&names).ok());
  EXPECT_EQ(names.size(), 2u);
}

TEST(StreamStore, AppendToMissingStreamIsNotFound) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  uint64_t off = 99;
  Status s = store->Append("nope", "x", &off);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.why().find("'nope'"), std::string_view::npos);
  EXPECT_EQ(off, 99u);
}

TEST(StreamStore, OffsetsAreDenseFromZeroPerStream) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("a").ok());
  ASSERT_TRUE(store->CreateStream("b").ok());
  for (uint64_t i = 0; i < 10; ++i) {
    uint64_t off = 0;
    ASSERT_TRUE(store->Append("a", Message(i), &off).ok());
    EXPECT_EQ(off, i);
  }
  uint64_t off = 7;
  ASSERT_TRUE(store->Append("b", "first of b", &off).ok());
  EXPECT_EQ(off, 0u);
  std::vector<std::string> batch = {"x", "y", "z"};
  std::vector<std::string_view> views(batch.begin(), batch.end());
  ASSERT_TRUE(store->AppendBatch("a", views, &off).ok());
  EXPECT_EQ(off, 10u);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("a", &info).ok());
  EXPECT_EQ(info.first_offset, 0u);
  EXPECT_EQ(info.next_offset, 13u);
  EXPECT_EQ(info.message_count, 13u);
  EXPECT_EQ(info.chunk_count, 11u);  // one chunk per append call without linger
}

TEST(StreamStore, ReadBackIsByteIdentical) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::vector<std::string> msgs;
  for (int i = 0; i < 500; ++i) msgs.push_back(RandomBytes(i * 7 % 1000, i));
  msgs.push_back(std::string());  // empty messages are messages too
  std::vector<std::string_view> views(msgs.begin(), msgs.end());
  ASSERT_TRUE(store->AppendBatch("s", views).ok());
  auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), msgs.size());
  for (size_t i = 0; i < msgs.size(); ++i) {
    EXPECT_EQ(got[i].offset, i);
    EXPECT_EQ(got[i].data, msgs[i]) << "offset " << i;
  }
}

TEST(StreamStore, ChunksAreBoundedByCountAndBytes) {
  TempDir dir;
  StoreOptions o;
  o.max_chunk_messages = 10;
  o.max_chunk_bytes = 1000;
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("count").ok());
  ASSERT_TRUE(store->CreateStream("bytes").ok());
  std::vector<std::string> small(95, "m");
  std::vector<std::string_view> sv(small.begin(), small.end());
  ASSERT_TRUE(store->AppendBatch("count", sv).ok());
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("count", &info).ok());
  EXPECT_EQ(info.chunk_count, 10u);  // 9 full chunks of 10 and one of 5
  std::vector<std::string> big(6, std::string(400, 'b'));
  big.push_back(std::string(5000, 'h'));  // larger than a chunk: a chunk of its own
  std::vector<std::string_view> bv(big.begin(), big.end());
  ASSERT_TRUE(store->AppendBatch("bytes", bv).ok());
  ASSERT_TRUE(store->GetStreamInfo("bytes", &info).ok());
  EXPECT_EQ(info.chunk_count, 4u);  // 2 + 2 + 2 records of ~403 bytes, then the big one
  auto got = ReadAll(*store, "bytes");
  ASSERT_EQ(got.size(), 7u);
  int chunk_starts = 0;
  for (const auto& r : got) chunk_starts += r.chunk_start;
  EXPECT_EQ(chunk_starts, 4);
  EXPECT_EQ(got[6].data, big[6]);
}

TEST(StreamStore, OversizedMessageIsRefused) {
  TempDir dir;
  StoreOptions o;
  o.max_message_bytes = 100;
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  Status s = store->Append("s", std::string(101, 'x'));
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.why().find("101 bytes"), std::string_view::npos) << s.ToString();
  EXPECT_TRUE(store->Append("s", std::string(100, 'x')).ok());
}

TEST(StreamStore, ValidatorRefusesTheWholeBatchNamingTheIndex) {
  TempDir dir;
  StoreOptions o;
  o.validator = [](std::string_view m) {
    if (!m.empty() && m[0] == '!') return Status::InvalidArgument("byte 0: not an AMQP section");
    return Status::OK();
  };
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  ASSERT_TRUE(store->Append("s", "good").ok());
  std::vector<std::string_view> batch = {"a", "b", "c", "!bad", "e"};
  uint64_t first = 77;
  Status s = store->AppendBatch("s", batch, &first);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(first, 77u);
  EXPECT_NE(s.why().find("message 3 of 5"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.why().find("not an AMQP section"), std::string_view::npos) << s.ToString();
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 1u);  // nothing of the batch was stored
  EXPECT_TRUE(store->Append("s", "!single").IsInvalidArgument());
  ASSERT_TRUE(store->AppendBatch("s", std::span<const std::string_view>(batch.data(), 3), &first).ok());
  EXPECT_EQ(first, 1u);  // the refused batch consumed no offsets
}

TEST(StreamStore, EmptyBatchStoresNothing) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  ASSERT_TRUE(store->Append("s", "x").ok());
  uint64_t first = 0;
  ASSERT_TRUE(store->AppendBatch("s", {}, &first).ok());
  EXPECT_EQ(first, 1u);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.chunk_count, 1u);
}

// ---- bulk path (IngestBatch) ----

TEST(StreamStore, IngestBatchInterleavesWithAppendsAndReadsBackIdentical) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 64;
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  ASSERT_TRUE(store->CreateStream("other").ok());
  std::vector<std::string> msgs;
  for (int i = 0; i < 1000; ++i) msgs.push_back(RandomBytes(i * 13 % 700, i));
  std::vector<std::string_view> views(msgs.begin(), msgs.end());
  uint64_t first = 99;
  ASSERT_TRUE(store->AppendBatch("s", std::span(views).subspan(0, 10), &first).ok());
  EXPECT_EQ(first, 0u);
  ASSERT_TRUE(store->IngestBatch("s", std::span(views).subspan(10, 500), &first).ok());
  EXPECT_EQ(first, 10u);
  ASSERT_TRUE(store->AppendBatch("other", std::span(views).subspan(0, 3)).ok());
  ASSERT_TRUE(store->Append("s", views[510], &first).ok());
  EXPECT_EQ(first, 510u);
  ASSERT_TRUE(store->IngestBatch("s", std::span(views).subspan(511), &first).ok());
  EXPECT_EQ(first, 511u);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 1000u);
  EXPECT_EQ(info.chunk_count, 1u + 8u + 1u + 8u);  // 10 | 500 in chunks of 64 | 1 | 489 in chunks of 64
  auto check = [&](StreamStore& st) {
    auto got = ReadAll(st, "s");
    ASSERT_EQ(got.size(), msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i) {
      EXPECT_EQ(got[i].offset, i);
      EXPECT_EQ(got[i].data, msgs[i]) << "offset " << i;
    }
    EXPECT_EQ(ReadAll(st, "other").size(), 3u);
  };
  check(*store);
  store.reset();
  // The ingested chunks and index entries are the store's own after a reopen.
  store = OpenStore(dir.path(), o);
  check(*store);
  ASSERT_TRUE(store->IngestBatch("s", std::span(views).subspan(0, 1), &first).ok());
  EXPECT_EQ(first, 1000u);
}

// A read of a chunk reads its block: the bulk path gives every chunk a block of its own, however small.
TEST(StreamStore, IngestBatchWritesEveryChunkAsABlockOfItsOwn) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 4;  // chunks of about 1 KiB: many would share a block of the store's block size
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::vector<std::string> msgs;
  for (int i = 0; i < 400; ++i) msgs.push_back(RandomBytes(200 + i % 300, i));
  std::vector<std::string_view> views(msgs.begin(), msgs.end());
  ASSERT_TRUE(store->IngestBatch("s", views).ok());
  store.reset();

  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  rocksdb::TablePropertiesCollection properties;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&properties).ok());
  int chunk_tables = 0;
  for (const rocksdb::LiveFileMetaData& f : files) {
    if (f.smallestkey.empty() || f.smallestkey[0] != keys::kChunkPrefix) continue;
    ++chunk_tables;
    const auto it = properties.find(f.db_path + f.name);
    ASSERT_NE(it, properties.end()) << f.db_path + f.name;
    EXPECT_EQ(it->second->num_entries, 100u);
    EXPECT_EQ(it->second->num_data_blocks, it->second->num_entries);
  }
  EXPECT_EQ(chunk_tables, 1);
}

// Pages of the file at `path` in the page cache, and its pages in all (mincore over a mapping).
std::pair<size_t, size_t> ResidentPages(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  if (fd < 0) return {0, 0};
  const size_t size = std::filesystem::file_size(path);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t pages = (size + page - 1) / page;
  size_t resident = 0;
  void* map = size > 0 ? mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (map != MAP_FAILED) {
    std::vector<unsigned char> in_core(pages);
    EXPECT_EQ(mincore(map, size, in_core.data()), 0);
    for (unsigned char c : in_core) resident += c & 1;
    munmap(map, size);
  }
  close(fd);
  return {resident, pages};
}

TEST(StreamStore, IngestBatchLeavesWhatItWroteInThePageCache) {
  // RocksDB's table file writer drops what it writes from the page cache unless told not to: the first
  // replay after a bulk append then read the stream back from the disk.
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::vector<std::string> msgs;
  for (int i = 0; i < 8000; ++i) msgs.push_back(RandomBytes(1000, i));  // 8 MB
  std::vector<std::string_view> views(msgs.begin(), msgs.end());
  ASSERT_TRUE(store->IngestBatch("s", views).ok());
  size_t resident = 0, pages = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() != ".sst") continue;
    const auto [r, p] = ResidentPages(entry.path().string());
    resident += r;
    pages += p;
  }
  ASSERT_GT(pages, 8000000u / 4096);
  EXPECT_GT(resident, pages * 9 / 10) << resident << " of " << pages << " pages of the table files are cached";
}

TEST(StreamStore, IngestBatchChecksEveryMessageFirstAndStoresNothingOnRefusal) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_message_bytes = 100;
  o.validator = [](std::string_view m) {
    if (!m.empty() && m[0] == '!') return Status::InvalidArgument("byte 0: not an AMQP section");
    return Status::OK();
  };
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::vector<std::string_view> bad = {"a", "b", "!c"};
  Status s = store->IngestBatch("s", bad);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.why().find("message 2 of 3"), std::string_view::npos) << s.ToString();
  const std::string big(101, 'x');
  std::vector<std::string_view> oversized = {"a", big};
  EXPECT_TRUE(store->IngestBatch("s", oversized).IsInvalidArgument());
  EXPECT_TRUE(store->IngestBatch("missing", std::span(bad).subspan(0, 1)).IsNotFound());
  uint64_t first = 7;
  ASSERT_TRUE(store->IngestBatch("s", {}, &first).ok());
  EXPECT_EQ(first, 0u);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 0u);
  EXPECT_EQ(info.chunk_count, 0u);
}

// PrepareIngest's check: called once for every chunk's messages, the ranges covering the batch in
// order; when checks fail, the status is the first failing range's, every range before it was checked,
// and without a summarizer the checks still run.
TEST(StreamStore, PrepareIngestChecksEveryChunkAndReportsTheFirstFailure) {
  TempDir dir;
  for (const bool summaries : {true, false}) {
    StoreOptions o = FastOptions();
    o.max_chunk_messages = 10;
    if (summaries) {
      o.chunk_summarizer = [] { return std::make_unique<CountingSummarizer>(); };
    }
    std::unique_ptr<StreamStore> store = OpenStore(dir.path() + (summaries ? "/a" : "/b"), o);
    std::vector<std::string> owned;
    for (int i = 0; i < 1000; ++i) owned.push_back(Message(i));
    const std::vector<std::string_view> messages(owned.begin(), owned.end());
    std::mutex mu;
    std::vector<std::pair<size_t, size_t>> seen;
    auto record = [&](size_t begin, size_t end) {
      std::lock_guard<std::mutex> lock(mu);
      seen.emplace_back(begin, end);
    };
    std::vector<std::string> prepared;
    ASSERT_TRUE(store
                    ->PrepareIngest(messages, &prepared,
                                    [&](size_t b, size_t e) {
                                      record(b, e);
                                      return Status::OK();
                                    })
                    .ok());
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 100u);
    for (size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], std::make_pair(k * 10, k * 10 + 10));
    if (summaries) {
      ASSERT_EQ(prepared.size(), 100u);
      EXPECT_FALSE(prepared[0].empty());
    }
    // Ranges 37 and 71 fail: 37's status comes back, and every range before it was checked.
    seen.clear();
    const Status s = store->PrepareIngest(messages, &prepared, [&](size_t b, size_t e) {
      record(b, e);
      if (b == 370 || b == 710) return Status::InvalidArgument("range at " + std::to_string(b));
      return Status::OK();
    });
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_EQ(s.why(), "range at 370");
    std::sort(seen.begin(), seen.end());
    for (size_t k = 0; k <= 37; ++k) {
      EXPECT_TRUE(std::binary_search(seen.begin(), seen.end(), std::make_pair(k * 10, k * 10 + 10))) << k;
    }
  }
}

// A summarizer that checks messages as it reads them (AddChecked) spares PrepareIngest's check every
// range it vouches for: the check runs only for a range holding a message it did not vouch for, and
// a failure there is still the result.
TEST(StreamStore, PrepareIngestChecksOnlyTheRangesTheSummarizerDoesNotVouchFor) {
  TempDir dir;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 10;
  o.chunk_summarizer = [] {
    auto summarizer = std::make_unique<CountingSummarizer>();
    summarizer->vouch = [](std::string_view m) { return m.find("bad") == std::string_view::npos; };
    return summarizer;
  };
  std::unique_ptr<StreamStore> store = OpenStore(dir.path(), o);
  std::vector<std::string> owned;
  for (int i = 0; i < 1000; ++i) owned.push_back(i == 374 || i == 712 ? "bad " + Message(i) : Message(i));
  const std::vector<std::string_view> messages(owned.begin(), owned.end());
  std::mutex mu;
  std::vector<std::pair<size_t, size_t>> seen;
  std::vector<std::string> prepared;
  const Status s = store->PrepareIngest(messages, &prepared, [&](size_t b, size_t e) {
    std::lock_guard<std::mutex> lock(mu);
    seen.emplace_back(b, e);
    for (size_t i = b; i < e; ++i) {
      if (messages[i].starts_with("bad")) return Status::InvalidArgument("message " + std::to_string(i));
    }
    return Status::OK();
  });
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.why(), "message 374");
  std::sort(seen.begin(), seen.end());
  ASSERT_GE(seen.size(), 1u);
  EXPECT_LE(seen.size(), 2u);  // 71's, when a thread reached it first
  EXPECT_EQ(seen[0], std::make_pair(size_t{370}, size_t{380}));
  if (seen.size() == 2) {
    EXPECT_EQ(seen[1], std::make_pair(size_t{710}, size_t{720}));
  }

  // Nothing to report: no check runs, and every chunk has its summary.
  owned[374] = Message(374);
  owned[712] = Message(712);
  const std::vector<std::string_view> good(owned.begin(), owned.end());
  seen.clear();
  ASSERT_TRUE(store
                  ->PrepareIngest(good, &prepared,
                                  [&](size_t b, size_t e) {
                                    seen.emplace_back(b, e);
                                    return Status::OK();
                                  })
                  .ok());
  EXPECT_TRUE(seen.empty());
  ASSERT_EQ(prepared.size(), 100u);
  for (const std::string& p : prepared) EXPECT_FALSE(p.empty());
}

// A chunk whose summary would be larger than the chunk gets none (reading the summary would cost more
// than reading the chunk), on both write paths; a chunk as large as its summary, or larger, keeps it.
TEST(StreamStore, ASummaryLargerThanItsChunkIsNotStored) {
  TempDir dir;
  constexpr size_t kSummaryBytes = 200;
  StoreOptions o = FastOptions();
  o.max_chunk_messages = 1;
  o.chunk_summarizer = [] {
    struct Fixed : ChunkSummarizer {
      void Reset() override {}
      void Add(std::string_view) override {}
      void Finish(std::string* out) override { *out = std::string(kSummaryBytes, 's'); }
    };
    return std::unique_ptr<ChunkSummarizer>(new Fixed);
  };
  std::unique_ptr<StreamStore> store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  // Chunk sizes around the summary's: record and header bytes come on top of each message.
  std::vector<std::string> owned;
  for (size_t size : {10, 150, 180, 200, 400}) owned.push_back(std::string(size, 'm'));
  const std::vector<std::string_view> messages(owned.begin(), owned.end());
  ASSERT_TRUE(store->AppendBatch("s", messages).ok());
  ASSERT_TRUE(store->IngestBatch("s", messages).ok());
  std::vector<ChunkInfo> chunks;
  ASSERT_TRUE(store->ListChunks("s", &chunks).ok());
  ASSERT_EQ(chunks.size(), 2 * messages.size());
  size_t kept = 0;
  for (const ChunkInfo& c : chunks) {
    std::string summary;
    const Status s = store->GetChunkSummary("s", c.first_offset, &summary);
    if (c.bytes >= kSummaryBytes) {
      EXPECT_TRUE(s.ok()) << "chunk of " << c.bytes << " bytes: " << s.ToString();
      kept += s.ok();
    } else {
      EXPECT_TRUE(s.IsNotFound()) << "chunk of " << c.bytes << " bytes: " << s.ToString();
    }
  }
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, chunks.size());
}

TEST(StreamStore, LeftoverBulkFilesAreRemovedWhenTheStoreOpens) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(store->CreateStream("s").ok());
    std::vector<std::string_view> one = {"m"};
    ASSERT_TRUE(store->IngestBatch("s", one).ok());
  }
  // What a crash between writing the table files and ingesting them leaves behind.
  std::filesystem::create_directories(dir.path() + "/ingest");
  std::ofstream(dir.path() + "/ingest/1-1-chunks.sst") << "half-written";
  auto store = OpenStore(dir.path());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/ingest/1-1-chunks.sst"));
  auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "m");
}

TEST(StreamStore, TimestampsComeFromTheClockAndNeverGoBack) {
  TempDir dir;
  FakeClock clock(1000);
  StoreOptions o;
  o.clock = clock.AsClock();
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  ASSERT_TRUE(store->Append("s", "a").ok());
  clock.Set(2000);
  ASSERT_TRUE(store->Append("s", "b").ok());
  clock.Set(1500);  // the clock goes back
  ASSERT_TRUE(store->Append("s", "c").ok());
  auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].timestamp_ms, 1000);
  EXPECT_EQ(got[1].timestamp_ms, 2000);
  EXPECT_EQ(got[2].timestamp_ms, 2000);
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.first_timestamp_ms, 1000);
  EXPECT_EQ(info.last_timestamp_ms, 2000);
}

TEST(StreamStore, ReopenAfterCleanCloseKeepsEverything) {
  TempDir dir;
  std::vector<std::string> msgs;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(store->CreateStream("a").ok());
    ASSERT_TRUE(
        store->CreateStream("b", StreamOptions{RetentionPolicy{123456, std::chrono::milliseconds(7890)}, {}}).ok());
    for (int i = 0; i < 300; ++i) {
      msgs.push_back(RandomBytes(50 + i, i));
      ASSERT_TRUE(store->Append(i % 3 ? "a" : "b", msgs.back()).ok());
    }
  }
  auto store = OpenStore(dir.path());
  std::vector<std::string> names;
  ASSERT_TRUE(store->ListStreams(&names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  StreamInfo a, b;
  ASSERT_TRUE(store->GetStreamInfo("a", &a).ok());
  ASSERT_TRUE(store->GetStreamInfo("b", &b).ok());
  EXPECT_EQ(a.next_offset, 200u);
  EXPECT_EQ(b.next_offset, 100u);
  EXPECT_EQ(a.chunk_count, 200u);
  EXPECT_EQ(b.retention, (RetentionPolicy{123456, std::chrono::milliseconds(7890)}));
  auto got = ReadAll(*store, "a");
  ASSERT_EQ(got.size(), 200u);
  size_t k = 0;
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) continue;
    EXPECT_EQ(got[k].data, msgs[i]);
    EXPECT_EQ(got[k].offset, k);
    ++k;
  }
  uint64_t off = 0;
  ASSERT_TRUE(store->Append("a", "after reopen", &off).ok());
  EXPECT_EQ(off, 200u);
}

TEST(StreamStore, DeletedStreamNameStartsAgainAtZero) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(store->Append("s", "old").ok());
  ASSERT_TRUE(store->DeleteStream("s").ok());
  ASSERT_TRUE(store->CreateStream("s").ok());
  uint64_t off = 9;
  ASSERT_TRUE(store->Append("s", "new", &off).ok());
  EXPECT_EQ(off, 0u);
  auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "new");
  store.reset();
  store = OpenStore(dir.path());
  got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, "new");
}

TEST(StreamStore, ConcurrentAppendersGetDenseUniqueOffsetsAndShareChunks) {
  TempDir dir;
  StoreOptions o;
  o.linger = std::chrono::milliseconds(2);
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  constexpr int kThreads = 8, kPerThread = 200;
  std::vector<std::vector<uint64_t>> offsets(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        uint64_t off;
        const std::string m = Tagged(t, i);
        if (!store->Append("s", m, &off).ok()) {
          ++failures;
          continue;
        }
        offsets[t].push_back(off);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  auto got = ReadAll(*store, "s");
  ASSERT_EQ(got.size(), size_t{kThreads * kPerThread});
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const uint64_t off = offsets[t][i];
      EXPECT_EQ(got[off].data, Tagged(t, i));
      if (i > 0) {
        EXPECT_GT(off, offsets[t][i - 1]);  // one appender's messages keep their order
      }
    }
  }
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_LT(info.chunk_count, uint64_t{kThreads * kPerThread} / 2) << "group commit shared no chunk writes";
}

TEST(StreamStore, LingerWaitsForMoreAppendsUntilFlush) {
  TempDir dir;
  StoreOptions o;
  o.linger = std::chrono::seconds(30);
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::atomic<bool> done{false};
  std::thread appender([&] {
    EXPECT_TRUE(store->Append("s", "lingering").ok());
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(done.load());  // still lingering: not acknowledged, not stored
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 0u);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(store->Flush().ok());
  appender.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 1u);
}

TEST(StreamStore, LingerEndsWhenAChunkIsFull) {
  TempDir dir;
  StoreOptions o;
  o.linger = std::chrono::seconds(30);
  o.max_chunk_messages = 4;
  auto store = OpenStore(dir.path(), o);
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&] { EXPECT_TRUE(store->Append("s", "m").ok()); });
  for (auto& th : threads) th.join();  // returns long before the 30 s linger
  StreamInfo info;
  ASSERT_TRUE(store->GetStreamInfo("s", &info).ok());
  EXPECT_EQ(info.next_offset, 4u);
  EXPECT_EQ(info.chunk_count, 1u);
}

TEST(StreamStore, ReadersRunConcurrentlyWithAppenders) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(store->CreateStream("s").ok());
  std::atomic<bool> stop{false};
  std::thread appender([&] {
    for (int i = 0; i < 2000; ++i) ASSERT_TRUE(store->Append("s", Message(i)).ok());
    stop = true;
  });
  uint64_t scans = 0;
  while (!stop.load()) {
    auto got = ReadAll(*store, "s");
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].data, Message(i));
    }
    ++scans;
  }
  appender.join();
  EXPECT_GT(scans, 0u);
  EXPECT_EQ(ReadAll(*store, "s").size(), 2000u);
}

// The store's statuses say only why; the code is theirs to keep, and a caller names the operation and
// the place with Rewrap.
TEST(StreamStore, StatusKeepsTheCodeAndTheWhy) {
  EXPECT_EQ(Status::OK().ToString(), "ok");
  const Status s = Status::Corruption("stream 's': x");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.why(), "stream 's': x");
  EXPECT_EQ(s.ToString(), "stream 's': x");  // no what, no where: the why alone
  EXPECT_EQ(Status::CodeName(s.code()), "Corruption");
  EXPECT_EQ(Status::CodeName(Status::Code::kIOError), "IOError");

  const Status named = s.Rewrap("corrupt chunk", "orders");
  EXPECT_TRUE(named.IsCorruption()) << named.ToString();
  EXPECT_EQ(named.what(), "corrupt chunk");
  EXPECT_EQ(named.where(), "orders");
  EXPECT_EQ(named.ToString(), "corrupt chunk: orders: stream 's': x");
  EXPECT_TRUE(Status::OK().Rewrap("cannot append", "orders").ok());
}

}  // namespace
}  // namespace sift::storage
