#include "engine/bulk_load.h"

#include <map>
#include <mutex>
#include <utility>

#include "base/shared_work.h"
#include "engine/stream_engine_impl.h"

namespace sift::engine {

struct IngestPreparation::Sharing {
  base::SharedWork work;
};

struct IngestPreparationAccess {
  static std::vector<std::string>* Summaries(IngestPreparation* p) { return &p->summaries_; }
  static const std::vector<std::string>* Summaries(const IngestPreparation* p) { return &p->summaries_; }
  static base::SharedWork* Work(IngestPreparation* p) { return &p->sharing_->work; }
};

IngestPreparation::IngestPreparation() : sharing_(std::make_unique<Sharing>()) {}
IngestPreparation::~IngestPreparation() = default;
IngestPreparation::IngestPreparation(IngestPreparation&&) noexcept = default;
IngestPreparation& IngestPreparation::operator=(IngestPreparation&&) noexcept = default;
void IngestPreparation::Help() { sharing_->work.Help(); }
void IngestPreparation::Close() { sharing_->work.Close(); }

Status IngestBatch(StreamEngine& engine, std::string_view stream, std::span<const std::string_view> messages,
                   uint64_t* first_offset, const IngestPreparation* prepared) {
  auto& impl = StreamEngineInternals::ImplOf(engine);
  if (impl.options.validate) {
    if (Status v = ValidateBatch(messages); !v.ok()) return v;
  }
  return AppendStatus(
      engine.path(), stream,
      impl.store->IngestBatch(stream, messages, first_offset,
                              prepared != nullptr ? IngestPreparationAccess::Summaries(prepared) : nullptr));
}

Status PrepareIngest(const StreamEngine& engine, std::span<const std::string_view> messages, IngestPreparation* out,
                     const RangeCheck& check) {
  const auto& impl = StreamEngineInternals::ImplOf(engine);
  std::vector<std::string>* summaries = IngestPreparationAccess::Summaries(out);
  base::SharedWork* share = IngestPreparationAccess::Work(out);
  if (!check) {
    return FromStorage(impl.store->PrepareIngest(messages, summaries, {}, share), "cannot prepare a bulk append",
                       engine.path());
  }
  // The caller's statuses pass through storage as opaque failures; the one reported is the caller's own
  // for the first failing range (storage checks every range before it).
  std::mutex mu;
  std::map<size_t, Status> failed;  // by the range's first message
  const storage::Status s = impl.store->PrepareIngest(
      messages, summaries,
      [&](size_t begin, size_t end) {
        Status c = check(begin, end);
        if (c.ok()) return storage::Status::OK();
        std::lock_guard<std::mutex> lock(mu);
        failed.emplace(begin, std::move(c));
        return storage::Status::InvalidArgument("check failed");
      },
      share);
  if (s.ok()) return Status::OK();
  if (!failed.empty()) return failed.begin()->second;
  return FromStorage(s, "cannot prepare a bulk append", engine.path());
}

}  // namespace sift::engine
