// Test support for amqp: encoding with Qpid Proton's C encoder (independent of the code under
// test) and hand-written byte strings for encodings Proton never produces.
#ifndef SIFT_TESTS_ENGINE_AMQP_TEST_MESSAGES_H_
#define SIFT_TESTS_ENGINE_AMQP_TEST_MESSAGES_H_

#include <proton/codec.h>
#include <proton/message.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sift::testing {

using ByteVector = std::vector<uint8_t>;

// Bytes from a list of ints: B({0x00, 0x53, 0x70}).
inline ByteVector B(std::initializer_list<int> bytes) {
  ByteVector out;
  for (int b : bytes) out.push_back(static_cast<uint8_t>(b));
  return out;
}

inline ByteVector Cat(std::initializer_list<ByteVector> parts) {
  ByteVector out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline ByteVector Text(std::string_view s) { return ByteVector(s.begin(), s.end()); }

// str8 / sym8 / vbin8 encodings of short text.
inline ByteVector Str8(std::string_view s) { return Cat({B({0xa1, static_cast<int>(s.size())}), Text(s)}); }
inline ByteVector Sym8(std::string_view s) { return Cat({B({0xa3, static_cast<int>(s.size())}), Text(s)}); }

// A section: 0x00 0x53 <code> <value>.
inline ByteVector Section(int descriptor, const ByteVector& value) { return Cat({B({0x00, 0x53, descriptor}), value}); }

// list8 / map8 around already-encoded elements.
inline ByteVector List8(int count, const ByteVector& elements) {
  return Cat({B({0xc0, static_cast<int>(elements.size() + 1), count}), elements});
}
inline ByteVector Map8(int count, const ByteVector& elements) {
  return Cat({B({0xc1, static_cast<int>(elements.size() + 1), count}), elements});
}

// Owns a pn_data_t.
class ProtonData {
 public:
  ProtonData() : data_(pn_data(16)) {}
  ~ProtonData() { pn_data_free(data_); }
  ProtonData(const ProtonData&) = delete;
  ProtonData& operator=(const ProtonData&) = delete;
  pn_data_t* get() { return data_; }
  ByteVector Encode() {
    const ssize_t n = pn_data_encoded_size(data_);
    if (n < 0) throw std::runtime_error("pn_data_encoded_size failed");
    ByteVector out(static_cast<size_t>(n));
    if (pn_data_encode(data_, reinterpret_cast<char*>(out.data()), out.size()) != n) {
      throw std::runtime_error("pn_data_encode failed");
    }
    return out;
  }

 private:
  pn_data_t* data_;
};

// Owns a pn_message_t.
class ProtonMessage {
 public:
  ProtonMessage() : msg_(pn_message()) {}
  ~ProtonMessage() { pn_message_free(msg_); }
  ProtonMessage(const ProtonMessage&) = delete;
  ProtonMessage& operator=(const ProtonMessage&) = delete;
  pn_message_t* get() { return msg_; }
  ByteVector Encode() {
    ByteVector out(256);
    for (;;) {
      size_t size = out.size();
      const int rc = pn_message_encode(msg_, reinterpret_cast<char*>(out.data()), &size);
      if (rc == 0) {
        out.resize(size);
        return out;
      }
      if (rc != PN_OVERFLOW) throw std::runtime_error("pn_message_encode failed");
      out.resize(out.size() * 2);
    }
  }

 private:
  pn_message_t* msg_;
};

inline pn_bytes_t PnBytes(std::string_view s) { return pn_bytes(s.size(), s.data()); }

// A message with every section Proton writes, fields of every kind; `n` varies the contents.
inline ByteVector RichMessage(int n) {
  ProtonMessage m;
  pn_message_t* msg = m.get();
  pn_message_set_durable(msg, n % 2 == 0);
  pn_message_set_priority(msg, static_cast<uint8_t>(n % 10));
  pn_message_set_ttl(msg, 1000u + static_cast<uint32_t>(n));
  pn_message_set_first_acquirer(msg, n % 3 == 0);
  pn_message_set_delivery_count(msg, static_cast<uint32_t>(n % 5));
  pn_atom_t id;
  id.type = PN_ULONG;
  id.u.as_ulong = 1000000u + static_cast<uint64_t>(n);
  pn_message_set_id(msg, id);
  pn_message_set_user_id(msg, PnBytes("alice"));
  const std::string to = "orders/" + std::to_string(n % 7);
  pn_message_set_address(msg, to.c_str());
  pn_message_set_subject(msg, n % 2 ? "created" : "updated");
  pn_message_set_reply_to(msg, "replies");
  pn_atom_t corr;
  corr.type = PN_STRING;
  const std::string c = "corr-" + std::to_string(n);
  corr.u.as_bytes = PnBytes(c);
  pn_message_set_correlation_id(msg, corr);
  pn_message_set_content_type(msg, "application/json");
  pn_message_set_content_encoding(msg, "utf-8");
  pn_message_set_expiry_time(msg, 1764460800000 + n);
  pn_message_set_creation_time(msg, 1764460700000 + n);
  pn_message_set_group_id(msg, "group-a");
  pn_message_set_group_sequence(msg, static_cast<pn_sequence_t>(n));
  pn_message_set_reply_to_group_id(msg, "group-r");

  pn_data_t* da = pn_message_instructions(msg);
  pn_data_put_map(da);
  pn_data_enter(da);
  pn_data_put_symbol(da, PnBytes("x-opt-trace"));
  pn_data_put_string(da, PnBytes("t-" + std::to_string(n)));
  pn_data_exit(da);

  pn_data_t* ma = pn_message_annotations(msg);
  pn_data_put_map(ma);
  pn_data_enter(ma);
  pn_data_put_symbol(ma, PnBytes("x-opt-partition"));
  pn_data_put_int(ma, n % 16);
  pn_data_put_ulong(ma, 42);
  pn_data_put_string(ma, PnBytes("by-number"));
  pn_data_exit(ma);

  pn_data_t* ap = pn_message_properties(msg);
  pn_data_put_map(ap);
  pn_data_enter(ap);
  pn_data_put_string(ap, PnBytes("region"));
  pn_data_put_string(ap, PnBytes(n % 2 ? "eu-west" : "us-east"));
  pn_data_put_string(ap, PnBytes("amount"));
  pn_data_put_long(ap, 100 + n);
  pn_data_put_string(ap, PnBytes("price"));
  pn_data_put_double(ap, 19.99 + n);
  pn_data_put_string(ap, PnBytes("vip"));
  pn_data_put_bool(ap, n % 4 == 0);
  pn_data_put_string(ap, PnBytes("tier"));
  pn_data_put_ubyte(ap, static_cast<uint8_t>(n % 3));
  pn_data_put_string(ap, PnBytes("nothing"));
  pn_data_put_null(ap);
  pn_data_exit(ap);

  pn_message_set_inferred(msg, true);  // a binary body goes out as a data section
  pn_data_t* body = pn_message_body(msg);
  const std::string payload = "{\"id\":" + std::to_string(n) + "}";
  pn_data_put_binary(body, PnBytes(payload));
  return m.Encode();
}

}  // namespace sift::testing

#endif  // SIFT_TESTS_ENGINE_AMQP_TEST_MESSAGES_H_
