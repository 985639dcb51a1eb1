/* sift/sift.h: the C API of sift (C11; also valid C++), in the shared library libsift.
 *
 * What a broker written in C, or a language that calls C (Python, Go, Rust, ...), embeds: a store of
 * named streams of AMQP 1.0 messages (open, close, streams, retention), appends (one message, or a
 * batch with an outcome per message), filter-sets (SQL filter expressions, JMS selectors, property
 * filters as JSON) compiled once, filtered consumers that deliver batches of (offset, bytes), filtered
 * counts split over threads, and the offline filter of a record file. It is a thin layer over the C++
 * embedding API of this folder (sift/stream_engine.h and the headers it includes): every rule stated
 * there (durability, validation, positions, retention, chunk skipping) holds here unchanged.
 *
 * Errors. Every function that can fail returns a sift_status: SIFT_OK (0) or the code of the failure,
 * and, when its last argument `error` is not NULL, stores in *error a sift_error the caller owns and
 * frees with sift_error_free (on success *error is set to NULL). sift_error_message() is the readable
 * line ("cannot append: orders: message 3: ..."); a filter that does not compile also says which clause
 * failed, at which byte of its text, and the compiler's name for the problem. Nothing is thrown across
 * this API: an unexpected C++ exception inside it becomes SIFT_INTERNAL, an allocation failure
 * SIFT_NO_MEMORY. A NULL handle or out pointer where one is required is
 * SIFT_INVALID_ARGUMENT.
 *
 * Each function names the errors a caller can cause or meet in ordinary use. Besides those, any call
 * that touches the store may return SIFT_IO_ERROR (the file system failed: a full disk, a failed
 * sync) or SIFT_CORRUPTION (stored data that fails its checksum: a consumer stops there unless it
 * skips corrupt chunks), passed on from the C++ API with its message; and any call may return
 * SIFT_NO_MEMORY or SIFT_INTERNAL.
 *
 * Ownership. Every handle (sift_store, sift_filter, sift_consumer, sift_batch, sift_error) is created by
 * this library and freed by the caller with its own *_free / *_close function, which accepts NULL.
 * Strings and arrays this library returns (sift_filter_explain, sift_stream_list, sift_message_to_json)
 * are freed with the function named beside them. Input strings and bytes are read only during the call
 * that takes them, except where stated.
 *
 * Lifetimes. A consumer keeps its store alive: sift_store_close() may come before sift_consumer_close();
 * the store then closes when its last consumer does. A compiled filter may be freed as soon as the
 * consumer or count that uses it has been created (they keep what they need). The deliveries of a batch
 * stay valid until that batch is polled into again or freed.
 *
 * Threads. A store and a compiled filter may be used from any number of threads at once (appends,
 * consumers, counts and filter compilation run concurrently). A consumer, a batch and an error belong
 * to one thread at a time. No function keeps global state: two stores in different folders are
 * independent. Functions that scan (poll, count, filter_file) block; a binding may release its
 * interpreter's lock around them.
 *
 * Versioning. The library has the SONAME libsift.so.0 and versions its symbols SIFT_0; the option
 * structs carry their size (set by their *_init function), so a later release can add fields at their
 * end and still accept a caller built against this header.
 */
#ifndef SIFT_SIFT_H_
#define SIFT_SIFT_H_

#include <stddef.h>
#include <stdint.h>

/* Marks the functions libsift exports (everything else in it is hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define SIFT_API __attribute__((visibility("default")))
#else
#define SIFT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status and errors ------------------------------------------------------------------------- */

