/* The C API (sift/sift.h) from a C11 program: every function, and every error the header names, against
 * a fresh store. Usage: capi_test WORK_DIR (emptied first). Prints one line per failed check and exits
 * 1 when any failed. Messages are encoded here by hand (application properties "region" and "amount",
 * an amqp-value string body), as a C program without an AMQP library would. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sift/sift.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* The call returned `expected`, and its error says so (and is freed). */
#define EXPECT_STATUS(expected, call)                                                                             \
  do {                                                                                                            \
    sift_error* err_ = NULL;                                                                                      \
    sift_status got_ = (call);                                                                                    \
    if (got_ != (expected)) {                                                                                     \
      fprintf(stderr, "%s:%d: %s: got %s (%s), expected %s\n", __FILE__, __LINE__, #call, sift_status_name(got_), \
              sift_error_message(err_), sift_status_name(expected));                                              \
      ++failures;                                                                                                 \
    } else if ((expected) != SIFT_OK &&                                                                           \
               (err_ == NULL || sift_error_status(err_) != (expected) || sift_error_message(err_)[0] == '\0')) {  \
      fprintf(stderr, "%s:%d: %s: no error with code and message\n", __FILE__, __LINE__, #call);                  \
      ++failures;                                                                                                 \
    } else if ((expected) == SIFT_OK && err_ != NULL) {                                                           \
      fprintf(stderr, "%s:%d: %s: an error left on success\n", __FILE__, __LINE__, #call);                        \
      ++failures;                                                                                                 \
    }                                                                                                             \
    sift_error_free(err_);                                                                                        \
  } while (0)

#define EXPECT_OK(call) EXPECT_STATUS(SIFT_OK, call)

static uint8_t* put_str8(uint8_t* p, const char* s) {
  size_t n = strlen(s);
  *p++ = 0xa1;
  *p++ = (uint8_t)n;
  memcpy(p, s, n);
  return p + n;
}

/* An encoded AMQP 1.0 message: application-properties {region, amount} and an amqp-value body. */
static size_t make_message(uint8_t* out, const char* region, int32_t amount) {
  uint8_t* p = out;
  uint8_t* size;
  uint32_t a = (uint32_t)amount;
  *p++ = 0x00, *p++ = 0x53, *p++ = 0x74; /* application-properties */
  *p++ = 0xc1;                           /* map8 */
  size = p++;
  *p++ = 4; /* two pairs */
  p = put_str8(p, "region");
  p = put_str8(p, region);
  p = put_str8(p, "amount");
  *p++ = 0x71; /* int */
  *p++ = (uint8_t)(a >> 24), *p++ = (uint8_t)(a >> 16), *p++ = (uint8_t)(a >> 8), *p++ = (uint8_t)a;
  *size = (uint8_t)(p - size - 1);
  *p++ = 0x00, *p++ = 0x53, *p++ = 0x77; /* amqp-value */
  p = put_str8(p, "hello");
  return (size_t)(p - out);
}

static const char* const kRegions[] = {"eu-west", "us-east", "ap-south"};

static void remove_tree(const char* path) {
  DIR* dir = opendir(path);
  if (dir != NULL) {
    struct dirent* entry;
    while ((entry = readdir(dir)) != NULL) {
      char child[4096];
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
      remove_tree(child);
    }
    closedir(dir);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static sift_filter* compile_sql(const char* sql) {
  sift_filter_clause clause = {SIFT_FILTER_SQL, sql};
  sift_filter* filter = NULL;
  EXPECT_OK(sift_filter_compile(&clause, 1, &filter, NULL));
  CHECK(filter != NULL);
  return filter;
}

/* Every delivery of a consumer, polled to its end: their number, and the sum of their offsets. */
static uint64_t drain(sift_consumer* consumer, uint64_t* offset_sum) {
  sift_batch* batch = sift_batch_new();
  uint64_t n = 0;
  *offset_sum = 0;
  while (!sift_consumer_done(consumer)) {
    size_t count = 0;
    const sift_delivery* d;
    size_t i;
    EXPECT_OK(sift_consumer_poll(consumer, batch, 0, NULL));
    d = sift_batch_deliveries(batch, &count);
    for (i = 0; i < count; ++i) {
      *offset_sum += d[i].offset;
      CHECK(d[i].size > 0 && d[i].data != NULL);
    }
    n += count;
  }
  sift_batch_free(batch);
  return n;
}

static void test_errors_and_version(void) {
  size_t value = 7;
  CHECK(strcmp(sift_status_name(SIFT_OK), "OK") == 0);
  CHECK(strcmp(sift_status_name(SIFT_INVALID_ARGUMENT), "InvalidArgument") == 0);
  CHECK(strcmp(sift_status_name(SIFT_MALFORMED), "Malformed") == 0);
  CHECK(strcmp(sift_status_name(SIFT_NOT_FOUND), "NotFound") == 0);
  CHECK(strcmp(sift_status_name(SIFT_CORRUPTION), "Corruption") == 0);
  CHECK(strcmp(sift_status_name(SIFT_IO_ERROR), "IOError") == 0);
  CHECK(strcmp(sift_status_name(SIFT_ALREADY_EXISTS), "AlreadyExists") == 0);
  CHECK(strcmp(sift_status_name(SIFT_BUSY), "Busy") == 0);
  CHECK(strcmp(sift_status_name(SIFT_NOT_SUPPORTED), "NotSupported") == 0);
  CHECK(strcmp(sift_status_name(SIFT_NO_MEMORY), "NoMemory") == 0);
  CHECK(strcmp(sift_status_name(SIFT_INTERNAL), "Internal") == 0);
  CHECK(strcmp(sift_status_name((sift_status)99), "Unknown") == 0);
  /* NULL errors read as "no error". */
  CHECK(sift_error_status(NULL) == SIFT_OK);
  CHECK(strcmp(sift_error_message(NULL), "") == 0);
  CHECK(sift_error_filter_clause(NULL, &value) == 0 && value == 7);
  CHECK(sift_error_position(NULL, &value) == 0 && value == 7);
  CHECK(strcmp(sift_error_selector_code(NULL), "") == 0);
  sift_error_free(NULL);
  sift_free(NULL);
  CHECK(strcmp(sift_version(), SIFT_EXPECTED_VERSION) == 0);
}

static void test_store(const char* dir) {
  char path[4096], file[4096];
  sift_store* store = NULL;
  sift_store* second = NULL;
  sift_store_options options;
  sift_retention retention = {0, 0};
  sift_stream_info info;
  char** names = NULL;
  FILE* f;

  snprintf(path, sizeof path, "%s/store", dir);
  snprintf(file, sizeof file, "%s/a-file", dir);
  f = fopen(file, "w");
  CHECK(f != NULL);
  if (f != NULL) fclose(f);

  sift_store_options_init(NULL); /* ignored */
  sift_store_options_init(&options);
  CHECK(options.struct_size == sizeof options && options.sync == 1 && options.create_if_missing == 1);
  CHECK(options.validate == 1 && options.summarize_chunks == 1 && options.read_only == 0);
  CHECK(options.max_chunk_messages == 4096 && options.compression == SIFT_COMPRESSION_NONE);

  /* sift_store_open's errors. */
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(NULL, NULL, &store, &err_));
  CHECK(store == NULL);
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(path, NULL, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open("", NULL, &store, &err_));
  options.struct_size = 8;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(path, &options, &store, &err_));
  sift_store_options_init(&options);
  options.compression = (sift_compression)7;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(path, &options, &store, &err_));
  sift_store_options_init(&options);
  options.compression = SIFT_COMPRESSION_ZSTD;
  options.compression_level = 99;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(path, &options, &store, &err_));
  sift_store_options_init(&options);
  options.create_if_missing = 0;
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_store_open(path, &options, &store, &err_));
  sift_store_options_init(&options);
  options.read_only = 1;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_open(dir, &options, &store, &err_)); /* holds no store */
  EXPECT_STATUS(SIFT_IO_ERROR, sift_store_open(file, NULL, &store, &err_));
  CHECK(store == NULL);

  sift_store_options_init(&options);
  options.sync = 0;
  options.max_chunk_messages = 64;
  EXPECT_OK(sift_store_open(path, &options, &store, &err_));
  CHECK(store != NULL);
  EXPECT_STATUS(SIFT_BUSY, sift_store_open(path, NULL, &second, &err_));
  CHECK(second == NULL);

  /* Streams. */
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_create(NULL, "orders", NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_create(store, NULL, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_create(store, "", NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_create(store, "bad\nname", NULL, &err_));
  retention.max_age_ms = -1;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_create(store, "aged", &retention, &err_));
  retention.max_age_ms = 0;
  EXPECT_OK(sift_stream_create(store, "orders", NULL, &err_));
  EXPECT_OK(sift_stream_create(store, "orders", NULL, NULL)); /* exists: ok */
  retention.max_bytes = 1u << 30;
  EXPECT_OK(sift_stream_create(store, "kept", &retention, &err_));

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_list(NULL, &names, &err_));
  CHECK(names == NULL);
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_list(store, NULL, &err_));
  EXPECT_OK(sift_stream_list(store, &names, &err_));
  CHECK(names != NULL && names[0] != NULL && names[1] != NULL && names[2] == NULL);
  if (names != NULL && names[0] != NULL && names[1] != NULL) {
    CHECK(strcmp(names[0], "kept") == 0 && strcmp(names[1], "orders") == 0);
  }
  sift_free(names);

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_info_get(NULL, "kept", &info, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_info_get(store, NULL, &info, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_info_get(store, "kept", NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_stream_info_get(store, "nope", &info, &err_));
  EXPECT_OK(sift_stream_info_get(store, "kept", &info, &err_));
  CHECK(info.retention.max_bytes == (1u << 30) && info.message_count == 0 && info.next_offset == 0);

  retention.max_bytes = 0;
  retention.max_age_ms = 3600000;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_set_retention(NULL, "kept", &retention, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_set_retention(store, NULL, &retention, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_set_retention(store, "kept", NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_stream_set_retention(store, "nope", &retention, &err_));
  retention.max_age_ms = -5;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_set_retention(store, "kept", &retention, &err_));
  retention.max_age_ms = 3600000;
  EXPECT_OK(sift_stream_set_retention(store, "kept", &retention, &err_));
  EXPECT_OK(sift_stream_info_get(store, "kept", &info, NULL));
  CHECK(info.retention.max_bytes == 0 && info.retention.max_age_ms == 3600000);

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_enforce_retention(NULL, &err_));
  EXPECT_OK(sift_store_enforce_retention(store, &err_));

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_delete(NULL, "kept", &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_stream_delete(store, NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_stream_delete(store, "nope", &err_));
  EXPECT_OK(sift_stream_delete(store, "kept", &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_stream_info_get(store, "kept", &info, &err_));

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_store_flush(NULL, &err_));
  EXPECT_OK(sift_store_flush(store, &err_));
  sift_store_close(store);
  sift_store_close(NULL);
}

/* Appends 1,000 orders to "orders" (through sift_append and sift_append_batch) and checks the refusals. */
static void test_appends(const char* dir) {
  char path[4096];
  sift_store* store = NULL;
  sift_store_options options;
  uint8_t message[256];
  uint8_t messages[100][64];
  sift_bytes batch[102];
  sift_append_outcome outcomes[102];
  uint64_t offset = 99;
  size_t size, i, round;
  static const uint8_t kGarbage[] = {0x00, 0x53, 0x77, 0xa1, 0x20, 'x'}; /* a string past the end */
  static uint8_t big_message[5000];

  snprintf(path, sizeof path, "%s/store", dir);
  sift_store_options_init(&options);
  options.sync = 0;
  options.max_chunk_messages = 64;
  options.max_message_bytes = 4096;
  EXPECT_OK(sift_store_open(path, &options, &store, NULL));

  size = make_message(message, kRegions[0], 0);
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append(NULL, "orders", message, size, &offset, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append(store, NULL, message, size, &offset, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append(store, "orders", NULL, size, &offset, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_append(store, "nope", message, size, &offset, &err_));
  EXPECT_STATUS(SIFT_MALFORMED, sift_append(store, "orders", kGarbage, sizeof kGarbage, &offset, &err_));
  {
    uint8_t* big = calloc(8192, 1);
    size_t n = make_message(big, kRegions[0], 0);
    big[n - 7] = 0xb1; /* the body's str8 becomes a str32 of 7,000 bytes */
    big[n - 6] = 0, big[n - 5] = 0, big[n - 4] = 0x1b, big[n - 3] = 0x58;
    EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append(store, "orders", big, n - 2 + 7000, &offset, &err_));
    free(big);
  }
  CHECK(offset == 99);

  /* Orders 0..99 one at a time, the first with its offset returned. */
  EXPECT_OK(sift_append(store, "orders", message, size, &offset, &err_));
  CHECK(offset == 0);
  for (i = 1; i < 100; ++i) {
    size = make_message(message, kRegions[i % 3], (int32_t)i);
    EXPECT_OK(sift_append(store, "orders", message, size, NULL, NULL));
  }
  /* Orders 100..899 in batches of 100 (chunks of 64 with summaries, which a filtered read skips). */
  for (round = 1; round < 9; ++round) {
    for (i = 0; i < 100; ++i) {
      size_t k = round * 100 + i;
      batch[i].data = messages[i];
      batch[i].size = make_message(messages[i], kRegions[k % 3], (int32_t)k);
    }
    EXPECT_OK(sift_append_batch(store, "orders", batch, 100, outcomes, NULL));
    for (i = 0; i < 100; ++i) CHECK(outcomes[i].status == SIFT_OK && outcomes[i].offset == round * 100 + i);
  }

  /* sift_append_batch: the NULL cases touch no outcome. */
  outcomes[0].status = SIFT_INTERNAL;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append_batch(NULL, "orders", batch, 1, outcomes, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append_batch(store, NULL, batch, 1, outcomes, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append_batch(store, "orders", NULL, 1, outcomes, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append_batch(store, "orders", batch, 1, NULL, &err_));
  batch[0].data = NULL, batch[0].size = 3;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_append_batch(store, "orders", batch, 1, outcomes, &err_));
  CHECK(outcomes[0].status == SIFT_INTERNAL);
  EXPECT_OK(sift_append_batch(store, "orders", NULL, 0, NULL, &err_)); /* empty: nothing written */

  /* Orders 900..999 in two batches, with a malformed message (index 10) and an oversized one (index
   * 51) refused on their own in the first. */
  for (round = 0; round < 2; ++round) {
    size_t n = 0, first = 900 + round * 50;
    for (i = 0; i < 50; ++i) {
      size_t k = first + i;
      if (round == 0 && i == 10) {
        batch[n].data = kGarbage, batch[n].size = sizeof kGarbage;
        outcomes[n].status = SIFT_OK;
        ++n;
      }
      batch[n].data = messages[k - 900];
      batch[n].size = make_message(messages[k - 900], kRegions[k % 3], (int32_t)(k % 1000));
      ++n;
      if (round == 0 && i == 50 - 1) {
        batch[n].data = big_message, batch[n].size = sizeof big_message; /* over max_message_bytes */
        ++n;
      }
    }
    EXPECT_OK(sift_append_batch(store, "orders", batch, n, outcomes, &err_));
    for (i = 0; i < n; ++i) {
      int refused = round == 0 && (i == 10 || i == n - 1);
      if (refused) {
        CHECK(outcomes[i].status == (i == 10 ? SIFT_MALFORMED : SIFT_INVALID_ARGUMENT));
        CHECK(outcomes[i].error != NULL && sift_error_status(outcomes[i].error) == outcomes[i].status);
        CHECK(strlen(sift_error_message(outcomes[i].error)) > 0);
      } else {
        size_t stored = i - (round == 0 && i > 10 ? 1 : 0);
        CHECK(outcomes[i].status == SIFT_OK && outcomes[i].error == NULL);
        CHECK(outcomes[i].offset == first + stored);
      }
      sift_error_free(outcomes[i].error);
    }
  }

  /* A batch for a stream that does not exist: the write's status, carried by every checked message. */
  batch[0].data = messages[0], batch[0].size = make_message(messages[0], kRegions[0], 1);
  batch[1].data = kGarbage, batch[1].size = sizeof kGarbage;
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_append_batch(store, "nope", batch, 2, outcomes, &err_));
  CHECK(outcomes[0].status == SIFT_NOT_FOUND && outcomes[0].error != NULL);
  CHECK(outcomes[1].status == SIFT_MALFORMED && outcomes[1].error != NULL);
  sift_error_free(outcomes[0].error);
  sift_error_free(outcomes[1].error);
  EXPECT_OK(sift_store_flush(store, NULL));
  sift_store_close(store);
}

static void test_read_only(const char* dir) {
  char path[4096];
  sift_store* store = NULL;
  sift_store_options options;
  sift_retention retention = {100, 0};
  sift_bytes one;
  sift_append_outcome outcome;
  uint8_t message[64];
  size_t size = make_message(message, kRegions[0], 5);

  snprintf(path, sizeof path, "%s/store", dir);
  sift_store_options_init(&options);
  options.read_only = 1;
  EXPECT_OK(sift_store_open(path, &options, &store, NULL));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_store_flush(store, &err_));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_stream_create(store, "new", NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_stream_delete(store, "orders", &err_));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_stream_set_retention(store, "orders", &retention, &err_));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_store_enforce_retention(store, &err_));
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_append(store, "orders", message, size, NULL, &err_));
  one.data = message, one.size = size;
  EXPECT_STATUS(SIFT_NOT_SUPPORTED, sift_append_batch(store, "orders", &one, 1, &outcome, &err_));
  CHECK(outcome.status == SIFT_NOT_SUPPORTED);
  sift_error_free(outcome.error);
  sift_store_close(store);
}

