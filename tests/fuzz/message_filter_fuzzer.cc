// libFuzzer target: arbitrary bytes as a message through engine::MessageFilter for selectors of
// every shape the text prefilter derives requirements from (=, IN of few and of many texts sharing
// a prefix, LIKE prefix, LIKE starting with a literal and tested at each candidate value, property
// filters), in every section, with the prefilter on every message (no calibration) and with it
// calibrating. A finding is a crash, an ASan / UBSan report, or a message on which a filter's answer
// differs from the plain evaluation of its selector (the prefilter must never reject a TRUE).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "amqp/validate.h"
#include "engine/message_field_source.h"
#include "engine/message_filter.h"
#include "selector/eval_context.h"
#include "selector/selector.h"

namespace {

using sift::selector::Selector;

std::vector<Selector> Selectors() {
  std::string many = "k IN (";
  for (int i = 0; i < 20; ++i) many += (i ? ", 'id-" : "'id-") + std::to_string(i * 7) + "'";
  many += ")";
  std::vector<Selector> out;
  for (const std::string& text :
       {std::string("region = 'eu-west'"), std::string("color IN ('red', 'blue') AND n > 1"), many,
        std::string("p.subject LIKE 'orders.%'"), std::string("customer LIKE 'cust-_1%7'"),
        std::string("a.x.y LIKE 'ab_%' AND m.[x-opt-k] = 'zz'"), std::string("k LIKE 'ab%q%ab' OR k = 'x'"),
        std::string("f.[x-hash] = 'abc' AND d.[x-trace] LIKE 'tr%'")}) {
    out.push_back(Selector::Compile(text));
    if (!out.back().ok()) std::abort();
  }
  std::vector<std::pair<std::string, sift::selector::Value>> app = {{"region", sift::selector::Value::String("&p:eu")},
                                                                    {"k", sift::selector::Value::String("&s:-7")}};
  out.push_back(Selector::CompileApplicationPropertiesFilter(app));
  if (!out.back().ok()) std::abort();
  return out;
}

struct Filters {
  std::vector<Selector> selectors = Selectors();
  std::vector<std::unique_ptr<sift::engine::MessageFilter>> always;      // prefilter on every message
  std::vector<std::unique_ptr<sift::engine::MessageFilter>> calibrated;  // as the engine runs it
  std::vector<std::unique_ptr<sift::engine::MessageFieldSource>> sources;
  Filters() {
    for (const Selector& s : selectors) {
      always.push_back(std::make_unique<sift::engine::MessageFilter>(
          s, sift::engine::MessageFilterOptions{.prefilter = true, .adaptive = false}));
      calibrated.push_back(std::make_unique<sift::engine::MessageFilter>(s));
      sources.push_back(std::make_unique<sift::engine::MessageFieldSource>(s.fields()));
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Filters* filters = new Filters();
  static sift::selector::EvalContext* context = new sift::selector::EvalContext();
  const std::span<const uint8_t> bytes(data, size);
  const bool valid = sift::amqp::Validate(bytes).ok();
  for (size_t i = 0; i < filters->selectors.size(); ++i) {
    filters->sources[i]->Reset(bytes);
    const bool want = filters->selectors[i].Evaluate(*filters->sources[i], *context) == sift::selector::Truth::kTrue;
    if (filters->always[i]->Matches(bytes) != want) std::abort();
    if (filters->calibrated[i]->Matches(bytes) != want) std::abort();
    // A read said to meet malformed bytes is one validation refuses: `sift filter` relies on it to
    // validate exactly the records whose answer rests on broken bytes.
    if (filters->always[i]->read_malformed() && valid) std::abort();
  }
  return 0;
}