typedef enum sift_status {
  SIFT_OK = 0,
  SIFT_INVALID_ARGUMENT = 1, /* a bad argument, option, stream name, filter, or a refused message */
  SIFT_MALFORMED = 2,        /* bytes that are not a well-formed AMQP message or record */
  SIFT_NOT_FOUND = 3,        /* a store, stream or file that does not exist */
  SIFT_CORRUPTION = 4,       /* stored data that fails its checks, or cannot be decoded */
  SIFT_IO_ERROR = 5,         /* the file system or the store refused an operation */
  SIFT_ALREADY_EXISTS = 6,   /* something that exists where a new one was asked for */
  SIFT_BUSY = 7,             /* the store is open for writing in another process */
  SIFT_NOT_SUPPORTED = 8,    /* a write to a store opened read-only; a store format this build cannot read */
  SIFT_NO_MEMORY = 9,        /* an allocation failed */
  SIFT_INTERNAL = 10         /* an unexpected failure inside the library (a bug: please report it) */
} sift_status;

typedef struct sift_error sift_error;

/* "OK", "InvalidArgument", "Malformed", ... ("Unknown" for a value outside the enumeration). The string
 * is static. */
SIFT_API const char* sift_status_name(sift_status status);

/* The code of an error (SIFT_OK for NULL). */
SIFT_API sift_status sift_error_status(const sift_error* error);
/* The readable message, "<what>: <where>: <why>" (empty for NULL). Owned by the error. */
SIFT_API const char* sift_error_message(const sift_error* error);
/* For an error of sift_filter_compile: 1 and *clause = the index of the failing clause; else 0. */
SIFT_API int sift_error_filter_clause(const sift_error* error, size_t* clause);
/* For a filter error that points into the clause's text: 1 and *position = the byte offset where the
 * problem starts; else 0. */
SIFT_API int sift_error_position(const sift_error* error, size_t* position);
/* For a selector error: the compiler's stable name for the problem ("syntax", "unexpected-end",
 * "unknown-field", ...: docs/selector-semantics.md, "Errors"); "" otherwise. Owned by the error. */
SIFT_API const char* sift_error_selector_code(const sift_error* error);
/* Frees an error; NULL is ignored. */
SIFT_API void sift_error_free(sift_error* error);

/* The library's version, "MAJOR.MINOR.PATCH" (static). */
SIFT_API const char* sift_version(void);

/* Frees a string or array this library returned where its function says so; NULL is ignored. */
SIFT_API void sift_free(void* pointer);

/* ---- Store ------------------------------------------------------------------------------------- */

typedef struct sift_store sift_store;

typedef enum sift_compression { SIFT_COMPRESSION_NONE = 0, SIFT_COMPRESSION_ZSTD = 1 } sift_compression;

/* How a store opens (sift/options.h gives each field's full meaning). Fill with sift_store_options_init
 * and change what you need. */
typedef struct sift_store_options {
  size_t struct_size;           /* set by sift_store_options_init */
  int sync;                     /* 1 (default): an append returns once fsync'd */
  int create_if_missing;        /* 1 (default): create the folder and the store */
  int read_only;                /* 0 (default); 1: every write returns SIFT_NOT_SUPPORTED */
  int validate;                 /* 1 (default): appended messages are validated strictly */
  int summarize_chunks;         /* 1 (default): chunk summaries, so filtered reads skip chunks */
  uint32_t max_chunk_messages;  /* 4096 */
  uint32_t max_chunk_bytes;     /* 1 MiB */
  uint32_t max_message_bytes;   /* 16 MiB */
  uint64_t block_cache_bytes;   /* 256 MiB */
  sift_compression compression; /* of the streams this store creates (default none) */
  int compression_level;        /* zstd level, -7 to 19 (default -2) */
} sift_store_options;

SIFT_API void sift_store_options_init(sift_store_options* options);

/* Opens (or creates) the store in folder `path`; `options` NULL means the defaults. *store gets a
 * handle to close with sift_store_close.
 * Errors: SIFT_INVALID_ARGUMENT (NULL path or store, an empty path, an option out of range, a
 * struct_size this library does not know, read_only on a folder that holds no store), SIFT_NOT_FOUND
 * (no folder there and create_if_missing is 0), SIFT_BUSY (the store is open for writing, in another
 * process or through another handle), SIFT_IO_ERROR (the path names a file, not a folder). */
