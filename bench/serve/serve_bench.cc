// serve_bench: publish and filtered-consume throughput of a running `sift serve` over AMQP 1.0
// (Qpid Proton C proactor, one client thread, every link on its own connection).
//
// 1. Publish: N producers send the messages of a record file (`sift gen` output: each record a 4-byte
//    big-endian length and an encoded AMQP message, sent as is), producer p the p-th N-th slice, to
//    one stream, unsettled, within the server's credit. The phase ends when every transfer has its
//    outcome; `accepted` means durable (the server acknowledges after its fsync unless --no-sync), so
//    msgs/s published is durable throughput.
// 2. Consume: M consumers attach together at the first offset with the same SQL filter and receive
//    pre-settled deliveries until each has --expect matches (the script counts them with `sift
//    filter` on the same file). msgs/s delivered counts every consumer's matches; msgs/s scanned is
//    M times the stream's length over the same time.
//
// With --tls the client speaks TLS (the server's certificate is not verified: a loopback benchmark);
// with --user/--password it authenticates with SASL PLAIN, else SASL ANONYMOUS.
//
// Usage: serve_bench --url HOST:PORT --messages FILE --expect K [--stream NAME] [--producers N]
//                    [--consumers M] [--filter SQL] [--credit C] [--tls] [--user U --password P]
#include <proton/condition.h>
#include <proton/connection.h>
#include <proton/delivery.h>
#include <proton/event.h>
#include <proton/link.h>
#include <proton/proactor.h>
#include <proton/sasl.h>
#include <proton/session.h>
#include <proton/ssl.h>
#include <proton/terminus.h>
#include <proton/transport.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string url;
  std::string messages;
  std::string stream = "bench";
  std::string filter = "region = 'eu-west' AND amount > 500";
  uint64_t expect = 0;
  bool expect_given = false;
  uint32_t producers = 4;
  uint32_t consumers = 4;
  int credit = 1000;
  bool tls = false;
  std::string user, password;
};

struct LinkState {
  bool producer = true;
  size_t next = 0, end = 0;  // producer: records [next, end) still to send
  uint64_t outstanding = 0;  // producer: sent, no outcome yet
  uint64_t received = 0;     // consumer
  bool done = false;
};

struct Bench {
  Options o;
  std::vector<std::string> records;
  pn_proactor_t* proactor = nullptr;
  pn_ssl_domain_t* ssl = nullptr;
  std::unordered_map<pn_link_t*, LinkState> links;
  uint64_t accepted = 0, rejected = 0;
  uint32_t producers_done = 0, consumers_done = 0;
  int open_connections = 0;
  bool consuming = false;
  bool failed = false;
  Clock::time_point publish_start, publish_end, consume_start, consume_end;

  void Fail(const std::string& why) {
    if (!failed) fprintf(stderr, "serve_bench: %s\n", why.c_str());
    failed = true;
    pn_proactor_disconnect(proactor, nullptr);
  }

  pn_session_t* Connect(const std::string& name) {
    pn_connection_t* c = pn_connection();
    pn_connection_set_container(c, ("serve-bench-" + name).c_str());
    pn_transport_t* t = pn_transport();
    if (ssl != nullptr) pn_ssl_init(pn_ssl(t), ssl, nullptr);
    pn_sasl_t* sasl = pn_sasl(t);
    if (!o.user.empty()) {
      pn_connection_set_user(c, o.user.c_str());
      pn_connection_set_password(c, o.password.c_str());
      pn_sasl_set_allow_insecure_mechs(sasl, true);  // PLAIN without TLS: loopback
      pn_sasl_allowed_mechs(sasl, "PLAIN");
    } else {
      pn_sasl_allowed_mechs(sasl, "ANONYMOUS");
    }
    pn_connection_open(c);
    pn_session_t* s = pn_session(c);
    pn_session_set_incoming_capacity(s, 64u << 20);
    pn_session_open(s);
    const size_t colon = o.url.rfind(':');
    char addr[PN_MAX_ADDR];
    pn_proactor_addr(addr, sizeof addr, o.url.substr(0, colon).c_str(), o.url.substr(colon + 1).c_str());
    pn_proactor_connect2(proactor, c, t, addr);
    ++open_connections;
    return s;
  }

  void StartProducers() {
    publish_start = Clock::now();
    for (uint32_t p = 0; p < o.producers; ++p) {
      pn_session_t* s = Connect("producer-" + std::to_string(p));
      pn_link_t* l = pn_sender(s, ("producer-" + std::to_string(p)).c_str());
      pn_terminus_set_address(pn_link_target(l), o.stream.c_str());
      pn_link_set_snd_settle_mode(l, PN_SND_UNSETTLED);
      pn_link_open(l);
      LinkState& st = links[l];
      st.next = records.size() * p / o.producers;
      st.end = records.size() * (p + 1) / o.producers;
      if (st.next == st.end) {
        st.done = true;
        ++producers_done;
      }
    }
  }