static void test_filters(void) {
  sift_filter* filter = (sift_filter*)1;
  sift_filter_clause clauses[3] = {{SIFT_FILTER_SQL, "a = 1"}, {SIFT_FILTER_SQL, "a = 1"}, {SIFT_FILTER_SQL, "a = 1"}};
  sift_error* err = NULL;
  char* text = (char*)1;
  size_t value = 0;

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_compile(clauses, 1, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_compile(NULL, 1, &filter, &err_));
  CHECK(filter == NULL);
  clauses[0].kind = SIFT_FILTER_SQL, clauses[0].text = NULL;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_compile(clauses, 1, &filter, &err_));
  clauses[0].kind = (sift_filter_kind)9, clauses[0].text = "a = 1";
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_compile(clauses, 1, &filter, &err_));

  /* A bad selector: the clause, the byte and the compiler's code. */
  clauses[0].kind = SIFT_FILTER_SQL, clauses[0].text = "region = 'eu-west'";
  clauses[1].kind = SIFT_FILTER_JMS, clauses[1].text = "amount > > 3";
  CHECK(sift_filter_compile(clauses, 2, &filter, &err) == SIFT_INVALID_ARGUMENT);
  CHECK(filter == NULL && sift_error_status(err) == SIFT_INVALID_ARGUMENT);
  CHECK(sift_error_filter_clause(err, &value) == 1 && value == 1);
  CHECK(sift_error_position(err, &value) == 1 && value == 9);
  CHECK(strcmp(sift_error_selector_code(err), "syntax") == 0);
  CHECK(strstr(sift_error_message(err), "bad selector: jms filter 1, byte 9") != NULL);
  sift_error_free(err);
  err = NULL;
  /* A bad property filter: the clause, no selector code. */
  clauses[0].kind = SIFT_FILTER_APPLICATION_PROPERTIES, clauses[0].text = "[1, 2]";
  CHECK(sift_filter_compile(clauses, 1, &filter, &err) == SIFT_INVALID_ARGUMENT);
  CHECK(sift_error_filter_clause(err, &value) == 1 && value == 0);
  CHECK(strcmp(sift_error_selector_code(err), "") == 0);
  sift_error_free(err);
  /* Without an error pointer the code alone. */
  clauses[0].kind = SIFT_FILTER_SQL, clauses[0].text = "(";
  CHECK(sift_filter_compile(clauses, 1, &filter, NULL) == SIFT_INVALID_ARGUMENT);

  /* Every kind compiles; explain. */
  clauses[0].kind = SIFT_FILTER_SQL, clauses[0].text = "amount >= 0";
  clauses[1].kind = SIFT_FILTER_PROPERTIES, clauses[1].text = "{}";
  clauses[2].kind = SIFT_FILTER_APPLICATION_PROPERTIES, clauses[2].text = "{\"region\": \"&p:eu-\"}";
  EXPECT_OK(sift_filter_compile(clauses, 3, &filter, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_explain(NULL, &text, &err_));
  CHECK(text == NULL);
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_explain(filter, NULL, &err_));
  EXPECT_OK(sift_filter_explain(filter, &text, &err_));
  CHECK(text != NULL && strstr(text, "amount") != NULL);
  sift_free(text);
  sift_filter_free(filter);
  EXPECT_OK(sift_filter_compile(NULL, 0, &filter, &err_)); /* matches every message */
  sift_filter_free(filter);
  sift_filter_free(NULL);
}