SIFT_API sift_status sift_store_open(const char* path, const sift_store_options* options, sift_store** store,
                                     sift_error** error);

/* Releases the caller's handle. The store closes now, or when the last of its consumers is closed.
 * No other call may be running on the handle. NULL is ignored. */
SIFT_API void sift_store_close(sift_store* store);

/* Makes every acknowledged append durable (fsync), also with sync off.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store), SIFT_NOT_SUPPORTED (read-only). */
SIFT_API sift_status sift_store_flush(sift_store* store, sift_error** error);

/* How much of a stream is kept (0: no limit). Whole chunks are deleted from the oldest end. */
typedef struct sift_retention {
  uint64_t max_bytes;
  int64_t max_age_ms;
} sift_retention;

/* Creates a stream (ok when it exists: it keeps its own retention). `retention` NULL keeps everything.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store or name, a bad name: 1..255 bytes without control
 * characters, a negative max_age_ms), SIFT_NOT_SUPPORTED (read-only). */
SIFT_API sift_status sift_stream_create(sift_store* store, const char* name, const sift_retention* retention,
                                        sift_error** error);

/* Deletes a stream and all its messages.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store or name), SIFT_NOT_FOUND (no such stream),
 * SIFT_NOT_SUPPORTED (read-only). */
SIFT_API sift_status sift_stream_delete(sift_store* store, const char* name, sift_error** error);

/* The stream names: *names gets a NULL-terminated array of NUL-terminated strings, freed (array and
 * strings at once) with sift_free. Errors: SIFT_INVALID_ARGUMENT (NULL store or names). */
SIFT_API sift_status sift_stream_list(sift_store* store, char*** names, sift_error** error);

/* A snapshot of one stream (sift/stream_engine.h, StreamInfo). */
typedef struct sift_stream_info {
  uint64_t first_offset; /* oldest retained message (== next_offset when empty) */
  uint64_t next_offset;  /* what the next append gets */
  uint64_t message_count;
  uint64_t chunk_count;
  uint64_t bytes;     /* stored bytes */
  uint64_t raw_bytes; /* the same before compression */
  int64_t first_timestamp_ms;
  int64_t last_timestamp_ms;
  sift_retention retention;
} sift_stream_info;

/* Errors: SIFT_INVALID_ARGUMENT (NULL store, name or info), SIFT_NOT_FOUND (no such stream). */
SIFT_API sift_status sift_stream_info_get(sift_store* store, const char* name, sift_stream_info* info,
                                          sift_error** error);

/* Replaces the stream's retention and applies it at once.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store, name or retention; a negative max_age_ms), SIFT_NOT_FOUND,
 * SIFT_NOT_SUPPORTED (read-only). */
SIFT_API sift_status sift_stream_set_retention(sift_store* store, const char* name, const sift_retention* retention,
                                               sift_error** error);

/* Applies every stream's retention now (age limits of streams nobody appends to age only through this).
 * Errors: SIFT_INVALID_ARGUMENT (NULL store), SIFT_NOT_SUPPORTED (read-only). */
SIFT_API sift_status sift_store_enforce_retention(sift_store* store, sift_error** error);

/* ---- Appends ----------------------------------------------------------------------------------- */

/* Appends one encoded AMQP 1.0 message (`size` bytes at `data`); *offset (when not NULL) gets its
 * offset. Durable on return when the store syncs.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store, stream, or data with a non-zero size; a message larger than
 * max_message_bytes), SIFT_NOT_FOUND (no such stream), SIFT_MALFORMED (not a well-formed message: the
 * message names the byte), SIFT_NOT_SUPPORTED (read-only; a well-formed message). */
SIFT_API sift_status sift_append(sift_store* store, const char* stream, const void* data, size_t size, uint64_t* offset,
                                 sift_error** error);

