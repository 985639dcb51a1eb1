// sift._sift: the Python binding of libsift (include/sift/sift.h, the C API), with pybind11.
//
// Deliveries are zero-copy: a Delivery views the bytes of the C batch it came in and holds that batch
// (shared), and a replay polls into a fresh batch while deliveries of the last one are still held, so
// a Delivery (and a memoryview of it) stays valid for as long as Python keeps it. Scans (poll, count,
// filter_file) run with the interpreter's lock released. Errors become sift.errors.SiftError (code,
// status name, message) or, for a filter that does not compile, sift.errors.FilterError (also clause,
// position, selector_code).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sift/sift.h"

namespace py = pybind11;

namespace {

// A C error turned into a C++ exception, then into the Python exception (see the translator below).
struct Error {
  sift_status status = SIFT_OK;
  std::string message;
  bool filter = false;
  size_t clause = 0;
  std::optional<size_t> position;
  std::string selector_code;
};

struct ErrorOwner {
  sift_error* error = nullptr;
  ~ErrorOwner() { sift_error_free(error); }
};

[[noreturn]] void Throw(sift_status status, const sift_error* error) {
  Error e;
  e.status = status;
  e.message = error != nullptr ? sift_error_message(error) : sift_status_name(status);
  size_t value = 0;
  if (sift_error_filter_clause(error, &value) != 0) {
    e.filter = true;
    e.clause = value;
  }
  if (sift_error_position(error, &value) != 0) e.position = value;
  e.selector_code = sift_error_selector_code(error);
  throw e;
}

// Runs a C call that reports through `sift_error**`, throwing on failure.
template <typename Call>
void Check(Call&& call) {
  ErrorOwner owner;
  const sift_status status = call(&owner.error);
  if (status != SIFT_OK) Throw(status, owner.error);
}

// A batch the deliveries of one poll view; freed when the last of them (and the replay) lets go.
struct Batch {
  sift_batch* batch = sift_batch_new();
  ~Batch() { sift_batch_free(batch); }
};

// Bytes filter_file copied out of the file, which its deliveries view.
struct Arena {
  std::string bytes;
};

struct Delivery {
  uint64_t offset = 0;
  int64_t timestamp_ms = 0;
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;  // the Batch or Arena holding the bytes
};

struct Filter {
  sift_filter* filter = nullptr;
  ~Filter() { sift_filter_free(filter); }
};

// The filter-set of the keyword arguments (sql, jms, properties, application_properties); null when
// none is given (every message).
std::unique_ptr<Filter> CompileFilter(const std::optional<std::string>& sql, const std::optional<std::string>& jms,
                                      const std::optional<std::string>& properties,
                                      const std::optional<std::string>& application_properties) {
  std::vector<sift_filter_clause> clauses;
  if (sql) clauses.push_back({SIFT_FILTER_SQL, sql->c_str()});
  if (jms) clauses.push_back({SIFT_FILTER_JMS, jms->c_str()});
  if (properties) clauses.push_back({SIFT_FILTER_PROPERTIES, properties->c_str()});
  if (application_properties) clauses.push_back({SIFT_FILTER_APPLICATION_PROPERTIES, application_properties->c_str()});
  if (clauses.empty()) return nullptr;
  auto out = std::make_unique<Filter>();
  Check([&](sift_error** e) { return sift_filter_compile(clauses.data(), clauses.size(), &out->filter, e); });
  return out;
}

// A property filter given as a dict is its JSON text.
std::optional<std::string> JsonText(const py::object& value) {
  if (value.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  static const py::object& dumps = *new py::object(py::module_::import("json").attr("dumps"));
  return dumps(value).cast<std::string>();
}

struct Range {
  sift_consumer_options options;
};

// start: None or "first", "last", "next", an offset N >= 0, or -N (the last N messages);
// start_timestamp_ms overrides it. end: None or an offset (exclusive); end_timestamp_ms likewise.
void SetRange(sift_consumer_options* o, const py::object& start, const py::object& end,
              std::optional<int64_t> start_timestamp_ms, std::optional<int64_t> end_timestamp_ms) {
  if (start_timestamp_ms) {
    o->start = SIFT_START_TIMESTAMP;
    o->start_timestamp_ms = *start_timestamp_ms;
  } else if (start.is_none()) {
    o->start = SIFT_START_FIRST;
  } else if (py::isinstance<py::str>(start)) {
    const std::string s = start.cast<std::string>();
    if (s == "first") {
      o->start = SIFT_START_FIRST;
    } else if (s == "last") {
      o->start = SIFT_START_LAST;
    } else if (s == "next") {
      o->start = SIFT_START_NEXT;
    } else {
      throw py::value_error("start: expected 'first', 'last', 'next', an offset or -N, got '" + s + "'");
    }
  } else {
    const int64_t n = start.cast<int64_t>();
    if (n >= 0) {
      o->start = SIFT_START_OFFSET;
      o->start_offset = static_cast<uint64_t>(n);
    } else {
      o->start = SIFT_START_FROM_END;
      o->start_offset = static_cast<uint64_t>(-n);
    }
  }
  if (end_timestamp_ms) {
    o->end = SIFT_END_TIMESTAMP;
    o->end_timestamp_ms = *end_timestamp_ms;
  } else if (!end.is_none()) {
    const int64_t n = end.cast<int64_t>();
    if (n < 0) throw py::value_error("end: expected an offset >= 0");
    o->end = SIFT_END_OFFSET;
    o->end_offset = static_cast<uint64_t>(n);
  }
}

struct Store;

class Replay {
 public:
  Replay(std::shared_ptr<Store> store, sift_consumer* consumer, uint32_t wait_ms)
      : store_(std::move(store)), consumer_(consumer), wait_ms_(wait_ms) {}
  ~Replay() { sift_consumer_close(consumer_); }

  Delivery Next() {
    while (index_ >= count_) {
      if (consumer_ == nullptr || sift_consumer_done(consumer_) != 0) throw py::stop_iteration();
      // A batch whose deliveries Python still holds is kept for them; the next poll gets a new one.
      if (!batch_ || batch_.use_count() > 1) {
        batch_ = std::make_shared<Batch>();
        if (batch_->batch == nullptr) throw std::bad_alloc();
      }
      ErrorOwner owner;
      sift_status status;
      {
        py::gil_scoped_release unlocked;
        status = sift_consumer_poll(consumer_, batch_->batch, wait_ms_, &owner.error);
      }
      if (status != SIFT_OK) Throw(status, owner.error);
      deliveries_ = sift_batch_deliveries(batch_->batch, &count_);
      index_ = 0;
      if (count_ == 0 && PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    const sift_delivery& d = deliveries_[index_++];
    return Delivery{d.offset, d.timestamp_ms, d.data, d.size, batch_};
  }

  uint64_t position() const { return sift_consumer_position(consumer_); }
  py::dict stats() const;
  void Close() {
    sift_consumer_close(consumer_);
    consumer_ = nullptr;
    count_ = index_ = 0;
  }

 private:
  std::shared_ptr<Store> store_;
  sift_consumer* consumer_;
  uint32_t wait_ms_;
  std::shared_ptr<Batch> batch_;
  const sift_delivery* deliveries_ = nullptr;
  size_t count_ = 0;
  size_t index_ = 0;
};

py::dict StatsDict(const sift_scan_stats& s) {
  py::dict d;
  d["scanned"] = s.scanned;
  d["matched"] = s.matched;
  d["bytes"] = s.bytes;
  d["chunks"] = s.chunks;
  d["chunks_pruned"] = s.chunks_pruned;
  d["chunks_corrupt"] = s.chunks_corrupt;
  d["retention_lost"] = s.retention_lost;
  d["elapsed_ns"] = s.elapsed_ns;
  return d;
}

py::dict Replay::stats() const {
  sift_scan_stats s;
  sift_consumer_stats(consumer_, &s);
  return StatsDict(s);
}

struct Store : std::enable_shared_from_this<Store> {
  sift_store* store = nullptr;
  std::string path;
  ~Store() { sift_store_close(store); }

  sift_store* get() const {
    if (store == nullptr) {
      Error e;
      e.status = SIFT_INVALID_ARGUMENT;
      e.message = "store '" + path + "' is closed";
      throw e;
    }
    return store;
  }
};

std::shared_ptr<Store> OpenStore(const std::string& path, bool create, bool read_only, bool sync, bool validate) {
  sift_store_options options;
  sift_store_options_init(&options);
  options.create_if_missing = create ? 1 : 0;
  options.read_only = read_only ? 1 : 0;
  options.sync = sync ? 1 : 0;
  options.validate = validate ? 1 : 0;
  auto out = std::make_shared<Store>();
  out->path = path;
  Check([&](sift_error** e) { return sift_store_open(path.c_str(), &options, &out->store, e); });
  return out;
}

py::buffer_info BufferOf(const py::buffer& data) {
  py::buffer_info info = data.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize)) {
    throw py::value_error("a message must be a contiguous bytes-like object");
  }
  return info;
}

// The buffer of a Delivery: its bytes, read-only, with the delivery as the owner the view holds.
int DeliveryBuffer(PyObject* self, Py_buffer* view, int flags) {
  try {
    const Delivery& d = py::handle(self).cast<const Delivery&>();
    return PyBuffer_FillInfo(view, self, const_cast<uint8_t*>(d.data), static_cast<Py_ssize_t>(d.size),
                             /*readonly=*/1, flags);
  } catch (const std::exception&) {
    PyErr_SetString(PyExc_BufferError, "not a sift.Delivery");
    view->obj = nullptr;
    return -1;
  }
}

}  // namespace

PYBIND11_MODULE(_sift, m) {
  m.doc() = "The compiled part of the sift package (see help(sift)).";
  m.attr("__version__") = sift_version();

  py::module_ errors = py::module_::import("sift.errors");
  // Kept for the life of the process (never destroyed: the interpreter may be gone by then).
  static const py::object& sift_error_class = *new py::object(errors.attr("SiftError"));
  static const py::object& filter_error_class = *new py::object(errors.attr("FilterError"));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object position = e.position ? py::cast(*e.position) : py::none();
      py::object instance = e.filter
                                ? filter_error_class(e.message, static_cast<int>(e.status), sift_status_name(e.status),
                                                     e.clause, position, e.selector_code)
                                : sift_error_class(e.message, static_cast<int>(e.status), sift_status_name(e.status));
      PyErr_SetObject(e.filter ? filter_error_class.ptr() : sift_error_class.ptr(), instance.ptr());
    }
  });

  py::class_<Delivery> delivery(m, "Delivery", py::buffer_protocol(),
                                "One message a filter matched: its offset, append time and encoded bytes (zero-copy).");
  delivery.def_readonly("offset", &Delivery::offset, "The stream offset (or, from filter_file, the record index).")
      .def_readonly("timestamp_ms", &Delivery::timestamp_ms, "Append time, ms since the Unix epoch (0 from a file).")
      .def_property_readonly(
          "bytes",
          [](const py::object& self) { return py::reinterpret_steal<py::object>(PyMemoryView_FromObject(self.ptr())); },
          "The encoded AMQP 1.0 message as a read-only memoryview, without a copy.")
      .def("__len__", [](const Delivery& d) { return d.size; })
      .def(
          "json_text",
          [](const Delivery& d) {
            char* text = nullptr;
            size_t length = 0;
            Check([&](sift_error** e) { return sift_message_to_json(d.data, d.size, d.offset, &text, &length, e); });
            py::str out(text, length);
            sift_free(text);
            return out;
          },
          "The message as one line of typed JSON (docs/typed-json.md), with its offset.")
      .def("__repr__", [](const Delivery& d) {
        return "<sift.Delivery offset=" + std::to_string(d.offset) + " bytes=" + std::to_string(d.size) + ">";
      });

  // The buffer protocol, read-only bytes, filled in directly: pybind11's def_buffer builds a buffer_info
  // (with vectors for shape and strides) on every request, which cost a third of a replay loop that
  // reads .bytes.
  reinterpret_cast<PyHeapTypeObject*>(delivery.ptr())->as_buffer.bf_getbuffer = DeliveryBuffer;
  reinterpret_cast<PyHeapTypeObject*>(delivery.ptr())->as_buffer.bf_releasebuffer = nullptr;

  py::class_<Replay>(m, "Replay", "An iterator over the deliveries of a filtered read (Store.replay).")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Replay::Next)
      .def_property_readonly("position", &Replay::position, "The offset the read looks at next.")
      .def("stats", &Replay::stats, "What the read did so far: scanned, matched, bytes, chunks, ...")
      .def("close", &Replay::Close, "Ends the read and releases its consumer.");

  py::class_<Store, std::shared_ptr<Store>>(m, "_Store")
      .def(py::init(&OpenStore), py::arg("path"), py::arg("create") = true, py::arg("read_only") = false,
           py::arg("sync") = true, py::arg("validate") = true)
      .def_readonly("path", &Store::path)
      .def("close",
           [](Store& s) {
             sift_store_close(s.store);
             s.store = nullptr;
           })
      .def("streams",
           [](const Store& s) {
             char** names = nullptr;
             Check([&](sift_error** e) { return sift_stream_list(s.get(), &names, e); });
             std::vector<std::string> out;
             for (char** n = names; *n != nullptr; ++n) out.emplace_back(*n);
             sift_free(names);
             return out;
           })
      .def(
          "create_stream",
          [](const Store& s, const std::string& name, uint64_t max_bytes, int64_t max_age_ms) {
            sift_retention r{max_bytes, max_age_ms};
            Check([&](sift_error** e) { return sift_stream_create(s.get(), name.c_str(), &r, e); });
          },
          py::arg("name"), py::arg("max_bytes") = 0, py::arg("max_age_ms") = 0)
      .def("delete_stream",
           [](const Store& s, const std::string& name) {
             Check([&](sift_error** e) { return sift_stream_delete(s.get(), name.c_str(), e); });
           })
      .def(
          "set_retention",
          [](const Store& s, const std::string& name, uint64_t max_bytes, int64_t max_age_ms) {
            sift_retention r{max_bytes, max_age_ms};
            Check([&](sift_error** e) { return sift_stream_set_retention(s.get(), name.c_str(), &r, e); });
          },
          py::arg("name"), py::arg("max_bytes") = 0, py::arg("max_age_ms") = 0)
      .def("stream_info",
           [](const Store& s, const std::string& name) {
             sift_stream_info i;
             Check([&](sift_error** e) { return sift_stream_info_get(s.get(), name.c_str(), &i, e); });
             py::dict d;
             d["first_offset"] = i.first_offset;
             d["next_offset"] = i.next_offset;
             d["message_count"] = i.message_count;
             d["chunk_count"] = i.chunk_count;
             d["bytes"] = i.bytes;
             d["raw_bytes"] = i.raw_bytes;
             d["first_timestamp_ms"] = i.first_timestamp_ms;
             d["last_timestamp_ms"] = i.last_timestamp_ms;
             d["max_bytes"] = i.retention.max_bytes;
             d["max_age_ms"] = i.retention.max_age_ms;
             return d;
           })
      .def("flush", [](const Store& s) { Check([&](sift_error** e) { return sift_store_flush(s.get(), e); }); })
      .def("append",
           [](const Store& s, const std::string& stream, const py::buffer& data) {
             py::buffer_info info = BufferOf(data);
             uint64_t offset = 0;
             sift_store* store = s.get();
             ErrorOwner owner;
             sift_status status;
             {
               py::gil_scoped_release unlocked;
               status = sift_append(store, stream.c_str(), info.ptr, static_cast<size_t>(info.size * info.itemsize),
                                    &offset, &owner.error);
             }
             if (status != SIFT_OK) Throw(status, owner.error);
             return offset;
           })
      .def("append_batch",
           [](const Store& s, const std::string& stream, const py::iterable& messages) {
             std::vector<py::buffer_info> infos;
             for (py::handle h : messages) infos.push_back(BufferOf(py::reinterpret_borrow<py::buffer>(h)));
             std::vector<sift_bytes> views(infos.size());
             for (size_t i = 0; i < infos.size(); ++i) {
               views[i] = {infos[i].ptr, static_cast<size_t>(infos[i].size * infos[i].itemsize)};
             }
             std::vector<sift_append_outcome> outcomes(infos.size());
             sift_store* store = s.get();
             ErrorOwner owner;
             sift_status status;
             {
               py::gil_scoped_release unlocked;
               status =
                   sift_append_batch(store, stream.c_str(), views.data(), views.size(), outcomes.data(), &owner.error);
             }
             // Each outcome: the offset, or the error (an exception instance) of a refused message.
             py::list out;
             for (sift_append_outcome& o : outcomes) {
               if (o.status == SIFT_OK) {
                 out.append(o.offset);
               } else {
                 out.append(sift_error_class(sift_error_message(o.error), static_cast<int>(o.status),
                                             sift_status_name(o.status)));
               }
               sift_error_free(o.error);
             }
             if (status != SIFT_OK && status != SIFT_INVALID_ARGUMENT) return out;  // every outcome says it
             if (status != SIFT_OK) Throw(status, owner.error);
             return out;
           })
      .def(
          "replay",
          [](const std::shared_ptr<Store>& s, const std::string& stream, std::optional<std::string> sql,
             std::optional<std::string> jms, const py::object& properties, const py::object& application_properties,
             const py::object& start, const py::object& end, std::optional<int64_t> start_timestamp_ms,
             std::optional<int64_t> end_timestamp_ms, bool follow, uint32_t credit, double wait) {
            std::unique_ptr<Filter> filter =
                CompileFilter(sql, jms, JsonText(properties), JsonText(application_properties));
            sift_consumer_options o;
            sift_consumer_options_init(&o);
            o.filter = filter ? filter->filter : nullptr;
            SetRange(&o, start, end, start_timestamp_ms, end_timestamp_ms);
            o.follow = follow ? 1 : 0;
            o.credit = credit;
            sift_consumer* consumer = nullptr;
            Check([&](sift_error** e) { return sift_consumer_open(s->get(), stream.c_str(), &o, &consumer, e); });
            return std::make_unique<Replay>(s, consumer, static_cast<uint32_t>(wait * 1000));
          },
          py::arg("stream"), py::kw_only(), py::arg("sql") = py::none(), py::arg("jms") = py::none(),
          py::arg("properties") = py::none(), py::arg("application_properties") = py::none(),
          py::arg("start") = py::none(), py::arg("end") = py::none(), py::arg("start_timestamp_ms") = py::none(),
          py::arg("end_timestamp_ms") = py::none(), py::arg("follow") = false, py::arg("credit") = 1024,
          py::arg("wait") = 0.2)
      .def(
          "count",
          [](const Store& s, const std::string& stream, std::optional<std::string> sql, std::optional<std::string> jms,
             const py::object& properties, const py::object& application_properties, const py::object& start,
             const py::object& end, std::optional<int64_t> start_timestamp_ms, std::optional<int64_t> end_timestamp_ms,
             uint32_t threads, bool with_stats) -> py::object {
            std::unique_ptr<Filter> filter =
                CompileFilter(sql, jms, JsonText(properties), JsonText(application_properties));
            sift_consumer_options o;
            sift_consumer_options_init(&o);
            o.filter = filter ? filter->filter : nullptr;
            SetRange(&o, start, end, start_timestamp_ms, end_timestamp_ms);
            uint64_t matched = 0;
            sift_scan_stats stats;
            sift_store* store = s.get();
            ErrorOwner owner;
            sift_status status;
            {
              py::gil_scoped_release unlocked;
              status = sift_count(store, stream.c_str(), &o, threads, &matched, &stats, &owner.error);
            }
            if (status != SIFT_OK) Throw(status, owner.error);
            if (with_stats) return py::make_tuple(matched, StatsDict(stats));
            return py::cast(matched);
          },
          py::arg("stream"), py::kw_only(), py::arg("sql") = py::none(), py::arg("jms") = py::none(),
          py::arg("properties") = py::none(), py::arg("application_properties") = py::none(),
          py::arg("start") = py::none(), py::arg("end") = py::none(), py::arg("start_timestamp_ms") = py::none(),
          py::arg("end_timestamp_ms") = py::none(), py::arg("threads") = 0, py::arg("stats") = false);

  m.def(
      "filter_file",
      [](const std::string& path, std::optional<std::string> sql, std::optional<std::string> jms,
         const py::object& properties, const py::object& application_properties, bool strict, uint64_t limit,
         bool count_only) -> py::object {
        std::unique_ptr<Filter> filter =
            CompileFilter(sql, jms, JsonText(properties), JsonText(application_properties));
        sift_file_filter_options o;
        sift_file_filter_options_init(&o);
        o.strict = strict ? 1 : 0;
        o.limit = limit;
        struct Collected {
          std::shared_ptr<Arena> arena = std::make_shared<Arena>();
          std::vector<std::pair<uint64_t, size_t>> matches;  // index, start in the arena
        } collected;
        auto collect = [](void* context, uint64_t index, const uint8_t* data, size_t size) -> int {
          auto* c = static_cast<Collected*>(context);
          c->matches.emplace_back(index, c->arena->bytes.size());
          c->arena->bytes.append(reinterpret_cast<const char*>(data), size);
          return 0;
        };
        sift_scan_stats stats;
        ErrorOwner owner;
        sift_status status;
        {
          py::gil_scoped_release unlocked;
          status = sift_filter_file(path.c_str(), filter ? filter->filter : nullptr, &o,
                                    count_only ? nullptr : +collect, &collected, &stats, &owner.error);
        }
        if (status != SIFT_OK) Throw(status, owner.error);
        if (count_only) return py::cast(stats.matched);
        py::list out;
        const auto* base = reinterpret_cast<const uint8_t*>(collected.arena->bytes.data());
        const size_t total = collected.arena->bytes.size();
        for (size_t i = 0; i < collected.matches.size(); ++i) {
          const size_t begin = collected.matches[i].second;
          const size_t next = i + 1 < collected.matches.size() ? collected.matches[i + 1].second : total;
          out.append(Delivery{collected.matches[i].first, 0, base + begin, next - begin, collected.arena});
        }
        return out;
      },
      py::arg("path"), py::kw_only(), py::arg("sql") = py::none(), py::arg("jms") = py::none(),
      py::arg("properties") = py::none(), py::arg("application_properties") = py::none(), py::arg("strict") = false,
      py::arg("limit") = 0, py::arg("count") = false);

  m.def(
      "check_filter",
      [](std::optional<std::string> sql, std::optional<std::string> jms, const py::object& properties,
         const py::object& application_properties) {
        std::unique_ptr<Filter> filter =
            CompileFilter(sql, jms, JsonText(properties), JsonText(application_properties));
        if (!filter) return std::string();
        char* text = nullptr;
        Check([&](sift_error** e) { return sift_filter_explain(filter->filter, &text, e); });
        std::string out(text);
        sift_free(text);
        return out;
      },
      py::kw_only(), py::arg("sql") = py::none(), py::arg("jms") = py::none(), py::arg("properties") = py::none(),
      py::arg("application_properties") = py::none());
}