/* Orders 0..999 are in "orders" (test_appends): order i has region kRegions[i % 3], amount i. */
static void test_consumers(const char* dir) {
  char path[4096];
  sift_store* store = NULL;
  sift_consumer* consumer = NULL;
  sift_consumer_options options;
  sift_filter* filter = compile_sql("region = 'eu-west' AND amount >= 500");
  sift_batch* batch = sift_batch_new();
  sift_scan_stats stats;
  uint64_t sum = 0, n, expected_sum = 0, expected_n = 0, i, matched = 0;
  const sift_delivery* d;
  size_t count = 0;

  for (i = 500; i < 1000; ++i) {
    if (i % 3 == 0) ++expected_n, expected_sum += i;
  }
  snprintf(path, sizeof path, "%s/store", dir);
  EXPECT_OK(sift_store_open(path, NULL, &store, NULL));
  sift_consumer_options_init(NULL);
  sift_consumer_options_init(&options);
  CHECK(options.struct_size == sizeof options && options.credit == 256 && options.filter == NULL);
  CHECK(options.start == SIFT_START_FIRST && options.end == SIFT_END_NONE && options.skip_chunks == 1);

  /* sift_consumer_open's errors. */
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(NULL, "orders", &options, &consumer, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, NULL, &options, &consumer, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_consumer_open(store, "nope", &options, &consumer, &err_));
  options.credit = 0;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, &consumer, &err_));
  sift_consumer_options_init(&options);
  options.max_scan_per_poll = 0;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, &consumer, &err_));
  sift_consumer_options_init(&options);
  options.start = (sift_start)17;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, &consumer, &err_));
  sift_consumer_options_init(&options);
  options.end = (sift_end)17;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, &consumer, &err_));
  sift_consumer_options_init(&options);
  options.struct_size = 4;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_open(store, "orders", &options, &consumer, &err_));
  CHECK(consumer == NULL);

  /* A filtered read in batches of at most `credit`; the filter may be freed once the consumer is made. */
  sift_consumer_options_init(&options);
  options.filter = filter;
  options.credit = 7;
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, &err_));
  sift_filter_free(filter);
  options.filter = filter = NULL;
  EXPECT_OK(sift_consumer_poll(consumer, batch, 0, &err_));
  d = sift_batch_deliveries(batch, &count);
  CHECK(count == 7 && d[0].offset == 501 && d[0].timestamp_ms > 0);
  n = count;
  for (i = 0; i < count; ++i) sum += d[i].offset;
  {
    uint64_t rest_sum = 0;
    n += drain(consumer, &rest_sum);
    sum += rest_sum;
  }
  CHECK(n == expected_n && sum == expected_sum);
  CHECK(sift_consumer_done(consumer) == 1 && sift_consumer_position(consumer) == 1000);
  sift_consumer_stats(consumer, &stats);
  CHECK(stats.matched == expected_n && stats.scanned <= 1000 && stats.chunks > 0);
  CHECK(stats.chunks_pruned > 0); /* chunks of orders below 500 are ruled out by their summary */
  sift_consumer_stats(consumer, NULL);
  /* Done: the next poll is ok and empty. */
  EXPECT_OK(sift_consumer_poll(consumer, batch, 0, &err_));
  CHECK(sift_batch_deliveries(batch, &count) != NULL || count == 0);
  CHECK(count == 0);
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_poll(NULL, batch, 0, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_consumer_poll(consumer, NULL, 0, &err_));
  sift_consumer_close(consumer);
  sift_consumer_close(NULL);

  /* NULL consumer, batch and stats read as empty. */
  CHECK(sift_consumer_done(NULL) == 0 && sift_consumer_position(NULL) == 0);
  CHECK(sift_batch_deliveries(NULL, &count) == NULL && count == 0);
  sift_consumer_stats(NULL, &stats);
  CHECK(stats.scanned == 0 && stats.matched == 0);

  /* Start and end positions: [100, 110), the last 5, from offset 995, from a timestamp, to a timestamp,
   * and the last message. */
  sift_consumer_options_init(&options);
  options.start = SIFT_START_OFFSET, options.start_offset = 100;
  options.end = SIFT_END_OFFSET, options.end_offset = 110;
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, NULL));
  CHECK(drain(consumer, &sum) == 10 && sum == 1045);
  sift_consumer_close(consumer);
  sift_consumer_options_init(&options);
  options.start = SIFT_START_FROM_END, options.start_offset = 5;
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, NULL));
  CHECK(drain(consumer, &sum) == 5 && sum == 995 + 996 + 997 + 998 + 999);
  sift_consumer_close(consumer);
  sift_consumer_options_init(&options);
  options.start = SIFT_START_LAST;
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, NULL));
  CHECK(drain(consumer, &sum) == 1 && sum == 999);
  sift_consumer_close(consumer);
  sift_consumer_options_init(&options);
  options.start = SIFT_START_TIMESTAMP, options.start_timestamp_ms = 0;
  options.end = SIFT_END_TIMESTAMP, options.end_timestamp_ms = 4102444800000; /* 2100 */
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, NULL));
  CHECK(drain(consumer, &sum) == 1000);
  sift_consumer_close(consumer);

  /* SIFT_START_NEXT with follow: nothing until an append, then the append; the store handle is closed
   * before the consumer (the consumer keeps the store open). */
  sift_consumer_options_init(&options);
  options.start = SIFT_START_NEXT;
  options.follow = 1;
  EXPECT_OK(sift_consumer_open(store, "orders", &options, &consumer, NULL));
  EXPECT_OK(sift_consumer_poll(consumer, batch, 10, NULL));
  sift_batch_deliveries(batch, &count);
  CHECK(count == 0 && sift_consumer_done(consumer) == 0);
  {
    uint8_t message[64];
    size_t size = make_message(message, "late", 1);
    uint64_t offset = 0;
    EXPECT_OK(sift_append(store, "orders", message, size, &offset, NULL));
    CHECK(offset == 1000);
    EXPECT_OK(sift_consumer_poll(consumer, batch, 1000, NULL));
    d = sift_batch_deliveries(batch, &count);
    CHECK(count == 1 && d[0].offset == 1000 && d[0].size == size && memcmp(d[0].data, message, size) == 0);
  }
  sift_store_close(store);
  store = NULL;
  EXPECT_OK(sift_consumer_poll(consumer, batch, 0, NULL));
  sift_consumer_close(consumer);
  sift_batch_free(batch);
  sift_batch_free(NULL);

  /* Counts. */
  EXPECT_OK(sift_store_open(path, NULL, &store, NULL));
  filter = compile_sql("region = 'eu-west' AND amount >= 500");
  sift_consumer_options_init(&options);
  options.filter = filter;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(store, "orders", &options, 2, NULL, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(NULL, "orders", &options, 2, &matched, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(store, NULL, &options, 2, &matched, NULL, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(store, "orders", &options, 65, &matched, NULL, &err_));
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_count(store, "nope", &options, 2, &matched, NULL, &err_));
  options.follow = 1;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(store, "orders", &options, 2, &matched, NULL, &err_));
  options.follow = 0;
  options.credit = 0;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_count(store, "orders", &options, 2, &matched, NULL, &err_));
  options.credit = 256;
  EXPECT_OK(sift_count(store, "orders", &options, 2, &matched, &stats, &err_));
  CHECK(matched == expected_n && stats.matched == expected_n && stats.scanned > 0);
  EXPECT_OK(sift_count(store, "orders", &options, 0, &matched, NULL, &err_));
  CHECK(matched == expected_n);
  EXPECT_OK(sift_count(store, "orders", NULL, 1, &matched, NULL, &err_));
  CHECK(matched == 1001);
  sift_filter_free(filter);
  sift_store_close(store);
}