  void StartConsumers() {
    consuming = true;
    consume_start = Clock::now();
    for (uint32_t m = 0; m < o.consumers; ++m) {
      pn_session_t* s = Connect("consumer-" + std::to_string(m));
      pn_link_t* l = pn_receiver(s, ("consumer-" + std::to_string(m)).c_str());
      pn_terminus_t* source = pn_link_source(l);
      pn_terminus_set_address(source, o.stream.c_str());
      pn_data_t* f = pn_terminus_filter(source);
      pn_data_put_map(f);
      pn_data_enter(f);
      pn_data_put_symbol(f, pn_bytes(10, "sql-filter"));
      pn_data_put_described(f);
      pn_data_enter(f);
      pn_data_put_symbol(f, pn_bytes(15, "amqp:sql-filter"));
      pn_data_put_string(f, pn_bytes(o.filter.size(), o.filter.data()));
      pn_data_exit(f);
      pn_data_put_symbol(f, pn_bytes(27, "rabbitmq:stream-offset-spec"));
      pn_data_put_symbol(f, pn_bytes(5, "first"));
      pn_data_exit(f);
      pn_link_set_snd_settle_mode(l, PN_SND_SETTLED);
      pn_link_open(l);
      pn_link_flow(l, o.credit);
      LinkState& st = links[l];
      st.producer = false;
      if (o.expect == 0) {
        st.done = true;
        ++consumers_done;
      }
    }
  }

  void Send(pn_link_t* l, LinkState& st) {
    while (pn_link_credit(l) > 0 && st.next < st.end) {
      const uint64_t tag = st.next;
      pn_delivery(l, pn_dtag(reinterpret_cast<const char*>(&tag), sizeof tag));
      const std::string& r = records[st.next++];
      pn_link_send(l, r.data(), r.size());
      pn_link_advance(l);
      ++st.outstanding;
    }
  }

  void OnDelivery(pn_delivery_t* d) {
    pn_link_t* l = pn_delivery_link(d);
    auto it = links.find(l);
    if (it == links.end()) return;
    LinkState& st = it->second;
    if (st.producer) {
      if (!pn_delivery_updated(d)) return;
      if (pn_delivery_remote_state(d) == PN_ACCEPTED) {
        ++accepted;
      } else {
        if (rejected++ == 0) {
          pn_condition_t* c = pn_disposition_condition(pn_delivery_remote(d));
          fprintf(stderr, "serve_bench: a transfer was not accepted: %s: %s\n", pn_condition_get_name(c),
                  pn_condition_get_description(c));
        }
      }
      pn_delivery_settle(d);
      --st.outstanding;
      if (st.outstanding == 0 && st.next == st.end && !st.done) {
        st.done = true;
        pn_connection_close(pn_session_connection(pn_link_session(l)));
        if (++producers_done == o.producers) {
          publish_end = Clock::now();
          StartConsumers();
        }
      }
      return;
    }
    if (!pn_delivery_readable(d) || pn_delivery_partial(d)) return;
    char buf[4096];
    while (pn_link_recv(l, buf, sizeof buf) > 0) {
    }
    pn_link_advance(l);
    pn_delivery_settle(d);
    if (st.done) return;
    if (++st.received == o.expect) {
      st.done = true;
      pn_connection_close(pn_session_connection(pn_link_session(l)));
      if (++consumers_done == o.consumers) consume_end = Clock::now();
      return;
    }
    if (pn_link_credit(l) < o.credit / 2) pn_link_flow(l, o.credit - pn_link_credit(l));
  }

  bool Handle(pn_event_t* e) {
    switch (pn_event_type(e)) {
      case PN_LINK_FLOW: {
        pn_link_t* l = pn_event_link(e);
        auto it = links.find(l);
        if (it != links.end() && it->second.producer) Send(l, it->second);
        break;
      }
      case PN_DELIVERY: OnDelivery(pn_event_delivery(e)); break;
      case PN_LINK_REMOTE_CLOSE:
      case PN_LINK_REMOTE_DETACH: {
        pn_condition_t* c = pn_link_remote_condition(pn_event_link(e));
        if (pn_condition_is_set(c)) {
          Fail(std::string("link closed by the server: ") + pn_condition_get_name(c) + ": " +
               pn_condition_get_description(c));
        }
        break;
      }
      case PN_CONNECTION_REMOTE_CLOSE: pn_connection_close(pn_event_connection(e)); break;
      case PN_TRANSPORT_ERROR: {
        pn_condition_t* c = pn_transport_condition(pn_event_transport(e));
        Fail(std::string("connection error: ") + pn_condition_get_name(c) + ": " + pn_condition_get_description(c));
        break;
      }
      case PN_TRANSPORT_CLOSED: --open_connections; break;
      case PN_PROACTOR_INACTIVE: return false;
      default: break;
    }
    if (failed) return open_connections > 0;
    return !(consumers_done == o.consumers && consuming && open_connections == 0);
  }
};

