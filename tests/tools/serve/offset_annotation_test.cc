// AddOffsetAnnotation: the delivered bytes carry `x-stream-offset` and are otherwise the stored
// message (checked by Proton's full decode, an independent decoder).
#include "tools/serve/offset_annotation.h"

#include <gtest/gtest.h>
#include <proton/codec.h>
#include <proton/message.h>

#include <string>
#include <vector>

#include "amqp/validate.h"

namespace sift::tools {
namespace {

std::string Encode(pn_message_t* m) {
  std::vector<char> buf(1 << 16);
  size_t size = buf.size();
  EXPECT_EQ(pn_message_encode(m, buf.data(), &size), 0);
  return std::string(buf.data(), size);
}

// Decodes `bytes` and returns the message annotation `key` as a long (or -1 when absent).
int64_t AnnotationOf(const std::string& bytes, const char* key, pn_message_t* out) {
  EXPECT_EQ(pn_message_decode(out, bytes.data(), bytes.size()), 0);
  pn_data_t* a = pn_message_annotations(out);
  pn_data_rewind(a);
  if (!pn_data_next(a) || pn_data_type(a) != PN_MAP) return -1;
  pn_data_enter(a);
  while (pn_data_next(a)) {
    pn_bytes_t k = pn_data_get_symbol(a);
    pn_data_next(a);
    if (std::string(k.start, k.size) == key) return pn_data_get_long(a);
  }
  return -1;
}

void Validate(const std::string& bytes) {
  auto d = amqp::Validate({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  EXPECT_TRUE(d.ok()) << d.Message();
}

TEST(OffsetAnnotation, InsertsTheSectionInSpecOrderWhenAbsent) {
  pn_message_t* m = pn_message();
  pn_message_set_priority(m, 7);
  pn_message_set_subject(m, "created");
  pn_data_put_string(pn_message_body(m), pn_bytes(5, "hello"));
  std::string out;
  ASSERT_TRUE(AddOffsetAnnotation(Encode(m), 42, &out));
  Validate(out);
  pn_message_t* back = pn_message();
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 42);
  EXPECT_EQ(pn_message_get_priority(back), 7);
  EXPECT_STREQ(pn_message_get_subject(back), "created");
  pn_message_free(back);
  pn_message_free(m);
}

TEST(OffsetAnnotation, KeepsExistingAnnotationsAndReplacesAnEarlierOffset) {
  pn_message_t* m = pn_message();
  pn_data_t* a = pn_message_annotations(m);
  pn_data_put_map(a);
  pn_data_enter(a);
  pn_data_put_symbol(a, pn_bytes(15, "x-opt-partition"));
  pn_data_put_int(a, 3);
  pn_data_put_symbol(a, pn_bytes(15, "x-stream-offset"));
  pn_data_put_long(a, 999);
  pn_data_exit(a);
  pn_data_put_string(pn_message_body(m), pn_bytes(1, "x"));
  std::string out;
  ASSERT_TRUE(AddOffsetAnnotation(Encode(m), 7, &out));
  Validate(out);
  pn_message_t* back = pn_message();
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 7);
  pn_data_t* b = pn_message_annotations(back);
  pn_data_rewind(b);
  ASSERT_TRUE(pn_data_next(b));
  EXPECT_EQ(pn_data_get_map(b), 4u);  // x-opt-partition and one x-stream-offset
  pn_message_free(back);
  pn_message_free(m);
}

// After a retention gap the delivery carries how many offsets were skipped, once: an earlier entry of
// that name in the stored message is dropped, and without a gap none is written.
TEST(OffsetAnnotation, RetentionSkippedIsAddedWhenNotZero) {
  pn_message_t* m = pn_message();
  pn_data_t* a = pn_message_annotations(m);
  pn_data_put_map(a);
  pn_data_enter(a);
  pn_data_put_symbol(a, pn_bytes(28, "x-opt-sift-retention-skipped"));
  pn_data_put_long(a, 5);
  pn_data_put_symbol(a, pn_bytes(15, "x-opt-partition"));
  pn_data_put_int(a, 3);
  pn_data_exit(a);
  pn_data_put_string(pn_message_body(m), pn_bytes(1, "x"));
  const std::string stored = Encode(m);
  std::string out;
  ASSERT_TRUE(AddOffsetAnnotation(stored, 600, &out, 575));
  Validate(out);
  pn_message_t* back = pn_message();
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 600);
  EXPECT_EQ(AnnotationOf(out, "x-opt-sift-retention-skipped", back), 575);
  pn_data_t* b = pn_message_annotations(back);
  pn_data_rewind(b);
  ASSERT_TRUE(pn_data_next(b));
  EXPECT_EQ(pn_data_get_map(b), 6u);  // x-opt-partition, the offset, one retention entry

  ASSERT_TRUE(AddOffsetAnnotation(stored, 601, &out));
  Validate(out);
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 601);
  EXPECT_EQ(AnnotationOf(out, "x-opt-sift-retention-skipped", back), -1);

  pn_message_t* bare = pn_message();  // no annotations section yet
  pn_data_put_string(pn_message_body(bare), pn_bytes(1, "y"));
  ASSERT_TRUE(AddOffsetAnnotation(Encode(bare), 9, &out, 4));
  Validate(out);
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 9);
  EXPECT_EQ(AnnotationOf(out, "x-opt-sift-retention-skipped", back), 4);
  pn_message_free(bare);
  pn_message_free(back);
  pn_message_free(m);
}

TEST(OffsetAnnotation, MessageWithHeaderOnlyGetsTheSectionAtTheEnd) {
  pn_message_t* m = pn_message();
  pn_message_set_durable(m, true);
  std::string out;
  ASSERT_TRUE(AddOffsetAnnotation(Encode(m), 1, &out));
  Validate(out);
  pn_message_t* back = pn_message();
  EXPECT_EQ(AnnotationOf(out, "x-stream-offset", back), 1);
  EXPECT_TRUE(pn_message_is_durable(back));
  pn_message_free(back);
  pn_message_free(m);
}

TEST(OffsetAnnotation, MalformedBytesAreRefused) {
  std::string out;
  EXPECT_FALSE(AddOffsetAnnotation(std::string("\x00\x53\x77\xa1\x05"
                                               "ab",
                                               7),
                                   1, &out));
  EXPECT_FALSE(AddOffsetAnnotation(std::string("\xa1\x01"
                                               "a",
                                               3),
                                   1, &out));  // not a section
}

}  // namespace
}  // namespace sift::tools
