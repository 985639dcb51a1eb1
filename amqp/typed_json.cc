// Typed JSON messages to AMQP 1.0 bytes (EncodeTypedJson); see typed_json.h and
// docs/typed-json.md. The other direction, DecodeToTypedJson, is typed_json_writer.cc.
#include "amqp/typed_json.h"

#include <proton/codec.h>
#include <proton/error.h>

#include <array>
#include <exception>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "base/byte_order.h"
#include "amqp/json_value.h"
#include "amqp/limits.h"
#include "amqp/proton_sections.h"
#include "amqp/typed_json_types.h"

namespace sift::amqp {
namespace {

struct DataDeleter {
  void operator()(pn_data_t* data) const { pn_data_free(data); }
};
using DataPtr = std::unique_ptr<pn_data_t, DataDeleter>;

DataPtr NewData() { return DataPtr(pn_data(0)); }

constexpr std::string_view kMessageKeys[] = {
    "offset", "header", "delivery_annotations", "message_annotations", "properties", "application_properties",
    "body",   "footer"};

bool Fail(std::string_view where, std::string_view why, std::string* error) {
  *error = where.empty() ? std::string(why) : fmt::format("{}: {}", where, why);
  return false;
}

bool AppendEncoded(pn_data_t* data, std::string_view where, std::vector<uint8_t>* out, std::string* error) {
  // A pn_data_t holds at most kMaxSectionNodes values and refuses every one past them with a return
  // code the builders do not look at: a full one may have lost some (a map of 100,000 keys kept
  // 32,766), so it is refused whole rather than encoded short.
  if (pn_data_size(data) >= kMaxSectionNodes) {
    return Fail(where, fmt::format("more values than Proton can hold in one section ({} or more)", kMaxSectionNodes),
                error);
  }
  ssize_t size = pn_data_encoded_size(data);
  size_t at = out->size();
  if (size >= 0) {
    out->resize(at + static_cast<size_t>(size));
    ssize_t written = pn_data_encode(data, reinterpret_cast<char*>(out->data() + at), static_cast<size_t>(size));
    if (written == size) return true;
    size = written;
  }
  out->resize(at);
  return Fail(where, fmt::format("Proton cannot encode the value ({})", pn_code(static_cast<int>(size))), error);
}

void AppendDescriptor(ProtonSectionKind kind, std::vector<uint8_t>* out) {
  // 0x00 descriptor constructor, smallulong code (core part 1, section 1.2; as Proton writes it).
  out->insert(out->end(), {0x00, 0x53, static_cast<uint8_t>(kind)});
}

// Encodes the header or properties list the way Proton's pn_message_encode does: each field with
// Proton's scalar encoding, absent fields as null, trailing nulls dropped, list0 when no field is
// left, list8 when the size (count byte included) fits in a byte, list32 otherwise.
template <size_t N>
bool EncodeFieldList(const Json& json, const std::array<TypedJsonField, N>& fields, std::string_view name,
                     ProtonSectionKind kind, std::vector<uint8_t>* out, std::string* error) {
  if (!json.is_object()) {
    return Fail(name, fmt::format("expected an object, found {}", json.type_name()), error);
  }
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    bool known = false;
    for (const TypedJsonField& f : fields) known = known || f.key == key;
    if (!known) return Fail(name, fmt::format("unknown key \"{}\"", key), error);
  }
  std::vector<uint8_t> body;
  size_t count = 0;
  size_t pending_nulls = 0;
  for (const TypedJsonField& field : fields) {
    auto it = json.find(std::string(field.key));
    if (it == json.end() || it->is_null()) {
      ++pending_nulls;
      continue;
    }
    body.insert(body.end(), pending_nulls, 0x40);
    count += pending_nulls + 1;
    pending_nulls = 0;
    DataPtr data = NewData();
    std::string path = fmt::format("{}.{}", name, field.key);
    if (!PutJson(*it, field.hint, path, data.get(), error)) return false;
    if (!AppendEncoded(data.get(), path, &body, error)) return false;
  }
  AppendDescriptor(kind, out);
  if (count == 0) {
    out->push_back(0x45);  // list0
  } else if (body.size() + 1 <= 255 && count <= 255) {
    out->insert(out->end(), {0xc0, static_cast<uint8_t>(body.size() + 1), static_cast<uint8_t>(count)});
  } else {
    uint8_t list32[9] = {0xd0};  // constructor, size (the count's 4 bytes included), count
    base::StoreBE32(list32 + 1, static_cast<uint32_t>(body.size() + 4));
    base::StoreBE32(list32 + 5, static_cast<uint32_t>(count));
    out->insert(out->end(), list32, list32 + 9);
  }
  out->insert(out->end(), body.begin(), body.end());
  return true;
}

// A described section holding `put`'s value, encoded by Proton.
template <typename Put>
bool EncodeSection(ProtonSectionKind kind, Put put, std::vector<uint8_t>* out, std::string* error) {
  DataPtr data = NewData();
  pn_data_put_described(data.get());
  pn_data_enter(data.get());
  pn_data_put_ulong(data.get(), static_cast<uint64_t>(kind));
  if (!put(data.get())) return false;
  pn_data_exit(data.get());
  return AppendEncoded(data.get(), ProtonSectionName(kind), out, error);
}

bool EncodeMapSection(const Json& json, ProtonSectionKind kind, MapKeys keys, std::string_view name,
                      std::vector<uint8_t>* out, std::string* error) {
  std::string path(name);
  return EncodeSection(
      kind, [&](pn_data_t* data) { return PutSectionMap(json, keys, path, data, error); }, out, error);
}

bool EncodeBinarySection(const Json& text, std::string& path, std::vector<uint8_t>* out, std::string* error) {
  if (!text.is_string()) {
    return Fail(path, fmt::format("data must be base64 text, found {}", text.type_name()), error);
  }
  std::string raw, why;
  if (!DecodeBinaryText(text.get_ref<const std::string&>(), false, &raw, &why)) {
    return Fail(path, why, error);
  }
  return EncodeSection(
      ProtonSectionKind::kData,
      [&](pn_data_t* data) {
        pn_data_put_binary(data, pn_bytes(raw.size(), raw.data()));
        return true;
      },
      out, error);
}

bool EncodeSequenceSection(const Json& items, std::string& path, std::vector<uint8_t>* out, std::string* error) {
  if (!items.is_array()) {
    return Fail(path, fmt::format("sequence must be an array, found {}", items.type_name()), error);
  }
  return EncodeSection(
      ProtonSectionKind::kAmqpSequence,
      [&](pn_data_t* data) { return PutJson(items, kNaturalPlainHint, path, data, error); }, out, error);
}

// body: one of {"data": base64 | [base64, ...]}, {"value": typed}, {"sequence": [...]},
// {"sequences": [[...], ...]}, {"text": "..."} (core part 3, sections 3.2.6 - 3.2.8).
bool EncodeBody(const Json& body, std::vector<uint8_t>* out, std::string* error) {
  if (!body.is_object()) {
    return Fail("body", fmt::format("expected an object, found {}", body.type_name()), error);
  }
  if (body.size() != 1) {
    return Fail("body",
                "expected exactly one of \"data\", \"value\", \"sequence\", \"sequences\", "
                "\"text\"",
                error);
  }
  const std::string& key = body.begin().key();
  const Json& value = body.begin().value();
  std::string path = "body." + key;
  if (key == "data") {
    if (!value.is_array()) return EncodeBinarySection(value, path, out, error);
    if (value.empty()) return Fail(path, "a list of data sections must not be empty", error);
    for (size_t i = 0; i < value.size(); ++i) {
      std::string item_path = fmt::format("{}[{}]", path, i);
      if (!EncodeBinarySection(value[i], item_path, out, error)) return false;
    }
    return true;
  }
  if (key == "sequence") return EncodeSequenceSection(value, path, out, error);
  if (key == "sequences") {
    if (!value.is_array() || value.empty()) {
      return Fail(path, "sequences must be a non-empty array of arrays", error);
    }
    for (size_t i = 0; i < value.size(); ++i) {
      std::string item_path = fmt::format("{}[{}]", path, i);
      if (!EncodeSequenceSection(value[i], item_path, out, error)) return false;
    }
    return true;
  }
  if (key == "value" || key == "text") {
    if (key == "text" && !value.is_string()) {
      return Fail(path, fmt::format("text must be a string, found {}", value.type_name()), error);
    }
    return EncodeSection(
        ProtonSectionKind::kAmqpValue,
        [&](pn_data_t* data) { return PutJson(value, kNaturalPlainHint, path, data, error); }, out, error);
  }
  return Fail("body",
              fmt::format("unknown key \"{}\" (expected \"data\", \"value\", \"sequence\", "
                          "\"sequences\" or \"text\")",
                          key),
              error);
}

bool EncodeMessage(const Json& message, std::vector<uint8_t>* out, std::string* error) {
  if (!message.is_object()) {
    return Fail("", fmt::format("a message must be a JSON object, found {}", message.type_name()), error);
  }
  for (auto it = message.begin(); it != message.end(); ++it) {
    const std::string& key = it.key();
    bool known = false;
    for (std::string_view k : kMessageKeys) known = known || k == key;
    if (!known) return Fail("", fmt::format("unknown key \"{}\" in the message", key), error);
  }
  if (auto it = message.find("offset"); it != message.end() && !it->is_number_unsigned()) {
    return Fail("offset", "must be a non-negative integer", error);
  }
  auto section = [&](const char* key) -> const Json* {
    auto it = message.find(key);
    return it == message.end() || it->is_null() ? nullptr : &*it;
  };
  if (const Json* j = section("header")) {
    if (!EncodeFieldList(*j, kHeaderJsonFields, "header", ProtonSectionKind::kHeader, out, error)) return false;
  }
  if (const Json* j = section("delivery_annotations")) {
    if (!EncodeMapSection(*j, ProtonSectionKind::kDeliveryAnnotations, MapKeys::kAnnotations, "delivery_annotations",
                          out, error)) {
      return false;
    }
  }
  if (const Json* j = section("message_annotations")) {
    if (!EncodeMapSection(*j, ProtonSectionKind::kMessageAnnotations, MapKeys::kAnnotations, "message_annotations", out,
                          error)) {
      return false;
    }
  }
  if (const Json* j = section("properties")) {
    if (!EncodeFieldList(*j, kPropertiesJsonFields, "properties", ProtonSectionKind::kProperties, out, error)) {
      return false;
    }
  }
  if (const Json* j = section("application_properties")) {
    if (!EncodeMapSection(*j, ProtonSectionKind::kApplicationProperties, MapKeys::kStrings, "application_properties",
                          out, error)) {
      return false;
    }
  }
  if (const Json* j = section("body")) {
    if (!EncodeBody(*j, out, error)) return false;
  }
  if (const Json* j = section("footer")) {
    if (!EncodeMapSection(*j, ProtonSectionKind::kFooter, MapKeys::kAnnotations, "footer", out, error)) {
      return false;
    }
  }
  return true;
}

}  // namespace

