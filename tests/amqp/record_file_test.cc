// Record files: round trip through the writer and both reader paths (memory map, pipe), and the
// errors for truncated records and oversized lengths, naming the record index and byte position.
#include "amqp/record_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "amqp/validate.h"
#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using testing::B;
using testing::ByteVector;
using testing::Cat;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("sift_record_file_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

void WriteFile(const std::string& path, const ByteVector& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(RecordFileTest, WriterThenMappedReaderRoundTrip) {
  const std::string path = TempPath("roundtrip.amqp");
  {
    RecordFileWriter w;
    ASSERT_TRUE(w.Open(path)) << w.error();
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(w.Append(testing::RichMessage(i)));
    ASSERT_TRUE(w.Close()) << w.error();
    EXPECT_EQ(w.records(), 100u);
  }
  RecordFileReader r;
  ASSERT_TRUE(r.Open(path)) << r.error();
  std::span<const uint8_t> m;
  int n = 0;
  while (r.Next(&m)) {
    const ByteVector expected = testing::RichMessage(n);
    ASSERT_EQ(ByteVector(m.begin(), m.end()), expected) << n;
    EXPECT_TRUE(Validate(m).ok());
    ++n;
  }
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(n, 100);
  EXPECT_EQ(r.index(), 100u);
  std::filesystem::remove(path);
}

// Release() unmaps the pages of a mapped file; a view into them reads the file's bytes again. For a
// buffer (a pipe's input, or bytes of the caller's) it must do nothing: those bytes exist nowhere else.
TEST(RecordFileTest, ReleasedRecordsOfAMappedFileReadTheSameBytes) {
  const std::string path = TempPath("release.amqp");
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 600; ++i) AppendRecord(testing::RichMessage(i), &bytes);  // many pages
  WriteFile(path, bytes);
  RecordFileReader r;
  ASSERT_TRUE(r.Open(path)) << r.error();
  std::vector<std::span<const uint8_t>> views;
  std::span<const uint8_t> m;
  while (r.Next(&m)) {
    views.push_back(m);
    if (views.size() == 300) r.Release(1, r.position() + 5);  // unaligned bounds: the pages inside
  }
  ASSERT_TRUE(r.ok()) << r.error();
  r.Release(0, bytes.size() + 4096);  // past the end: up to it
  ASSERT_EQ(views.size(), 600u);
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_EQ(ByteVector(views[i].begin(), views[i].end()), testing::RichMessage(static_cast<int>(i))) << i;
  }
  std::filesystem::remove(path);

  RecordFileReader own;
  own.OpenBytes(bytes, "bytes");
  own.Release(0, bytes.size());
  std::vector<uint8_t> again;
  for (int i = 0; i < 600; ++i) AppendRecord(testing::RichMessage(i), &again);
  EXPECT_EQ(bytes, again);
  while (own.Next(&m)) {
  }
  EXPECT_TRUE(own.ok()) << own.error();
  EXPECT_EQ(own.index(), 600u);
}

TEST(RecordFileTest, EmptyFileHasNoRecords) {
  const std::string path = TempPath("empty.amqp");
  WriteFile(path, {});
  RecordFileReader r;
  ASSERT_TRUE(r.Open(path));
  std::span<const uint8_t> m;
  EXPECT_FALSE(r.Next(&m));
  EXPECT_TRUE(r.ok());
  std::filesystem::remove(path);
}

TEST(RecordFileTest, ZeroLengthRecordIsARecord) {
  std::vector<uint8_t> bytes;
  AppendRecord({}, &bytes);
  RecordFileReader r;
  r.OpenBytes(bytes, "mem");
  std::span<const uint8_t> m;
  ASSERT_TRUE(r.Next(&m));
  EXPECT_EQ(m.size(), 0u);
  EXPECT_FALSE(r.Next(&m));
  EXPECT_TRUE(r.ok());
}

TEST(RecordFileTest, PipeIsReadThroughABuffer) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 300; ++i) AppendRecord(testing::RichMessage(i), &bytes);  // > 64 KiB
  std::thread writer([&] {
    RecordFileWriter w;
    w.OpenFd(fds[1], "pipe");
    for (int i = 0; i < 300; ++i) w.Append(testing::RichMessage(i));
    w.Close();
    close(fds[1]);
  });
  RecordFileReader r;
  ASSERT_TRUE(r.OpenFd(fds[0], "pipe")) << r.error();
  writer.join();
  close(fds[0]);
  std::span<const uint8_t> m;
  int n = 0;
  while (r.Next(&m)) ++n;
  EXPECT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(n, 300);
}

TEST(RecordFileTest, TruncatedLastRecord) {
  std::vector<uint8_t> bytes;
  AppendRecord(testing::RichMessage(0), &bytes);
  const size_t first = bytes.size();
  AppendRecord(testing::RichMessage(1), &bytes);
  bytes.resize(bytes.size() - 10);
  RecordFileReader r;
  r.OpenBytes(bytes, "orders.amqp");
  std::span<const uint8_t> m;
  ASSERT_TRUE(r.Next(&m));
  EXPECT_FALSE(r.Next(&m));
  EXPECT_FALSE(r.ok());
  const size_t len = testing::RichMessage(1).size();
  EXPECT_EQ(r.error(), "orders.amqp: record 1 at byte " + std::to_string(first) + ": truncated: length " +
                           std::to_string(len) + " but only " + std::to_string(len - 10) + " bytes left");
  EXPECT_FALSE(r.Next(&m));  // stays failed
}