static void test_json(void) {
  uint8_t message[64];
  size_t size = make_message(message, "eu-west", 42), length = 0;
  char* json = (char*)1;
  static const uint8_t kGarbage[] = {0x00, 0x53, 0x77, 0xa1, 0x20, 'x'};

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_message_to_json(message, size, 3, NULL, &length, &err_));
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_message_to_json(NULL, size, 3, &json, &length, &err_));
  CHECK(json == NULL);
  EXPECT_STATUS(SIFT_CORRUPTION, sift_message_to_json(kGarbage, sizeof kGarbage, 3, &json, &length, &err_));
  EXPECT_OK(sift_message_to_json(message, size, 3, &json, &length, &err_));
  CHECK(json != NULL && strlen(json) == length);
  CHECK(json != NULL && strstr(json, "\"offset\":3") != NULL && strstr(json, "\"region\":\"eu-west\"") != NULL);
  CHECK(json != NULL && strstr(json, "\"amount\":{\"type\":\"int\",\"value\":42}") != NULL);
  sift_free(json);
  EXPECT_OK(sift_message_to_json(message, size, 0, &json, NULL, NULL));
  sift_free(json);
}

struct collected {
  uint64_t count, index_sum, stop_after;
};

static int collect(void* context, uint64_t index, const uint8_t* data, size_t size) {
  struct collected* c = context;
  CHECK(data != NULL && size > 0);
  ++c->count;
  c->index_sum += index;
  return c->stop_after != 0 && c->count >= c->stop_after;
}