ConversionStatus EncodeTypedJson(std::string_view json, uint64_t line, std::vector<uint8_t>* out) {
  std::string where = line > 0 ? fmt::format("line {}: ", line) : std::string();
  try {
    // The parser callback bounds nesting and refuses a key repeated in one object (which would
    // otherwise silently keep the last value).
    bool too_deep = false;
    std::string duplicate;
    std::vector<std::unordered_set<std::string>> keys;
    Json::parser_callback_t check = [&](int depth, Json::parse_event_t event, Json& parsed) {
      if (depth > kMaxJsonDepth) too_deep = true;
      if (event == Json::parse_event_t::object_start) {
        keys.emplace_back();
      } else if (event == Json::parse_event_t::object_end && !keys.empty()) {
        keys.pop_back();
      } else if (event == Json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
                 !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
        duplicate = parsed.get<std::string>();
      }
      return !too_deep;
    };
    Json message = Json::parse(json.begin(), json.end(), check);
    if (too_deep) {
      return ConversionStatus::Error(fmt::format("{}JSON nested deeper than {} levels", where, kMaxJsonDepth));
    }
    if (!duplicate.empty()) {
      return ConversionStatus::Error(
          fmt::format("{}key {} appears twice in one JSON object", where, Json(duplicate).dump()));
    }
    std::vector<uint8_t> bytes;
    std::string error;
    if (!EncodeMessage(message, &bytes, &error)) return ConversionStatus::Error(where + error);
    out->insert(out->end(), bytes.begin(), bytes.end());
    return ConversionStatus::Ok();
  } catch (const Json::parse_error& e) {
    std::string_view what = e.what();
    if (auto pos = what.find("] "); pos != std::string_view::npos) what.remove_prefix(pos + 2);
    return ConversionStatus::Error(fmt::format("{}invalid JSON at byte {}: {}", where, e.byte, what));
  } catch (const std::exception& e) {
    return ConversionStatus::Error(fmt::format("{}cannot encode the message: {}", where, e.what()));
  }
}

}  // namespace sift::amqp