/* One message of a batch. */
typedef struct sift_bytes {
  const void* data;
  size_t size;
} sift_bytes;

/* What became of one message of a batch. */
typedef struct sift_append_outcome {
  sift_status status; /* SIFT_OK: stored at `offset` */
  uint64_t offset;
  sift_error* error; /* NULL when stored; else why it was not, owned by the caller (sift_error_free) */
} sift_append_outcome;

/* Appends the messages of a batch that pass their checks and refuses the others, each on its own (what
 * a broker needs to settle each transfer with its own outcome). The messages that pass are stored in
 * one atomic write, in order, in consecutive offsets. outcomes[i] (an array of `count` the caller
 * provides) says what became of messages[i]; every outcome's error is set (to NULL or to an error the
 * caller frees) whenever the call returns SIFT_OK or the failure of the write.
 * Returns the write's own status: SIFT_OK (also when every message was refused), or SIFT_NOT_FOUND (no
 * such stream), SIFT_NOT_SUPPORTED (read-only), or SIFT_IO_ERROR, and then nothing is stored and every
 * message that passed its checks carries that error. SIFT_INVALID_ARGUMENT (NULL store, stream,
 * messages or outcomes with a non-zero count) touches no outcome. */
SIFT_API sift_status sift_append_batch(sift_store* store, const char* stream, const sift_bytes* messages, size_t count,
                                       sift_append_outcome* outcomes, sift_error** error);

/* ---- Filters ----------------------------------------------------------------------------------- */

typedef struct sift_filter sift_filter;

typedef enum sift_filter_kind {
  SIFT_FILTER_SQL = 0,                   /* a SQL filter expression (amqp:sql-filter) */
  SIFT_FILTER_JMS = 1,                   /* a JMS selector */
  SIFT_FILTER_PROPERTIES = 2,            /* a JSON object of properties and typed JSON reference values */
  SIFT_FILTER_APPLICATION_PROPERTIES = 3 /* the same for application properties */
} sift_filter_kind;

typedef struct sift_filter_clause {
  sift_filter_kind kind;
  const char* text; /* NUL-terminated UTF-8 */
} sift_filter_clause;

/* Compiles `count` clauses, all of which must match (count 0: a filter matching every message), into
 * *filter, freed with sift_filter_free. The language is docs/selector-language.md.
 * Errors: SIFT_INVALID_ARGUMENT: a NULL filter, clauses or clause text, an unknown kind, or the first
 * clause that does not compile, with sift_error_filter_clause, sift_error_position (the byte of its
 * text) and sift_error_selector_code set. */
SIFT_API sift_status sift_filter_compile(const sift_filter_clause* clauses, size_t count, sift_filter** filter,
                                         sift_error** error);

/* The plan of a compiled filter (what `sift explain` prints): *text gets a NUL-terminated string freed
 * with sift_free. Errors: SIFT_INVALID_ARGUMENT (NULL filter or text). */
SIFT_API sift_status sift_filter_explain(const sift_filter* filter, char** text, sift_error** error);

SIFT_API void sift_filter_free(sift_filter* filter);

/* ---- Consumers --------------------------------------------------------------------------------- */

typedef struct sift_consumer sift_consumer;
typedef struct sift_batch sift_batch;

typedef enum sift_start {
  SIFT_START_FIRST = 0,    /* the oldest retained message */
  SIFT_START_LAST = 1,     /* the newest message */
  SIFT_START_NEXT = 2,     /* only messages appended after the consumer is created */
  SIFT_START_OFFSET = 3,   /* the first offset >= start_offset */
  SIFT_START_FROM_END = 4, /* the last start_offset messages */
  SIFT_START_TIMESTAMP = 5 /* the first message appended at or after start_timestamp_ms */
} sift_start;

