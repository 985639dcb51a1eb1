/* proton_decode: the decode-everything baseline as a whole process, for timing sift's commands against.
 *
 *   proton_decode FILE                  decode every record, print the record count
 *   proton_decode FILE KEY VALUE        ... and count the records whose application property KEY is the
 *                                       string VALUE (what `sift filter --sql "KEY = 'VALUE'"` decides)
 *
 * FILE is a record file (each record a 4-byte big-endian length, then one encoded AMQP 1.0 message),
 * read through a memory map as sift reads it. Every record goes through pn_message_decode into one
 * reused pn_message_t, as a broker that decodes everything does; the predicate is then read from the
 * decoded application-properties map. Exit 0 on success, 2 on a bad argument or a record Proton refuses
 * (named by index).
 */
#include <fcntl.h>
#include <proton/codec.h>
#include <proton/message.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* True when the map in `props` has the string key `key` whose value is the string `value`. */
static int property_equals(pn_data_t *props, const char *key, size_t key_len, const char *value,
                           size_t value_len) {
  pn_data_rewind(props);
  if (!pn_data_next(props) || pn_data_type(props) != PN_MAP) return 0;
  size_t n = pn_data_get_map(props);
  pn_data_enter(props);
  int found = 0;
  for (size_t i = 0; i < n; i += 2) {
    if (!pn_data_next(props)) break;
    int key_match = 0;
    if (pn_data_type(props) == PN_STRING) {
      pn_bytes_t k = pn_data_get_string(props);
      key_match = k.size == key_len && memcmp(k.start, key, key_len) == 0;
    }
    if (!pn_data_next(props)) break;
    if (key_match) {
      if (pn_data_type(props) == PN_STRING) {
        pn_bytes_t v = pn_data_get_string(props);
        found = v.size == value_len && memcmp(v.start, value, value_len) == 0;
      }
      break;
    }
  }
  pn_data_exit(props);
  return found;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: proton_decode FILE [KEY VALUE]\n");
    return 2;
  }
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    perror(argv[1]);
    return 2;
  }
  size_t size = (size_t)st.st_size;
  const uint8_t *data = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
  if (size && data == MAP_FAILED) {
    perror(argv[1]);
    return 2;
  }
  madvise((void *)data, size, MADV_SEQUENTIAL);
  const char *key = argc == 4 ? argv[2] : NULL;
  const char *value = argc == 4 ? argv[3] : NULL;
  size_t key_len = key ? strlen(key) : 0, value_len = value ? strlen(value) : 0;
  pn_message_t *msg = pn_message();
  uint64_t records = 0, matches = 0;
  size_t p = 0;
  while (p < size) {
    if (size - p < 4) {
      fprintf(stderr, "proton_decode: %s: record %llu: truncated length\n", argv[1], (unsigned long long)records);
      return 2;
    }
    uint32_t n = ((uint32_t)data[p] << 24) | ((uint32_t)data[p + 1] << 16) | ((uint32_t)data[p + 2] << 8) | data[p + 3];
    p += 4;
    if (n > size - p) {
      fprintf(stderr, "proton_decode: %s: record %llu: truncated\n", argv[1], (unsigned long long)records);
      return 2;
    }
    if (pn_message_decode(msg, (const char *)data + p, n) != 0) {
      fprintf(stderr, "proton_decode: %s: record %llu: pn_message_decode failed\n", argv[1],
              (unsigned long long)records);
      return 2;
    }
    if (key && property_equals(pn_message_properties(msg), key, key_len, value, value_len)) ++matches;
    p += n;
    ++records;
  }
  pn_message_free(msg);
  if (key) {
    printf("%llu\n", (unsigned long long)matches);
  } else {
    printf("%llu\n", (unsigned long long)records);
  }
  return 0;
}