TEST(RecordFileTest, TruncatedLengthPrefix) {
  std::vector<uint8_t> bytes;
  AppendRecord(testing::B({0x40}), &bytes);
  bytes.push_back(0);
  bytes.push_back(0);
  RecordFileReader r;
  r.OpenBytes(bytes, "f");
  std::span<const uint8_t> m;
  ASSERT_TRUE(r.Next(&m));
  EXPECT_FALSE(r.Next(&m));
  EXPECT_EQ(r.error(), "f: record 1 at byte 5: truncated length prefix (2 of 4 bytes)");
}

TEST(RecordFileTest, OversizedLength) {
  std::vector<uint8_t> bytes = testing::B({0x7f, 0xff, 0xff, 0xff, 0x40});
  RecordFileReader r;
  r.OpenBytes(bytes, "f");
  std::span<const uint8_t> m;
  EXPECT_FALSE(r.Next(&m));
  EXPECT_EQ(r.error(), "f: record 0 at byte 0: length 2147483647 exceeds the maximum record size 16777216");
  // A configured maximum applies too.
  std::vector<uint8_t> two;
  AppendRecord(ByteVector(10, 0x40), &two);
  AppendRecord(ByteVector(11, 0x40), &two);
  RecordFileOptions options;
  options.max_record_size = 10;
  r.OpenBytes(two, "g", options);
  ASSERT_TRUE(r.Next(&m));
  EXPECT_FALSE(r.Next(&m));
  EXPECT_EQ(r.error(), "g: record 1 at byte 14: length 11 exceeds the maximum record size 10");
}

TEST(RecordFileTest, MissingFile) {
  RecordFileReader r;
  EXPECT_FALSE(r.Open("/nonexistent/sift/x.amqp"));
  EXPECT_EQ(r.error(), "/nonexistent/sift/x.amqp: cannot open: No such file or directory");
}

TEST(RecordFileTest, WriterReportsUnwritablePath) {
  RecordFileWriter w;
  EXPECT_FALSE(w.Open("/nonexistent/sift/y.amqp"));
  EXPECT_EQ(w.error(), "/nonexistent/sift/y.amqp: cannot create: No such file or directory");
  EXPECT_FALSE(w.Append(testing::B({0x40})));
}

TEST(RecordFileTest, FileWrittenByPythonProton) {
  // The example writer of docs/record-format.md, run with the interpreter that has
  // python3-qpid-proton.
  const std::string path = TempPath("python.amqp");
  const std::string script = TempPath("writer.py");
  {
    std::ofstream py(script);
    py << "import sys\nfrom proton import Message\n"
          "with open(sys.argv[1], 'wb') as f:\n"
          "    for i in range(20):\n"
          "        msg = Message(subject='s%d' % i, properties={'n': i}, body='hello')\n"
          "        data = msg.encode()\n"
          "        f.write(len(data).to_bytes(4, 'big') + data)\n";
  }
  const std::string cmd = std::string(SIFT_PYTHON) + " " + script + " " + path;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  RecordFileReader r;
  ASSERT_TRUE(r.Open(path)) << r.error();
  std::span<const uint8_t> m;
  int n = 0;
  while (r.Next(&m)) {
    EXPECT_TRUE(Validate(m).ok()) << Validate(m).Message();
    ++n;
  }
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(n, 20);
  std::filesystem::remove(path);
  std::filesystem::remove(script);
}

TEST(RecordFileTest, GuessRecordBoundaryFindsAChainOfRecordsThatLookLikeMessages) {
  // Records of a one-section message (a data body of 1..40 bytes), back to back.
  ByteVector file;
  std::vector<size_t> starts;
  for (int i = 0; i < 200; ++i) {
    starts.push_back(file.size());
    ByteVector body(static_cast<size_t>(1 + i % 40), static_cast<uint8_t>(i));
    AppendRecord(Cat({B({0x00, 0x53, 0x75, 0xa0, static_cast<int>(body.size())}), body}), &file);
  }
  // From a record's first byte, that record; from inside one, the next.
  size_t at = 0;
  ASSERT_TRUE(GuessRecordBoundary(file, starts[50], file.size(), RecordFileOptions{}, 16, &at));
  EXPECT_EQ(at, starts[50]);
  ASSERT_TRUE(GuessRecordBoundary(file, starts[50] + 3, file.size(), RecordFileOptions{}, 16, &at));
  EXPECT_EQ(at, starts[51]);
  // A chain that reaches the end of the file counts, however short.
  ASSERT_TRUE(GuessRecordBoundary(file, starts[195], file.size(), RecordFileOptions{}, 16, &at));
  EXPECT_EQ(at, starts[195]);
  // Nothing before `to`, or bytes that are no records: no guess.
  EXPECT_FALSE(GuessRecordBoundary(file, starts[50] + 3, starts[51], RecordFileOptions{}, 16, &at));
  const ByteVector noise(4096, 0x41);
  EXPECT_FALSE(GuessRecordBoundary(noise, 0, noise.size(), RecordFileOptions{}, 16, &at));
  // Lengths past the maximum are not records.
  EXPECT_FALSE(GuessRecordBoundary(file, starts[50], file.size(), RecordFileOptions{.max_record_size = 4}, 16, &at));
}

}  // namespace
}  // namespace sift::amqp