typedef enum sift_end {
  SIFT_END_NONE = 0,     /* the end of the stream (or never, when following) */
  SIFT_END_OFFSET = 1,   /* stop before end_offset */
  SIFT_END_TIMESTAMP = 2 /* stop before the first message appended after end_timestamp_ms */
} sift_end;

/* A filtered read of one stream (sift/consumer.h, ConsumerOptions). Fill with
 * sift_consumer_options_init. */
typedef struct sift_consumer_options {
  size_t struct_size;        /* set by sift_consumer_options_init */
  const sift_filter* filter; /* NULL (default): every message; read only while the consumer is made */
  sift_start start;          /* SIFT_START_FIRST */
  uint64_t start_offset;
  int64_t start_timestamp_ms;
  sift_end end; /* SIFT_END_NONE */
  uint64_t end_offset;
  int64_t end_timestamp_ms;
  int follow;                 /* 0; 1: wait for appends at the end of the stream */
  uint32_t credit;            /* the most deliveries one poll returns: 256 */
  uint32_t max_scan_per_poll; /* the most messages one poll scans: 65536 */
  int skip_corrupt_chunks;    /* 0: a corrupt chunk stops the consumer (SIFT_CORRUPTION); 1: skipped */
  int skip_chunks;            /* 1: chunks whose summary rules out every message are not read */
} sift_consumer_options;

SIFT_API void sift_consumer_options_init(sift_consumer_options* options);

/* Creates a consumer of `stream`, closed with sift_consumer_close; `options` NULL means the defaults.
 * Errors: SIFT_INVALID_ARGUMENT (NULL store, stream or consumer; zero credit or max_scan_per_poll; an
 * unknown start or end kind; a struct_size this library does not know), SIFT_NOT_FOUND (no such
 * stream). */
SIFT_API sift_status sift_consumer_open(sift_store* store, const char* stream, const sift_consumer_options* options,
                                        sift_consumer** consumer, sift_error** error);

SIFT_API void sift_consumer_close(sift_consumer* consumer);

/* A batch of deliveries, reused across polls. Returns NULL when out of memory. */
SIFT_API sift_batch* sift_batch_new(void);
SIFT_API void sift_batch_free(sift_batch* batch);

/* One delivery: its offset, append time and encoded bytes. `data` points into the batch. */
typedef struct sift_delivery {
  uint64_t offset;
  int64_t timestamp_ms;
  const uint8_t* data;
  size_t size;
} sift_delivery;

/* Clears `batch` and fills it with the next deliveries: at most `credit`, after scanning at most
 * max_scan_per_poll messages. An empty batch with SIFT_OK means nothing matched in this poll's budget
 * (poll again), or, when following, nothing was appended within `wait_ms`; sift_consumer_done() says
 * when the consumer has reached its end. Deliveries stay valid until `batch` is polled into again or
 * freed (another batch may be used meanwhile to keep them).
 * Errors: SIFT_INVALID_ARGUMENT (NULL consumer or batch); the store's (SIFT_CORRUPTION for a corrupt
 * chunk, unless skipped; SIFT_IO_ERROR), after which the consumer is done and every later poll returns
 * the same error with an empty batch. A consumer reads the stream as it was when it was made, so a
 * stream deleted meanwhile still delivers. */
SIFT_API sift_status sift_consumer_poll(sift_consumer* consumer, sift_batch* batch, uint32_t wait_ms,
                                        sift_error** error);

/* The deliveries of the last poll into `batch`: *count gets their number (0 for NULL). The array is
 * owned by the batch. */
SIFT_API const sift_delivery* sift_batch_deliveries(const sift_batch* batch, size_t* count);

/* 1 once the consumer reached its end (its end bound, or the end of the stream without follow) or
 * failed; 0 otherwise (and for NULL). */
SIFT_API int sift_consumer_done(const sift_consumer* consumer);
/* The offset the consumer looks at next (0 for NULL). */
SIFT_API uint64_t sift_consumer_position(const sift_consumer* consumer);