bool LoadRecords(const std::string& path, std::vector<std::string>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  while (pos + 4 <= all.size()) {
    const auto* b = reinterpret_cast<const unsigned char*>(all.data() + pos);
    const size_t n = (size_t{b[0]} << 24) | (size_t{b[1]} << 16) | (size_t{b[2]} << 8) | b[3];
    if (pos + 4 + n > all.size()) return false;
    out->emplace_back(all, pos + 4, n);
    pos += 4 + n;
  }
  return pos == all.size();
}

int Usage() {
  fprintf(stderr,
          "usage: serve_bench --url HOST:PORT --messages FILE --expect K [--stream NAME] [--producers N]\n"
          "                   [--consumers M] [--filter SQL] [--credit C] [--tls] [--user U --password P]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Bench b;
  Options& o = b.o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--tls") {
      o.tls = true;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    const char* v = argv[++i];
    if (flag == "--url") {
      o.url = v;
    } else if (flag == "--messages") {
      o.messages = v;
    } else if (flag == "--stream") {
      o.stream = v;
    } else if (flag == "--filter") {
      o.filter = v;
    } else if (flag == "--expect") {
      o.expect = std::strtoull(v, nullptr, 10);
      o.expect_given = true;
    } else if (flag == "--producers") {
      o.producers = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    } else if (flag == "--consumers") {
      o.consumers = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    } else if (flag == "--credit") {
      o.credit = std::atoi(v);
    } else if (flag == "--user") {
      o.user = v;
    } else if (flag == "--password") {
      o.password = v;
    } else {
      return Usage();
    }
  }
  if (o.url.find(':') == std::string::npos || o.messages.empty() || !o.expect_given || o.producers == 0 ||
      o.credit < 2) {
    return Usage();
  }
  if (!LoadRecords(o.messages, &b.records) || b.records.empty()) {
    fprintf(stderr, "serve_bench: %s: not a record file (4-byte big-endian length, then the message)\n",
            o.messages.c_str());
    return 2;
  }
  if (o.tls) {
    b.ssl = pn_ssl_domain(PN_SSL_MODE_CLIENT);
    pn_ssl_domain_set_peer_authentication(b.ssl, PN_SSL_ANONYMOUS_PEER, nullptr);
  }
  b.proactor = pn_proactor();
  b.StartProducers();
  if (b.producers_done == o.producers) {
    b.publish_end = Clock::now();
    b.StartConsumers();
  }
  bool running = true;
  while (running) {
    pn_event_batch_t* batch = pn_proactor_wait(b.proactor);
    pn_event_t* e;
    while ((e = pn_event_batch_next(batch)) != nullptr) {
      if (!b.Handle(e)) running = false;
    }
    pn_proactor_done(b.proactor, batch);
  }
  pn_proactor_free(b.proactor);
  if (b.ssl != nullptr) pn_ssl_domain_free(b.ssl);
  if (b.failed) return 1;
  const uint64_t n = b.records.size();
  const double publish_s = std::chrono::duration<double>(b.publish_end - b.publish_start).count();
  const double consume_s = std::chrono::duration<double>(b.consume_end - b.consume_start).count();
  printf("publish: %u producers, %llu messages (accepted %llu, rejected %llu) in %.3f s: %.0f msgs/s\n", o.producers,
         static_cast<unsigned long long>(n), static_cast<unsigned long long>(b.accepted),
         static_cast<unsigned long long>(b.rejected), publish_s, n / publish_s);
  if (o.consumers > 0) {
    printf(
        "consume: %u consumers, %llu matches each of %llu (filter: %s) in %.3f s: %.0f msgs/s delivered, %.0f "
        "msgs/s scanned\n",
        o.consumers, static_cast<unsigned long long>(o.expect), static_cast<unsigned long long>(n), o.filter.c_str(),
        consume_s, static_cast<double>(o.expect) * o.consumers / consume_s,
        static_cast<double>(n) * o.consumers / consume_s);
  }
  if (b.rejected != 0 || b.accepted != n) return 1;
  return 0;
}
