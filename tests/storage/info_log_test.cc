// The store's info log: lines reach LOG whole and in order, an earlier LOG is kept as LOG.old.*, only
// the newest few of those stay, and a log that cannot write drops lines without failing anything.
#include "storage/info_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdarg>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sift::storage {
namespace {

namespace fs = std::filesystem;

void Line(rocksdb::Logger* log, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  log->Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap);
  va_end(ap);
}

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> OldLogs(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("LOG.old.", 0) == 0) out.push_back(e.path().filename().string());
  }
  return out;
}

class InfoLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sift-info-log-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(InfoLogTest, LinesAreWrittenWholeAndInOrder) {
  auto log = NewStoreInfoLog(dir_.string(), 3, 1 << 20);
  Line(log.get(), "first %d", 1);
  const std::string long_text(5000, 'x');  // past the logger's stack buffer
  Line(log.get(), "long %s", long_text.c_str());
  Line(log.get(), "ends with a newline\n");
  const std::string text = Read(dir_ / "LOG");
  const size_t first = text.find("first 1\n");
  const size_t second = text.find("long " + long_text + "\n");
  const size_t third = text.find("ends with a newline\n");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(second, std::string::npos);
  ASSERT_NE(third, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(text.find("\n\n"), std::string::npos);  // one newline per line, never two
}

TEST_F(InfoLogTest, AnEarlierLogIsKeptAndOnlyTheNewestOldOnesStay) {
  for (int i = 0; i < 6; ++i) {
    auto log = NewStoreInfoLog(dir_.string(), 3, 1 << 20);
    Line(log.get(), "open %d", i);
  }
  EXPECT_EQ(OldLogs(dir_).size(), 3u);
  EXPECT_NE(Read(dir_ / "LOG").find("open 5"), std::string::npos);
}

TEST_F(InfoLogTest, ALogPastItsSizeIsRotated) {
  auto log = NewStoreInfoLog(dir_.string(), 2, 4096);
  for (int i = 0; i < 200; ++i) Line(log.get(), "line %d of a log that outgrows its size", i);
  EXPECT_FALSE(OldLogs(dir_).empty());
  EXPECT_LE(fs::file_size(dir_ / "LOG"), 4096u + 128);
  EXPECT_NE(Read(dir_ / "LOG").find("line 199"), std::string::npos);
}

TEST_F(InfoLogTest, AFolderThatCannotHoldTheLogCostsLinesOnly) {
  // No folder: every line is dropped, nothing fails or throws.
  auto log = NewStoreInfoLog((dir_ / "missing").string(), 3, 1 << 20);
  for (int i = 0; i < 10; ++i) Line(log.get(), "dropped %d", i);
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
  // Once the folder exists the next line is written, after a note of what was lost.
  fs::create_directories(dir_ / "missing");
  Line(log.get(), "written");
  const std::string text = Read(dir_ / "missing" / "LOG");
  EXPECT_NE(text.find("(10 earlier lines could not be written)"), std::string::npos) << text;
  EXPECT_NE(text.find("written\n"), std::string::npos);
}

}  // namespace
}  // namespace sift::storage