/* What a read did (sift/consumer.h, ConsumerStats). */
typedef struct sift_scan_stats {
  uint64_t scanned;        /* messages evaluated */
  uint64_t matched;        /* messages delivered (counted) */
  uint64_t bytes;          /* bytes of the messages evaluated */
  uint64_t chunks;         /* chunks read */
  uint64_t chunks_pruned;  /* chunks skipped unread: their summary ruled out every message */
  uint64_t chunks_corrupt; /* corrupt chunks skipped (skip_corrupt_chunks) */
  uint64_t retention_lost; /* offsets retention deleted before they were read */
  uint64_t elapsed_ns;     /* time spent scanning */
} sift_scan_stats;

/* The consumer's statistics so far into *stats (zeros for a NULL consumer; nothing for a NULL stats). */
SIFT_API void sift_consumer_stats(const sift_consumer* consumer, sift_scan_stats* stats);

/* ---- Counts and decoding ----------------------------------------------------------------------- */

/* Counts the messages of `stream` that `options` selects (filter, start, end; follow must be 0), split
 * over `threads` threads (0: one per core), reading chunks whose summary cannot rule them out. *matched
 * gets the count; *stats (when not NULL) what the scan did.
 * Errors: those of sift_consumer_open and sift_consumer_poll, and SIFT_INVALID_ARGUMENT for a NULL
 * matched, a follow of 1, or more than 64 threads. */
SIFT_API sift_status sift_count(sift_store* store, const char* stream, const sift_consumer_options* options,
                                uint32_t threads, uint64_t* matched, sift_scan_stats* stats, sift_error** error);

/* The message as one line of typed JSON (docs/typed-json.md) with "offset": `offset`, no newline:
 * *json gets a NUL-terminated string freed with sift_free, *length (when not NULL) its length.
 * Errors: SIFT_INVALID_ARGUMENT (NULL data with a non-zero size, NULL json), SIFT_CORRUPTION (not a
 * message typed JSON can write; the message names the byte). */
SIFT_API sift_status sift_message_to_json(const void* data, size_t size, uint64_t offset, char** json, size_t* length,
                                          sift_error** error);

/* ---- Record files ------------------------------------------------------------------------------ */

/* One match of sift_filter_file: the record's index in the file and its bytes (valid during the call).
 * Return 0 to go on, non-zero to stop the run (which then returns SIFT_OK). */
typedef int (*sift_match_fn)(void* context, uint64_t index, const uint8_t* data, size_t size);

typedef struct sift_file_filter_options {
  size_t struct_size; /* set by sift_file_filter_options_init */
  int strict;         /* 0 (default): validate matches, and records the filter read malformed bytes in;
                         1: validate every record */
  uint64_t limit;     /* stop after this many matches (0, the default: no limit) */
} sift_file_filter_options;

SIFT_API void sift_file_filter_options_init(sift_file_filter_options* options);

/* Filters the record file at `path` (docs/record-format.md) with `filter` (NULL: every record), as
 * `sift filter` does: record framing always checked, matches validated in full. Each match goes to
 * `on_match` (NULL: count only) in record order; *stats (when not NULL) gets scanned, matched and bytes.
 * Errors: SIFT_INVALID_ARGUMENT (NULL path, a struct_size this library does not know), SIFT_NOT_FOUND
 * (no such file), SIFT_IO_ERROR (cannot read it: a folder), SIFT_MALFORMED (a truncated or oversized
 * record, or a malformed message the filter matched or, with strict, any: the message names the
 * record index and the byte); the stats count the records up to the error. */
SIFT_API sift_status sift_filter_file(const char* path, const sift_filter* filter,
                                      const sift_file_filter_options* options, sift_match_fn on_match, void* context,
                                      sift_scan_stats* stats, sift_error** error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SIFT_SIFT_H_ */