static void write_record(FILE* f, const uint8_t* message, size_t size) {
  uint8_t length[4] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size};
  fwrite(length, 1, 4, f);
  fwrite(message, 1, size, f);
}

static void test_filter_file(const char* dir) {
  char path[4096], bad[4096], truncated[4096];
  FILE* f;
  uint8_t message[64];
  size_t size, i;
  sift_filter* filter = compile_sql("region = 'eu-west'");
  sift_file_filter_options options;
  sift_scan_stats stats;
  struct collected c = {0, 0, 0};
  uint64_t expected_sum = 0;
  static const uint8_t kGarbage[] = {0x00, 0x53, 0x77, 0xa1, 0x20, 'x'};

  snprintf(path, sizeof path, "%s/orders.amqp", dir);
  snprintf(bad, sizeof bad, "%s/bad.amqp", dir);
  snprintf(truncated, sizeof truncated, "%s/truncated.amqp", dir);
  f = fopen(path, "wb");
  for (i = 0; i < 300; ++i) {
    size = make_message(message, kRegions[i % 3], (int32_t)i);
    write_record(f, message, size);
    if (i % 3 == 0) expected_sum += i;
  }
  fclose(f);
  /* bad.amqp: record 2 is a malformed message that the filter matches... */
  f = fopen(bad, "wb");
  size = make_message(message, "us-east", 0);
  write_record(f, message, size);
  write_record(f, message, size);
  size = make_message(message, "eu-west", 0);
  message[size - 1] = 0xff; /* still a string, now ending in an invalid UTF-8 byte */
  write_record(f, message, size);
  fclose(f);
  /* ...and truncated.amqp ends inside its second record. */
  f = fopen(truncated, "wb");
  size = make_message(message, "us-east", 0);
  write_record(f, message, size);
  write_record(f, message, size);
  fclose(f);
  CHECK(truncate(truncated, (off_t)(4 + size + 4 + size / 2)) == 0);

  sift_file_filter_options_init(NULL);
  sift_file_filter_options_init(&options);
  CHECK(options.struct_size == sizeof options && options.strict == 0 && options.limit == 0);

  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_file(NULL, filter, &options, NULL, NULL, &stats, &err_));
  options.struct_size = 2;
  EXPECT_STATUS(SIFT_INVALID_ARGUMENT, sift_filter_file(path, filter, &options, NULL, NULL, &stats, &err_));
  sift_file_filter_options_init(&options);
  EXPECT_STATUS(SIFT_NOT_FOUND, sift_filter_file("/nonexistent/x.amqp", filter, &options, NULL, NULL, NULL, &err_));
  EXPECT_STATUS(SIFT_IO_ERROR, sift_filter_file(dir, filter, &options, NULL, NULL, NULL, &err_));
  EXPECT_STATUS(SIFT_MALFORMED, sift_filter_file(truncated, NULL, &options, NULL, NULL, &stats, &err_));
  CHECK(stats.scanned == 1);
  EXPECT_STATUS(SIFT_MALFORMED, sift_filter_file(bad, filter, &options, collect, &c, &stats, &err_));
  CHECK(c.count == 0 && stats.scanned == 3);
  /* The same record rejected by the filter is not looked at further, unless strict. */
  {
    sift_filter* other = compile_sql("region = 'us-east'");
    EXPECT_OK(sift_filter_file(bad, other, &options, NULL, NULL, &stats, &err_));
    CHECK(stats.matched == 2 && stats.scanned == 3);
    options.strict = 1;
    EXPECT_STATUS(SIFT_MALFORMED, sift_filter_file(bad, other, &options, NULL, NULL, &stats, &err_));
    options.strict = 0;
    sift_filter_free(other);
  }
  (void)kGarbage;

  EXPECT_OK(sift_filter_file(path, filter, &options, collect, &c, &stats, &err_));
  CHECK(c.count == 100 && c.index_sum == expected_sum);
  CHECK(stats.scanned == 300 && stats.matched == 100 && stats.bytes > 0);
  EXPECT_OK(sift_filter_file(path, filter, NULL, NULL, NULL, &stats, &err_));
  CHECK(stats.matched == 100);
  EXPECT_OK(sift_filter_file(path, NULL, NULL, NULL, NULL, &stats, NULL));
  CHECK(stats.matched == 300);
  options.limit = 10;
  EXPECT_OK(sift_filter_file(path, filter, &options, NULL, NULL, &stats, &err_));
  CHECK(stats.matched == 10);
  options.limit = 0;
  c.count = c.index_sum = 0, c.stop_after = 4; /* the callback stops the run */
  EXPECT_OK(sift_filter_file(path, filter, &options, collect, &c, &stats, &err_));
  CHECK(c.count == 4 && stats.matched == 4 && c.index_sum == 0 + 3 + 6 + 9);
  sift_filter_free(filter);
}

int main(int argc, char** argv) {
  struct stat info;
  if (argc != 2) {
    fprintf(stderr, "usage: capi_test WORK_DIR\n");
    return 2;
  }
  remove_tree(argv[1]);
  if (mkdir(argv[1], 0755) != 0 || stat(argv[1], &info) != 0) {
    fprintf(stderr, "capi_test: cannot create %s\n", argv[1]);
    return 2;
  }
  test_errors_and_version();
  test_store(argv[1]);
  test_appends(argv[1]);
  test_read_only(argv[1]);
  test_filters();
  test_consumers(argv[1]);
  test_json();
  test_filter_file(argv[1]);
  remove_tree(argv[1]);
  if (failures != 0) {
    fprintf(stderr, "capi_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: every check passed\n");
  return 0;
}
