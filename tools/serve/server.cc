// The event loop of `sift serve`: connections, sessions, links, transfers and the management node, on
// one thread (see server.h; the append worker and the retention timer are in server_append.cc, the
// reader pool in server_readers.cc, the shared state in server_impl.h).
//
// AMQP behaviour (core part 2 and part 3 section numbers):
// - producer link (we are the receiver, 2.6): target address = stream; credit window
//   ServeOptions::producer_credit, topped up as appends are acknowledged, so a slow disk slows
//   producers instead of growing memory; each transfer is settled with accepted / rejected (3.4) after
//   the worker reports it durable or malformed, or modified with delivery-failed (3.4.5) when the
//   store failed (a transient outcome: the client may resend).
// - consumer link (we are the sender): source address = stream, filter-set (3.5.8) parsed by
//   link_filter.h and echoed in place with the source capabilities AMQP_FILTEX_PROP_V1_0 and
//   AMQP_FILTEX_SQL_V1_0; a bad filter refuses the link: attach with a null source, then detach with
//   amqp:invalid-field (2.6.3). Deliveries are sent only against credit (2.6.7), pre-settled when the
//   receiver asked for snd-settle-mode settled; a drain request is answered once caught up.
// - resource limits (docs/serve.md, "Resource limits"): credit counted and enforced
//   (amqp:link:transfer-limit-exceeded), output per connection capped, the memory and disk alarms of
//   flow_control.h withhold producer credit, handshakes have a deadline and a cap of their own, links
//   and sessions are freed once closed, reader turns are time-sliced.
#include "tools/serve/server.h"

#include "tools/serve/server_impl.h"
#include "tools/units.h"

namespace sift::tools {

void Server::Impl::Log(const char* format, const std::string& what) {
  if (options.verbose) fprintf(stderr, format, what.c_str());
}

bool Server::Impl::StartMetrics() {
  const std::string& where = options.metrics;
  const size_t colon = where.rfind(':');
  std::string host = where.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  metrics_endpoint = std::make_unique<MetricsEndpoint>([this] {
    MetricsSnapshot snapshot = metrics.Collect(engine, options.metrics_max_streams);
    if (login_checker) {
      const LoginChecker::Counts logins = login_checker->counts();
      snapshot.password_checks = logins.checked;
      snapshot.password_checks_failed = logins.rejected;
      snapshot.logins_locked_out = logins.locked_out;
      snapshot.logins_queue_full = logins.busy;
      snapshot.logins_abandoned = logins.abandoned;
    }
    return RenderPrometheusText(snapshot);
  });
  std::string error;
  if (!metrics_endpoint->Start(host, where.substr(colon + 1), &error)) {
    PrintError("cannot listen", "--metrics " + where, error);
    return false;
  }
  printf("sift serve: metrics on http://%s/metrics\n", metrics_endpoint->address().c_str());
  fflush(stdout);
  return true;
}

ConnState* Server::Impl::Conn(pn_connection_t* c) {
  auto it = conns.find(c);
  return it == conns.end() ? nullptr : it->second.get();
}

void Server::Impl::OnAccept(pn_listener_t* l) {
  pn_connection_t* c = pn_connection();
  pn_transport_t* t = pn_transport();
  pn_transport_set_server(t);  // before pn_sasl and pn_ssl: they take their role from it
  pn_transport_set_max_frame(t, options.max_frame_size);
  pn_transport_set_channel_max(t, static_cast<uint16_t>(options.max_sessions - 1));
  // Proton then sends empty frames often enough for the peer's idle timeout, and closes a peer
  // silent for ours (core 2.4.5).
  if (options.idle_timeout_ms > 0) pn_transport_set_idle_timeout(t, static_cast<pn_millis_t>(options.idle_timeout_ms));
  if (ssl != nullptr) pn_ssl_init(pn_ssl(t), ssl, nullptr);
  auto state = std::make_shared<ConnState>();
  const std::weak_ptr<ConnState> weak = state;
  authenticator->Attach(
      t, login_checker.get(),
      [weak](PendingLogin login) {
        if (std::shared_ptr<ConnState> s = weak.lock()) s->Post([&] { s->login = std::move(login); });
      },
      [weak] {
        std::shared_ptr<ConnState> s = weak.lock();
        if (s == nullptr) return false;
        std::lock_guard<std::mutex> lock(s->mu);
        return s->alive;
      });
  state->connection = c;
  state->handshake_seq = next_handshake_seq++;
  state->open = GaugeHold(&metrics.connections_open);
  conns[c] = state;
  pn_listener_accept2(l, c, t);
  // Sockets that have not opened yet do not count against --max-connections (so they cannot lock
  // real clients out); they have their own cap, and the oldest makes room for the newest.
  if (handshakes.size() >= options.max_handshakes) {
    auto oldest = handshakes.begin();
    ExpireHandshake(oldest->second.second, "too many sockets in their handshake (limit " +
                                               std::to_string(options.max_handshakes) + "); closed the oldest");
    handshakes.erase(oldest);
  }
  handshakes[state->handshake_seq] = {Clock::now(), c};
}

void Server::Impl::CloseConnection(ConnState* s, const char* condition, const std::string& description) {
  auto it = conns.find(s->connection);
  if (it == conns.end() || s->closed_by_server) return;
  s->closed_by_server = true;
  SetCondition(pn_connection_condition(s->connection), condition, description);
  pn_connection_close(s->connection);
  CloseConsumers(s);  // what they hold goes back now, not when the socket does
  close_deadlines.emplace_back(Clock::now() + kCloseGrace, it->second);
  Log("sift serve: closed a connection: %s\n", PrintableText(s->address) + ": " + description);
}

void Server::Impl::ExpireHandshake(pn_connection_t* c, const std::string& why) {
  ConnState* s = Conn(c);
  if (s == nullptr) return;
  Log("sift serve: %s\n", why);
  s->Post([s] { s->handshake_expired = true; });
}

void Server::Impl::OnConnectionOpen(pn_connection_t* c) {
  ConnState* s = Conn(c);
  pn_connection_set_container(c, "sift-serve");
  PutCapabilities(pn_connection_offered_capabilities(c));
  pn_connection_open(c);
  if (s == nullptr) return;
  s->opened = true;
  handshakes.erase(s->handshake_seq);
  s->address = PeerHost(pn_connection_transport(c));
  // Only an admitted client counts against the connection limits.
  pn_transport_t* t = pn_connection_transport(c);
  const char* user = pn_transport_get_user(t);
  s->user = user != nullptr ? user : std::string(kAnonymousUser);
  std::string why;
  if (!authenticator->Admits(t, s->user, &why)) {  // a client that skipped SASL
    fprintf(stderr, "sift serve: login failed: %s: user '%s' (no SASL): %s\n", PeerName(t).c_str(),
            PrintableText(s->user).c_str(), why.c_str());
    s->refused_as = "amqp:unauthorized-access";
    CloseConnection(s, "amqp:unauthorized-access", why);
    return;
  }
  std::string refusal;
  const FlowState flow_now = flow.state();
  if (flow_now.memory_alarm) {
    refusal = "the server's memory budget is in use (" +
              FormatByteSize(flow_now.inbound_bytes + flow_now.outbound_bytes + flow_now.link_bytes) +
              " of --memory-budget " + FormatByteSize(flow_now.memory_budget) + ")";
    metrics.memory_refusals.fetch_add(1, std::memory_order_relaxed);
  } else if (open_connections >= options.max_connections) {
    refusal = "too many connections (limit " + std::to_string(options.max_connections) + ")";
  } else if (options.max_connections_per_address > 0 &&
             per_address[s->address] >= options.max_connections_per_address) {
    refusal = "too many connections from " + s->address + " (limit " +
              std::to_string(options.max_connections_per_address) + ")";
  }
  if (!refusal.empty()) {
    if (per_address[s->address] == 0) per_address.erase(s->address);
    s->over_limit = true;
    s->refused_as = "amqp:resource-limit-exceeded";
    CloseConnection(s, "amqp:resource-limit-exceeded", refusal);
    return;
  }
  s->counted = true;
  ++open_connections;
  ++per_address[s->address];
}

bool Server::Impl::Authorize(pn_link_t* link, Permission permission, const std::string& stream) {
  ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
  const std::string user = s != nullptr ? s->user : std::string(kAnonymousUser);
  if (s != nullptr && authenticator->Allows(user, permission, stream)) return true;
  Refuse(link, "amqp:unauthorized-access",
         "user '" + user + "' may not " + PermissionName(permission) + " stream '" + PrintableText(stream) + "' (no '" +
             PermissionName(permission) + "' permission on it)");
  return false;
}

void Server::Impl::OnSessionOpen(pn_session_t* session) {
  ConnState* s = Conn(pn_session_connection(session));
  pn_session_open(session);
  if (s == nullptr) return;
  if (++s->sessions > options.max_sessions) {
    SetCondition(pn_session_condition(session), "amqp:resource-limit-exceeded",
                 "too many sessions on this connection (limit " + std::to_string(options.max_sessions) + ")");
    pn_session_close(session);
  }
}

void Server::Impl::OnSessionClose(pn_session_t* session) {
  ConnState* s = Conn(pn_session_connection(session));
  if (s != nullptr) {
    if (s->sessions > 0) --s->sessions;
    // Links of an ended session end with it (core 2.7.7 end): stop their consumers.
    for (auto it = s->consumers.begin(); it != s->consumers.end();) {
      if (pn_link_session(it->first) == session) {
        CloseConsumer(it->second);
        it = s->consumers.erase(it);
        if (s->links > 0) --s->links;
      } else {
        ++it;
      }
    }
    auto management_links_of_session = [&](auto& links) {
      for (auto it = links.begin(); it != links.end();) {
        if (pn_link_session(it->first) == session) {
          it = links.erase(it);
          if (s->links > 0) --s->links;
        } else {
          ++it;
        }
      }
    };
    management_links_of_session(s->management_requests);
    management_links_of_session(s->management_replies);
    for (auto it = s->producers.begin(); it != s->producers.end();) {
      if (pn_link_session(it->first) == session) {
        if (!it->second->closed && s->links > 0) --s->links;
        it->second->open.Release();
        it = s->producers.erase(it);
      } else {
        ++it;
      }
    }
  }
  pn_session_close(session);
  // Proton keeps the session (and frees its links) until the end frame is written; our maps no
  // longer name any of them, and results of their transfers are recognised by producer id.
  pn_session_free(session);
}

void Server::Impl::Refuse(pn_link_t* link, const char* condition, const std::string& description) {
  // Core 2.6.3: a refused attach is answered with a null terminus on our side, then a detach.
  if (pn_link_is_sender(link)) {
    pn_terminus_set_type(pn_link_source(link), PN_UNSPECIFIED);
    pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
  } else {
    pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
    pn_terminus_set_type(pn_link_target(link), PN_UNSPECIFIED);
  }
  pn_link_open(link);
  SetCondition(pn_link_condition(link), condition, description);
  pn_link_close(link);
  Log("sift serve: refused link: %s\n", description);
}

bool Server::Impl::EnsureStream(pn_link_t* link, const std::string& stream) {
  StreamInfo info;
  Status s = engine->GetStreamInfo(stream, &info);
  if (s.ok()) return true;
  if (s.IsNotFound() && options.auto_create) {
    if (!Authorize(link, kPermissionCreate, stream)) return false;
    if (options.max_streams > 0) {
      // Only this thread creates streams, so the count cannot pass the limit between check and create.
      std::vector<std::string> names;
      if (engine->ListStreams(&names).ok() && names.size() >= options.max_streams) {
        Refuse(link, "amqp:resource-limit-exceeded",
               "cannot create stream '" + PrintableText(stream) + "': the store holds " + std::to_string(names.size()) +
                   " streams, the server's limit (--max-streams " + std::to_string(options.max_streams) + ")");
        return false;
      }
    }
    s = engine->CreateStream(
        stream, RetentionPolicy{options.retention_max_bytes, std::chrono::milliseconds(options.retention_max_age_ms)});
  }
  if (s.ok()) return true;
  if (s.IsNotFound()) {
    Refuse(link, "amqp:not-found", "no stream '" + PrintableText(stream) + "' (the server runs with --no-auto-create)");
  } else {
    Refuse(link, s.IsInputError() ? "amqp:invalid-field" : "amqp:internal-error",
           // The status names the stream too, as it was given: only its what and why are safe to send.
           "stream '" + PrintableText(stream) + "': " + std::string(s.what()) + ": " + std::string(s.why()));
  }
  return false;
}

void Server::Impl::OnLinkOpen(pn_link_t* link) {
  ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
  if (s == nullptr) return;
  if (!s->counted) {  // attached before the server's close of a refused connection reached the peer
    Refuse(link, s->refused_as.empty() ? "amqp:unauthorized-access" : s->refused_as.c_str(),
           "the connection was refused");
    return;
  }
  if (s->closed_by_server) return;  // the connection's close ends it
  if (shutting_down) {
    Refuse(link, "amqp:connection:forced", ShutdownReason());
    return;
  }
  if (s->links >= options.max_links) {
    Refuse(link, "amqp:resource-limit-exceeded",
           "too many links on this connection (limit " + std::to_string(options.max_links) + ")");
    return;
  }
  if (pn_link_is_receiver(link)) {
    OpenProducer(s, link);
  } else {
    OpenConsumer(s, link);
  }
}

void Server::Impl::OpenProducer(ConnState* s, pn_link_t* link) {
  std::string stream = TerminusAddress(pn_link_remote_target(link));
  if (stream == kManagementAddress) return OpenManagementRequests(s, link);
  if (stream.empty()) {
    Refuse(link, "amqp:invalid-field", "the target address must name a stream (no anonymous relay)");
    return;
  }
  if (!Authorize(link, kPermissionWrite, stream)) return;
  if (!EnsureStream(link, stream)) return;
  auto owned = std::make_unique<ProducerLink>();
  ProducerLink* p = owned.get();
  p->id = next_producer_id++;
  p->stream = stream;
  owned->open = GaugeHold(&metrics.producer_links);
  s->producers[link] = std::move(owned);
  ++s->links;
  pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
  pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
  pn_link_set_rcv_settle_mode(link, PN_RCV_FIRST);
  pn_link_set_max_message_size(link, options.max_message_bytes);
  pn_link_open(link);
  TopUpCredit(link, p);  // none under an alarm
  Log("sift serve: producer attached to %s\n", stream);
}

void Server::Impl::OpenConsumer(ConnState* s, pn_link_t* link) {
  pn_terminus_t* source = pn_link_remote_source(link);
  std::string stream = TerminusAddress(source);
  if (pn_terminus_is_dynamic(source) || stream == kManagementAddress) return OpenManagementReplies(s, link);
  if (stream.empty()) {
    Refuse(link, "amqp:invalid-field", "the source address must name a stream");
    return;
  }
  if (!Authorize(link, kPermissionRead, stream)) return;
  if (const uint64_t budget = flow.memory_budget();
      budget > 0 && !s->consumers.empty() && flow.links() + kConsumerLinkCost > budget / kLinkShareDivisor) {
    metrics.memory_refusals.fetch_add(1, std::memory_order_relaxed);
    const std::string why = "consumer links hold their share of the server's memory (" +
                            std::to_string(flow.links() / kConsumerLinkCost) + " links, 1/" +
                            std::to_string(kLinkShareDivisor) + " of --memory-budget " + FormatByteSize(budget) +
                            "); this connection has " + std::to_string(s->consumers.size());
    Refuse(link, "amqp:resource-limit-exceeded", why);
    if (++s->memory_refused_links >= kMemoryRefusalsBeforeClose) {
      CloseConnection(s, "amqp:resource-limit-exceeded",
                      why + " and was refused " + std::to_string(s->memory_refused_links) + " consumer links");
    }
    return;
  }
  std::string encoded;
  pn_data_t* filter = pn_terminus_filter(source);
  if (filter != nullptr && pn_data_size(filter) > 0) {
    pn_data_rewind(filter);
    encoded.resize(static_cast<size_t>(std::max<ssize_t>(pn_data_encoded_size(filter), 0)));
    ssize_t n = pn_data_encode(filter, encoded.data(), encoded.size());
    if (n < 0) {
      Refuse(link, "amqp:invalid-field", "the filter-set cannot be encoded");
      return;
    }
    encoded.resize(static_cast<size_t>(n));
  }
  LinkFilter parsed;
  std::string error;
  if (!ParseLinkFilter({reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size()}, &parsed, &error)) {
    Refuse(link, "amqp:invalid-field", error);
    return;
  }
  if (!EnsureStream(link, stream)) return;
  ConsumerOptions co;
  co.stream = stream;
  co.filter = parsed.filter;
  co.start = parsed.start;
  co.follow = true;
  co.credit = kConsumerBatch;
  co.max_scan_per_poll = 1u << 15;
  co.max_poll_time = std::chrono::milliseconds(options.reader_slice_ms);
  co.max_batch_bytes = kConsumerBatchBytes;
  auto c = std::make_shared<ConsumerLink>();
  c->options = co;
  Status st = engine->NewConsumer(co, &c->consumer);
  if (!st.ok()) {
    Refuse(link, st.IsInputError() ? "amqp:invalid-field" : "amqp:internal-error", st.ToString());
    return;
  }
  // A store iterator is tens of KB (a tailing one holds one per file of the stream): a link holds
  // one only while it is being read for (bench/DECISIONS.md, "Consumers' memory").
  c->consumer->Release();
  flow.AddLinks(static_cast<int64_t>(kConsumerLinkCost));
  c->conn = conns[pn_session_connection(pn_link_session(link))];
  c->link = link;
  c->stream = stream;
  c->large.store(AddWaiter(stream), std::memory_order_relaxed);
  c->metrics = metrics.AddConsumer(stream);
  s->consumers[link] = c;
  ++s->links;
  // Echo the filters in place (core 3.5.3: the sender's attach says which filters are applied).
  pn_terminus_copy(pn_link_source(link), source);
  PutCapabilities(pn_terminus_capabilities(pn_link_source(link)));
  pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
  pn_link_set_snd_settle_mode(link, pn_link_remote_snd_settle_mode(link));
  pn_link_open(link);
  Log("sift serve: consumer attached to %s\n", stream);
  ServiceConsumer(c);
}

void Server::Impl::CloseConsumer(const std::shared_ptr<ConsumerLink>& c) {
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed && c->link == nullptr) return;
    c->closed = true;
    c->link = nullptr;  // Proton frees it; nothing may touch it through the consumer any more
    c->current = nullptr;
    c->pending.clear();
    flow.AddOutbound(-static_cast<int64_t>(c->pending_bytes + c->unsettled));
    if (std::shared_ptr<ConnState> conn = c->conn.lock()) {
      conn->pending.fetch_sub(c->pending_bytes, std::memory_order_relaxed);
      conn->unsettled.fetch_sub(c->unsettled, std::memory_order_relaxed);
    }
    c->pending_bytes = 0;
    c->unsettled = 0;
    flow.AddLinks(-static_cast<int64_t>(kConsumerLinkCost));
  }
  RemoveWaiter(c);
  metrics.RemoveConsumer(c->metrics.get());
  trim_requested.store(true);
}

void Server::Impl::OpenManagementRequests(ConnState* s, pn_link_t* link) {
  s->management_requests[link] = {};
  ++s->links;
  pn_terminus_copy(pn_link_source(link), pn_link_remote_source(link));
  pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
  pn_link_set_rcv_settle_mode(link, PN_RCV_FIRST);
  pn_link_set_max_message_size(link, kMaxManagementRequest);
  pn_link_open(link);
  pn_link_flow(link, kManagementCredit);
  Log("sift serve: management requests attached (user '%s')\n", s->user);
}

void Server::Impl::OpenManagementReplies(ConnState* s, pn_link_t* link) {
  pn_terminus_t* source = pn_link_remote_source(link);
  const bool dynamic = pn_terminus_is_dynamic(source);
  std::string address(kManagementAddress);
  if (dynamic) {
    address += "/replies/" + std::to_string(next_reply_address++);
  } else {
    for (const auto& [other, replies] : s->management_replies) {
      if (replies.address == address) {
        Refuse(link, "amqp:resource-locked",
               "this connection has a reply link with the source '$management' already (use a dynamic source)");
        return;
      }
    }
  }
  s->management_replies[link].address = address;
  ++s->links;
  pn_terminus_copy(pn_link_source(link), source);
  pn_terminus_set_address(pn_link_source(link), address.c_str());
  pn_terminus_copy(pn_link_target(link), pn_link_remote_target(link));
  pn_link_open(link);
  Log("sift serve: management replies attached as %s\n", address);
}

void Server::Impl::OnManagementDelivery(ConnState* s, pn_link_t* link, pn_delivery_t* d) {
  ManagementRequests& in = s->management_requests[link];
  char buf[16384];
  ssize_t n;
  while ((n = pn_link_recv(link, buf, sizeof buf)) > 0) {
    if (in.buffer.size() + static_cast<size_t>(n) > kMaxManagementRequest) {
      in.too_large = true;
      in.buffer.clear();
    }
    if (!in.too_large) in.buffer.append(buf, static_cast<size_t>(n));
  }
  if (pn_delivery_aborted(d)) {
    in = {};
    pn_delivery_settle(d);
    pn_link_flow(link, 1);
    return;
  }
  if (pn_delivery_partial(d)) return;
  pn_link_advance(link);
  const ManagementRequests request = std::exchange(in, {});

  ManagementAnswer answer;
  std::string condition, description;
  bool answered = false;
  ManagementReplies* replies = nullptr;
  pn_link_t* reply_link = nullptr;
  if (request.too_large) {
    condition = "amqp:link:message-size-exceeded";
    description = "a management request is at most " + std::to_string(kMaxManagementRequest) + " bytes";
  } else {
    const std::string user = s->user;
    answered = management.Handle(
        request.buffer, user,
        [&](std::string_view stream) { return authenticator->Allows(user, kPermissionManage, stream); },
        [&](std::string_view reply_to, std::string* why_condition, std::string* why) {
          for (auto& [other, r] : s->management_replies) {
            if (r.address != reply_to) continue;
            if (r.queued.size() >= kMaxQueuedReplies) {
              *why_condition = "amqp:resource-limit-exceeded";
              *why = std::to_string(kMaxQueuedReplies) + " responses wait for credit on the reply link already";
              return false;
            }
            reply_link = other;
            replies = &r;
            return true;
          }
          *why_condition = "amqp:not-found";
          *why = "the reply-to '" + PrintableText(reply_to) +
                 "' names no reply link of this connection (attach a receiver with a dynamic source, or the "
                 "source '$management')";
          return false;
        },
        &answer, &condition, &description);
  }
  pn_disposition_t* local = pn_delivery_local(d);
  if (answered) {
    pn_delivery_update(d, PN_ACCEPTED);
  } else {
    SetCondition(pn_disposition_condition(local), condition.c_str(), description);
    pn_delivery_update(d, PN_REJECTED);
  }
  pn_delivery_settle(d);
  pn_link_flow(link, 1);
  if (!answered) {
    Log("sift serve: management request rejected: %s\n", condition + ": " + description);
    return;
  }
  // Changes and refusals are always logged (who changed what is an operator's first question), reads
  // only when verbose.
  if (answer.changed || answer.status >= 400 || options.verbose) {
    fprintf(stderr, "sift serve: management: %s: user '%s': %s: %d %s\n",
            PeerName(pn_connection_transport(s->connection)).c_str(), PrintableText(s->user).c_str(),
            answer.request.c_str(), answer.status, PrintableText(answer.description).c_str());
  }
  replies->queued.push_back(std::move(answer.response));
  SendReplies(reply_link, replies);
  if (!answer.deleted_stream.empty()) StreamDeleted(answer.deleted_stream);
}

void Server::Impl::SendReplies(pn_link_t* link, ManagementReplies* replies) {
  const bool presettled = pn_link_snd_settle_mode(link) == PN_SND_SETTLED;
  while (!replies->queued.empty() && pn_link_credit(link) > 0) {
    const uint64_t tag = replies->next_tag++;
    pn_delivery_t* d = pn_delivery(link, pn_dtag(reinterpret_cast<const char*>(&tag), sizeof tag));
    const std::string& bytes = replies->queued.front();
    pn_link_send(link, bytes.data(), bytes.size());
    pn_link_advance(link);
    if (presettled) pn_delivery_settle(d);
    replies->queued.pop_front();
  }
}

void Server::Impl::StreamDeleted(const std::string& stream) {
  {
    std::lock_guard<std::mutex> lock(waiters_mu);
    large_streams.erase(stream);
  }
  for (auto& [c, s] : conns) {
    bool has = false;
    for (const auto& [link, consumer] : s->consumers) has = has || consumer->stream == stream;
    for (const auto& [link, producer] : s->producers) has = has || (!producer->closed && producer->stream == stream);
    if (!has) continue;
    ConnState* state = s.get();
    state->Post([&] { state->deleted_streams.push_back(stream); });
  }
}

void Server::Impl::DetachDeletedStream(ConnState* s, const std::string& stream) {
  const std::string why = "stream '" + PrintableText(stream) + "' was deleted";
  for (auto it = s->consumers.begin(); it != s->consumers.end();) {
    if (it->second->stream != stream) {
      ++it;
      continue;
    }
    pn_link_t* link = it->first;
    CloseConsumer(it->second);
    it = s->consumers.erase(it);
    if (s->links > 0) --s->links;
    SetCondition(pn_link_condition(link), "amqp:resource-deleted", why);
    pn_link_close(link);
  }
  for (auto& [link, p] : s->producers) {
    if (p->closed || p->stream != stream) continue;
    p->closed = true;
    p->buffer.clear();
    if (s->links > 0) --s->links;
    SetCondition(pn_link_condition(link), "amqp:resource-deleted", why);
    pn_link_close(link);
  }
  Log("sift serve: links of a deleted stream detached: %s\n", stream);
}

void Server::Impl::OnLinkClose(pn_link_t* link, bool closed) {
  ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
  if (s != nullptr) {
    auto c = s->consumers.find(link);
    if (c != s->consumers.end()) {
      CloseConsumer(c->second);
      s->consumers.erase(c);
      if (s->links > 0) --s->links;
    }
    auto p = s->producers.find(link);
    if (p != s->producers.end()) {
      if (!p->second->closed && s->links > 0) --s->links;
      p->second->open.Release();
      s->producers.erase(p);  // results of its transfers still in the worker are dropped by id
    }
    if (s->management_requests.erase(link) + s->management_replies.erase(link) > 0 && s->links > 0) --s->links;
  }
  if (closed) {
    pn_link_close(link);
  } else {
    pn_link_detach(link);
  }
  pn_link_free(link);
}

uint64_t Server::Impl::RefreshOutput(ConnState* s) {
  // Only the sessions' counters, never pn_transport_pending: that call frames more output into the
  // transport's buffer and may move the buffer, while the proactor, when the socket would block,
  // keeps a pointer into it to write the rest from later. A consumer with a deep backlog and a slow
  // socket then received freed memory as frames (a client granting 30,000 credit saw "malformed
  // frame" after about 8,700 messages). The frames the transport holds unwritten are left uncounted;
  // the proactor frames more only once its last write went out whole.
  uint64_t bytes = 0;
  for (pn_session_t* ssn = pn_session_head(s->connection, 0); ssn != nullptr; ssn = pn_session_next(ssn, 0)) {
    bytes += pn_session_outgoing_bytes(ssn);
  }
  flow.AddOutbound(static_cast<int64_t>(bytes) - static_cast<int64_t>(s->output));
  s->output = bytes;
  s->output_seen.store(bytes, std::memory_order_relaxed);
  return bytes;
}

bool Server::Impl::UnderPressure() const {
  const uint64_t budget = flow.memory_budget();
  return budget > 0 && flow.outbound() >= budget / kPressureDivisor;
}

bool Server::Impl::ConsumersAtLimit() const {
  const uint64_t budget = flow.memory_budget();
  return budget > 0 && flow.outbound() >= budget / kConsumerLimitDivisor;
}

uint64_t Server::Impl::FairShare() const {
  // Half of what lies between the pressure mark and the consumers' limit, shared out: connections
  // that filled their whole --max-connection-output before the pressure began hold the mark at
  // most, every other one its share and one slice more, and half the gap stays free for new clients.
  const uint64_t budget = flow.memory_budget();
  const uint64_t gap = budget / kConsumerLimitDivisor - budget / kPressureDivisor;
  const uint64_t share = gap / 2 / std::max<uint32_t>(options.max_connections, 1);
  return std::max<uint64_t>(1, std::min(options.max_connection_output, share));  // 1: a slice still goes
}

uint64_t Server::Impl::OutputCap() const { return UnderPressure() ? FairShare() : options.max_connection_output; }

bool Server::Impl::MayRead(const ConnState& s) const {
  if (s.stalled.load(std::memory_order_relaxed)) return false;
  if (ConsumersAtLimit()) return false;
  const uint64_t held = s.output_seen.load(std::memory_order_relaxed) + s.pending.load(std::memory_order_relaxed) +
                        s.unsettled.load(std::memory_order_relaxed);
  return held < OutputCap();
}

void Server::Impl::DropReadAhead(ConnState* s, bool started) {
  // Until its socket takes something it reads nothing more, pressure or not: else it would read the
  // same again as soon as the drop relieved the pressure.
  s->stalled.store(true, std::memory_order_relaxed);
  if (s->pending.load(std::memory_order_relaxed) == 0) return;
  for (auto& [link, c] : s->consumers) {
    std::lock_guard<std::mutex> lock(c->mu);
    DropReadAhead(c.get(), s, started);
  }
}

void Server::Impl::DropReadAhead(ConsumerLink* c, ConnState* s, bool started) {
  if (c->polling || c->closed || c->pending.empty()) return;
  uint64_t freed = 0, untold = 0;
  size_t keep = 0;
  if (c->pending.front().sent > 0) {
    keep = 1;
    if (started) {  // Proton has the start of it: the rest is read again, the same bytes, before it goes on
      freed += c->pending.front().bytes.size();
      std::string().swap(c->pending.front().bytes);
    }
  }
  if (c->pending.size() > keep) {
    for (size_t i = keep; i < c->pending.size(); ++i) {
      freed += c->pending[i].bytes.size();
      untold += c->pending[i].skipped;
    }
    c->rewind = c->pending[keep].offset;
    c->rewind_untold += untold;
    c->caught_up = false;
    c->pending.erase(c->pending.begin() + static_cast<std::ptrdiff_t>(keep), c->pending.end());
  }
  if (freed == 0) return;
  ChargePending(c, s, -static_cast<int64_t>(freed));
  metrics.read_ahead_dropped.fetch_add(freed, std::memory_order_relaxed);
  trim_requested.store(true);
}

void Server::Impl::ServiceConsumer(const std::shared_ptr<ConsumerLink>& c) {
  bool schedule = false, drained = false, failed = false, drop = false;
  Status error;
  pn_link_t* link = nullptr;
  ConnState* s = nullptr;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (c->closed || c->link == nullptr) return;
    link = c->link;
    if (pn_link_state(link) & PN_LOCAL_CLOSED) return;
    s = Conn(pn_session_connection(pn_link_session(link)));
    if (s == nullptr) return;
    const uint64_t cap = OutputCap();
    uint64_t queued = RefreshOutput(s) + s->unsettled.load(std::memory_order_relaxed);
    s->output_blocked = queued >= cap;
    const bool presettled = pn_link_snd_settle_mode(link) == PN_SND_SETTLED;
    // A delivery goes in slices, each while the output is under the cap; once started it goes on
    // whatever the credit says (a transfer is finished before the next begins).
    while (!c->pending.empty() && !s->output_blocked) {
      PendingDelivery& p = c->pending.front();
      if (p.bytes.empty()) break;  // dropped mid-send: a read brings it back
      // One slice at a time per delivery, the next once Proton has framed the last: a delivery's
      // buffer keeps the capacity it once needed until the peer settles it, which a client that
      // reads nothing never does.
      if (c->current != nullptr && pn_delivery_pending(c->current) > 0) break;
      if (c->current == nullptr) {
        if (pn_link_credit(link) <= 0) break;
        char tag[8];
        for (int i = 0; i < 8; ++i) tag[i] = static_cast<char>(p.offset >> (56 - 8 * i));
        c->current = pn_delivery(link, pn_dtag(tag, sizeof tag));
        if (!presettled) {
          const uint64_t cost = std::min<uint64_t>(p.bytes.size(), kDeliverySlice) + kDeliveryOverhead;
          pn_delivery_set_context(c->current, reinterpret_cast<void*>(static_cast<uintptr_t>(cost)));
          ChargeUnsettled(c.get(), s, static_cast<int64_t>(cost));
          queued += cost;
        }
      }
      const uint64_t n = std::min<uint64_t>(kDeliverySlice, p.bytes.size() - p.sent);
      pn_link_send(link, p.bytes.data() + p.sent, n);
      p.sent += n;
      queued += n;
      s->output_blocked = queued >= cap;
      if (p.sent < p.bytes.size()) continue;
      pn_link_advance(link);
      if (presettled) pn_delivery_settle(c->current);
      c->current = nullptr;
      ChargePending(c.get(), s, -static_cast<int64_t>(p.bytes.size()));
      c->pending.pop_front();
    }
    RefreshOutput(s);
    const bool read_again = !c->pending.empty() && c->pending.front().bytes.empty();
    if (c->failed && (c->pending.empty() || read_again)) {
      failed = true;
      error = c->error;
      c->closed = true;
      if (c->current != nullptr) pn_delivery_abort(c->current);  // its rest cannot be read again
      c->current = nullptr;
    } else if (!c->polling && !s->output_blocked && (read_again || (c->pending.empty() && pn_link_credit(link) > 0))) {
      if (MayRead(*s)) {
        c->polling = true;
        schedule = true;
      } else {
        s->memory_wait.store(true, std::memory_order_relaxed);
      }
    }
    // Idle until the peer grants credit, the socket drains or memory frees up: hold no iterator
    // meanwhile.
    if (!c->polling && !failed) c->consumer->Release();
    drained = c->pending.empty() && c->caught_up && pn_link_get_drain(link);
    c->metrics->credit.store(pn_link_credit(link), std::memory_order_relaxed);
    drop = s->output_blocked && !failed && UnderPressure();
  }
  if (drop) DropReadAhead(s, false);
  if (failed) {
    SetCondition(pn_link_condition(link), "amqp:internal-error", error.ToString());
    pn_link_close(link);
    return;
  }
  if (schedule) Schedule(c);
  if (drained) pn_link_drained(link);
}

void Server::Impl::OnDelivery(pn_event_t* e) {
  pn_delivery_t* d = pn_event_delivery(e);
  pn_link_t* link = pn_delivery_link(d);
  ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
  if (pn_link_is_sender(link)) {
    // A consumer's disposition: streams keep every message, so settling is all there is to do, and
    // what the delivery cost is free again.
    if (!pn_delivery_updated(d) && !pn_delivery_settled(d)) return;
    const auto cost = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pn_delivery_get_context(d)));
    pn_delivery_set_context(d, nullptr);
    pn_delivery_settle(d);
    if (cost == 0 || s == nullptr) return;
    auto it = s->consumers.find(link);
    if (it == s->consumers.end()) return;  // closed: CloseConsumer gave back all its link held
    ConsumerLink& c = *it->second;
    ChargeUnsettled(&c, s, -static_cast<int64_t>(cost));
    if (s->output_blocked) ResumeOutput(s);
    return;
  }
  if (!pn_delivery_readable(d) && !pn_delivery_aborted(d)) return;
  ProducerLink* p = nullptr;
  if (s != nullptr) {
    auto it = s->producers.find(link);
    if (it != s->producers.end()) {
      if (!it->second->closed) p = it->second.get();
    } else if (s->management_requests.count(link) > 0) {
      return OnManagementDelivery(s, link, d);  // looked for only once a transfer is no producer's
    }
  }
  if (p != nullptr && d != p->receiving) {
    // The first frame of a transfer: it must be within the credit we granted (core 2.6.7). Proton
    // does not enforce it, so a producer ignoring credit is detached before anything more is stored.
    if (p->credit_left <= 0) {
      SetCondition(pn_link_condition(link), "amqp:link:transfer-limit-exceeded",
                   "transfer beyond the link credit granted (window " + std::to_string(options.producer_credit) + ")");
      pn_link_close(link);
      p->closed = true;
      p->buffer.clear();
      if (s->links > 0) --s->links;
      Log("sift serve: producer to %s detached: transfer beyond its credit\n", p->stream);
      p = nullptr;
    } else {
      --p->credit_left;
      p->receiving = d;
    }
  }
  char buf[16384];
  ssize_t n;
  while ((n = pn_link_recv(link, buf, sizeof buf)) > 0) {
    if (p == nullptr) continue;
    if (p->buffer.size() + static_cast<size_t>(n) > options.max_message_bytes) {
      p->too_large = true;
      p->buffer.clear();
    }
    if (!p->too_large) p->buffer.append(buf, static_cast<size_t>(n));
  }
  if (pn_delivery_aborted(d)) {  // core 2.6.14: an aborted transfer is discarded
    if (p) {
      p->buffer.clear();
      p->too_large = false;
      p->receiving = nullptr;
    }
    pn_delivery_settle(d);
    return;
  }
  if (pn_delivery_partial(d)) return;
  pn_link_advance(link);
  if (p != nullptr) p->receiving = nullptr;
  if (p == nullptr) {
    pn_delivery_settle(d);
    return;
  }
  if (p->too_large) {
    pn_condition_t* c = pn_disposition_condition(pn_delivery_local(d));
    SetCondition(c, "amqp:link:message-size-exceeded",
                 "message larger than the limit of " + std::to_string(options.max_message_bytes) + " bytes");
    pn_delivery_update(d, PN_REJECTED);
    pn_delivery_settle(d);
    metrics.appends_rejected.fetch_add(1, std::memory_order_relaxed);
    p->too_large = false;
    p->buffer.clear();
    TopUpCredit(link, p);
    return;
  }
  std::string claimed;
  if (!UserIdMatches(p->buffer, s->user, &claimed)) {
    SetCondition(pn_disposition_condition(pn_delivery_local(d)), "amqp:unauthorized-access",
                 "the message's user-id '" + claimed + "' is not the authenticated user '" + s->user + "'");
    pn_delivery_update(d, PN_REJECTED);
    pn_delivery_settle(d);
    p->buffer.clear();
    TopUpCredit(link, p);
    return;
  }
  AppendJob job;
  job.conn = conns[pn_session_connection(pn_link_session(link))];
  job.delivery = d;
  job.link = link;
  job.producer_id = p->id;
  job.stream_copy = p->stream;
  job.bytes.swap(p->buffer);
  flow.AddInbound(static_cast<int64_t>(job.bytes.size()));
  ++p->outstanding;
  ++in_flight;
  {
    std::lock_guard<std::mutex> lock(append_mu);
    append_queue.push_back(std::move(job));
  }
  append_cv.notify_one();
}

void Server::Impl::LogStoreHealth() {
  const StoreHealth health = engine->Health();
  if (store_writable.exchange(health.writable) == health.writable) return;
  if (!health.writable) {
    fprintf(stderr, "sift serve: the store takes no appends (producers get modified, delivery-failed)%s: %s\n",
            health.needs_reopen
                ? " until it is reopened (once the file system has room, every connection is closed for it)"
                : " until it recovers",
            health.error.c_str());
  } else {
    fprintf(stderr, "sift serve: the store takes appends again\n");
  }
}

void Server::Impl::ReopenStoreWhenRoom(Clock::time_point now) {
  if (shutting_down || store_writable.load() || now < next_reopen_check) return;
  next_reopen_check = now + kReopenCheckInterval;
  const StoreHealth health = engine->Health();
  if (!health.needs_reopen) return;
  uint64_t free_bytes = 0;
  std::string error;
  if (!FileSystemFreeBytes(store_path, &free_bytes, &error)) return;
  if (free_bytes < health.reopen_bytes + kReopenHeadroomBytes) return;
  exit_code = Server::kReopenStore;
  BeginShutdown("reopening the store: closing every connection (clients reconnect)");
}

void Server::Impl::TopUpCredit(pn_link_t* link, ProducerLink* p) {
  if (p->closed || shutting_down || (pn_link_state(link) & PN_LOCAL_CLOSED)) return;
  if (!flow.producers_may_send()) return;
  const int64_t window = options.producer_credit;
  const int64_t used = p->credit_left + p->outstanding;
  if (used <= window / 2) {  // in batches, not one flow per message
    p->credit_left += window - used;
    pn_link_flow(link, static_cast<int>(window - used));
  }
}

void Server::Impl::CheckAlarms() {
  const auto now = Clock::now();
  if (options.min_disk_free > 0 && now >= next_disk_check) {
    next_disk_check = now + kDiskCheckInterval;
    uint64_t free_bytes = 0;
    std::string error;
    if (FileSystemFreeBytes(store_path, &free_bytes, &error)) {
      flow.SetDiskFree(free_bytes);
    } else {
      Log("sift serve: cannot read the free space of the store: %s\n", store_path + ": " + error);
    }
  }
  flow.SetStoreWritable(store_writable.load());
  std::string change;
  if (flow.Evaluate(&change)) {
    fprintf(stderr, "sift serve: %s\n", change.c_str());
    const FlowState state = flow.state();
    metrics.memory_alarm.store(state.memory_alarm ? 1 : 0, std::memory_order_relaxed);
    metrics.disk_alarm.store(state.disk_alarm ? 1 : 0, std::memory_order_relaxed);
  }
  const bool withheld = !flow.producers_may_send();
  if (credit_withheld && !withheld) {
    for (auto& [c, s] : conns) {
      ConnState* state = s.get();
      state->Post([state] { state->topup_requested = true; });
    }
  }
  credit_withheld = withheld;
}

void Server::Impl::OnWake(pn_connection_t* c) {
  auto it = conns.find(c);
  if (it == conns.end()) return;
  std::shared_ptr<ConnState> s = it->second;
  std::vector<AppendResult> results;
  std::vector<std::shared_ptr<ConsumerLink>> ready;
  std::optional<PendingLogin> login;
  std::vector<std::string> deleted;
  bool close = false, expired = false, drop = false, topup = false, refresh = false, memory = false;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    login.swap(s->login);
    deleted.swap(s->deleted_streams);
    results.swap(s->results);
    ready.swap(s->ready);
    close = s->close_requested;
    expired = s->handshake_expired;
    drop = s->drop_requested;
    topup = s->topup_requested;
    refresh = s->refresh_requested;
    memory = s->memory_requested;
    s->topup_requested = s->refresh_requested = s->memory_requested = false;
  }
  if ((expired && !s->opened) || drop) {
    pn_transport_t* t = pn_connection_transport(c);
    if (t != nullptr) {
      SetCondition(
          pn_transport_condition(t), "amqp:resource-limit-exceeded",
          drop ? "the peer did not answer the server's close in time" : "no AMQP open within the handshake deadline");
      pn_transport_close_tail(t);
      pn_transport_close_head(t);
    }
    return;
  }
  if (login.has_value()) {
    if (pn_transport_t* t = pn_connection_transport(c)) authenticator->Complete(t, *login);
  }
  for (const std::string& stream : deleted) DetachDeletedStream(s.get(), stream);
  if (!results.empty()) CheckAlarms();
  for (AppendResult& r : results) {
    // A freed link's deliveries are gone with it: only results of a live producer are settled.
    auto p = s->producers.find(r.link);
    if (p == s->producers.end() || p->second->id != r.producer_id) continue;
    if (!pn_delivery_settled(r.delivery)) {  // a pre-settled transfer gets no outcome (core 2.6.12)
      if (r.accepted) {
        pn_delivery_update(r.delivery, PN_ACCEPTED);
      } else if (r.store_failed) {
        // `modified` carries no error: the reason is in the server's log (LogStoreHealth).
        pn_disposition_set_failed(pn_delivery_local(r.delivery), true);
        pn_delivery_update(r.delivery, PN_MODIFIED);
      } else {
        SetCondition(pn_disposition_condition(pn_delivery_local(r.delivery)), r.condition, r.description);
        pn_delivery_update(r.delivery, PN_REJECTED);
      }
    }
    pn_delivery_settle(r.delivery);
    if (p->second->outstanding > 0) --p->second->outstanding;
    TopUpCredit(r.link, p->second.get());
  }
  if (topup) {
    for (auto& [link, p] : s->producers) TopUpCredit(link, p.get());
  }
  for (auto& consumer : ready) ServiceConsumer(consumer);
  if (memory && s->memory_wait.exchange(false)) ServiceConsumers(s.get());
  if (refresh || s->output_blocked) ResumeOutput(s.get());
  if (close && !(pn_connection_state(c) & PN_LOCAL_CLOSED)) {
    SetCondition(pn_connection_condition(c), "amqp:connection:forced", ShutdownReason());
    pn_connection_close(c);
  }
}

void Server::Impl::OnTransportError(pn_transport_t* t) {
  pn_condition_t* c = pn_transport_condition(t);
  if (!pn_condition_is_set(c)) return;
  const char* name = pn_condition_get_name(c);
  const char* description = pn_condition_get_description(c);
  // A TLS failure is logged whatever -v says: it is how a misconfigured client, or someone probing
  // the port, shows up in the server's log.
  const std::string cause =
      ssl == nullptr ? std::string()
                     : TlsFailureCause(name ? name : "", description ? description : "", pn_transport_is_encrypted(t));
  if (!cause.empty()) {
    const char* subject = pn_ssl_get_remote_subject(pn_ssl(t));
    fprintf(stderr, "sift serve: TLS failed: %s: %s%s%s%s\n", PeerName(t).c_str(), PrintableText(cause).c_str(),
            subject ? " (certificate subject '" : "", subject ? PrintableText(subject).c_str() : "",
            subject ? "')" : "");
  } else if (options.verbose && (ssl == nullptr || pn_transport_is_encrypted(t))) {
    // Not for a cleartext client of the TLS port: Proton's description may quote the bytes it sent
    // (a pipelined SASL init, password and all), and its refusal is logged already.
    fprintf(stderr, "sift serve: connection error: %s: %s\n", name, description);
  }
}

void Server::Impl::ResumeOutput(ConnState* s) {
  const bool was_blocked = s->output_blocked;
  s->output_blocked = RefreshOutput(s) + s->unsettled.load(std::memory_order_relaxed) >= OutputCap();
  if (!was_blocked || s->output_blocked) return;
  ServiceConsumers(s);
}

void Server::Impl::ServiceConsumers(ConnState* s) {
  // A copy: servicing one may close it (a failed read), which erases it from the map.
  std::vector<std::shared_ptr<ConsumerLink>> consumers;
  for (auto& [link, consumer] : s->consumers) consumers.push_back(consumer);
  for (auto& consumer : consumers) ServiceConsumer(consumer);
}

void Server::Impl::CloseConsumers(ConnState* s) {
  for (auto& [link, consumer] : s->consumers) CloseConsumer(consumer);
  s->consumers.clear();
}

void Server::Impl::OnTransportClosed(pn_connection_t* c) {
  auto it = conns.find(c);
  if (it == conns.end()) return;
  std::shared_ptr<ConnState> s = it->second;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->alive = false;
    s->results.clear();
    s->ready.clear();
  }
  CloseConsumers(s.get());
  trim_requested.store(true);  // its buffers, and Proton's, are freed with it
  flow.AddOutbound(-static_cast<int64_t>(s->output));
  s->output = 0;
  if (!s->opened) handshakes.erase(s->handshake_seq);
  if (s->counted) {
    --open_connections;
    if (--per_address[s->address] == 0) per_address.erase(s->address);
  }
  for (auto& [link, producer] : s->producers) producer->open.Release();
  s->open.Release();
  conns.erase(it);
  if (closing_connections && conns.empty()) pn_proactor_cancel_timeout(proactor);
}

void Server::Impl::Tick() {
  const auto now = Clock::now();
  const auto deadline = std::chrono::milliseconds(options.handshake_timeout_ms);
  while (!handshakes.empty() && handshakes.begin()->second.first + deadline <= now) {
    ExpireHandshake(handshakes.begin()->second.second, "handshake deadline passed");
    handshakes.erase(handshakes.begin());
  }
  while (!close_deadlines.empty() && close_deadlines.front().first <= now) {
    if (std::shared_ptr<ConnState> s = close_deadlines.front().second.lock()) {
      s->Post([state = s.get()] { state->drop_requested = true; });
    }
    close_deadlines.pop_front();
  }
  CheckAlarms();
  ReopenStoreWhenRoom(now);
  metrics.consumer_memory.store(static_cast<int64_t>(flow.outbound() + flow.links()), std::memory_order_relaxed);
  const bool pressure = UnderPressure();
  const bool at_limit = ConsumersAtLimit();
  for (auto& [c, s] : conns) {
    ConnState* state = s.get();
    // Stalled: it has output to send or read-ahead waiting, and no frame went either way for
    // kStalledAfter (Proton frames output only once its last write went out whole, and a client that
    // reads settles or grants credit now and then). Under pressure it gives back what its consumers
    // hold, at once when consumers are at their limit (nobody may read then, a new client included),
    // and reads nothing more until a frame moves again. Only counters are read here: the connection's
    // transport is not touched outside its own events.
    if (pn_transport_t* t = pn_connection_transport(c)) {
      const uint64_t frames = pn_transport_get_frames_output(t) + pn_transport_get_frames_input(t);
      const bool busy = s->output > 0 || s->pending.load(std::memory_order_relaxed) > 0;
      if (frames != s->frames_seen) {
        s->frames_seen = frames;
        s->progress_at = now;
        s->stalled.store(false, std::memory_order_relaxed);
      } else if (!busy) {
        s->progress_at = now;
      } else if (pressure && (at_limit || now - s->progress_at >= kStalledAfter)) {
        DropReadAhead(state, true);
      }
    }
    // Consumers that found no memory to read into try again once their connection may read.
    const bool waiting = s->memory_wait.load(std::memory_order_relaxed) && !s->output_blocked && MayRead(*s);
    // Queued output may drain unseen, and a cap grows again when the pressure ends. A connection
    // that is stalled, or held back only by deliveries its peer has not settled (it hears of those,
    // OnDelivery), is looked at every kTickMs, not every kBlockedTickMs: a thousand of them would
    // keep the event thread busy with nothing else.
    bool look = s->output > 0 || s->output_blocked;
    if (look && (s->stalled.load(std::memory_order_relaxed) || s->output == 0)) {
      look = now - s->looked_at >= std::chrono::milliseconds(kTickMs);
    }
    if (!look && !waiting) continue;
    if (look) s->looked_at = now;
    state->Post([state, waiting] {
      state->refresh_requested = true;
      state->memory_requested = state->memory_requested || waiting;
    });
  }
}

int Server::Impl::NextTick() const {
  for (const auto& [c, s] : conns) {
    if (s->output_blocked) return kBlockedTickMs;
  }
  return kTickMs;
}

const char* Server::Impl::ShutdownReason() const {
  return exit_code == Server::kReopenStore ? "the server is reopening its store: reconnect"
                                           : "the server is shutting down";
}

void Server::Impl::BeginShutdown(const char* why) {
  if (shutting_down) return;
  shutting_down = true;
  fprintf(stderr, "sift serve: %s\n", why);
  if (listener != nullptr) pn_listener_close(listener);
  shutdown_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  pn_proactor_set_timeout(proactor, 20);
}

void Server::Impl::OnTimeout() {
  Tick();
  if (!shutting_down) {
    pn_proactor_set_timeout(proactor, NextTick());
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!closing_connections) {
    if (in_flight.load() > 0 && now < shutdown_deadline) {
      pn_proactor_set_timeout(proactor, 20);
      return;
    }
    // Every append is settled-to-be: ask each connection to send its outcomes, then close.
    closing_connections = true;
    for (auto it = conns.begin(); it != conns.end(); ++it) {
      ConnState* s = it->second.get();
      s->Post([s] { s->close_requested = true; });
    }
    if (conns.empty()) return;  // nothing to wait for: the proactor goes inactive
    shutdown_deadline = now + std::chrono::seconds(3);
    pn_proactor_set_timeout(proactor, 3000);
    return;
  }
  pn_proactor_disconnect(proactor, nullptr);  // peers that did not answer our close
}

bool Server::Impl::Handle(pn_event_t* e) {
  switch (pn_event_type(e)) {
    case PN_LISTENER_OPEN: {
      pn_proactor_set_timeout(proactor, kTickMs);
      char host[256] = "", port[32] = "";
      pn_netaddr_host_port(pn_listener_addr(pn_event_listener(e)), host, sizeof host, port, sizeof port);
      printf("sift serve: listening on %s:%s\n", host, port);
      fflush(stdout);
      listening_port = port;
      break;
    }
    case PN_LISTENER_ACCEPT: OnAccept(pn_event_listener(e)); break;
    case PN_LISTENER_CLOSE: {
      pn_condition_t* c = pn_listener_condition(pn_event_listener(e));
      if (pn_condition_is_set(c)) {
        PrintError("cannot listen", options.listen, pn_condition_get_description(c));
        exit_code = kExitStorage;
        shutting_down = true;
      }
      listener = nullptr;
      break;
    }
    case PN_PROACTOR_INTERRUPT: BeginShutdown(); break;
    case PN_PROACTOR_TIMEOUT: OnTimeout(); break;
    case PN_PROACTOR_INACTIVE:
      if (shutting_down) return false;
      break;
    case PN_CONNECTION_REMOTE_OPEN: OnConnectionOpen(pn_event_connection(e)); break;
    case PN_CONNECTION_REMOTE_CLOSE: pn_connection_close(pn_event_connection(e)); break;
    case PN_CONNECTION_WAKE: OnWake(pn_event_connection(e)); break;
    case PN_SESSION_REMOTE_OPEN: OnSessionOpen(pn_event_session(e)); break;
    case PN_SESSION_REMOTE_CLOSE: OnSessionClose(pn_event_session(e)); break;
    case PN_LINK_REMOTE_OPEN: OnLinkOpen(pn_event_link(e)); break;
    case PN_LINK_REMOTE_CLOSE: OnLinkClose(pn_event_link(e), true); break;
    case PN_LINK_REMOTE_DETACH: OnLinkClose(pn_event_link(e), false); break;
    case PN_LINK_FLOW: {
      pn_link_t* link = pn_event_link(e);
      if (pn_link_is_sender(link)) {
        ConnState* s = Conn(pn_session_connection(pn_link_session(link)));
        if (s != nullptr) {
          if (auto it = s->consumers.find(link); it != s->consumers.end()) {
            ServiceConsumer(it->second);
          } else if (auto r = s->management_replies.find(link); r != s->management_replies.end()) {
            SendReplies(link, &r->second);
          }
        }
      }
      break;
    }
    case PN_DELIVERY: OnDelivery(e); break;
    case PN_TRANSPORT_ERROR: OnTransportError(pn_event_transport(e)); break;
    case PN_TRANSPORT: {  // output was produced or written: a held-back connection may send on
      pn_connection_t* c = pn_event_connection(e);
      ConnState* s = c ? Conn(c) : nullptr;
      if (s != nullptr && s->output_blocked) ResumeOutput(s);
      break;
    }
    case PN_TRANSPORT_CLOSED: OnTransportClosed(pn_event_connection(e)); break;
    default: break;
  }
  return true;
}

Server::Server(const ServeOptions& options, StreamEngine* engine, const Authenticator* authenticator,
               pn_ssl_domain_t* ssl)
    : impl_(std::make_unique<Impl>(options, engine, authenticator, ssl)) {}

Server::~Server() = default;

FlowState Server::flow_state() const { return impl_->flow.state(); }

std::string Server::listening_port() const { return impl_->listening_port; }

std::string Server::metrics_address() const {
  return impl_->metrics_endpoint ? impl_->metrics_endpoint->address() : std::string();
}

int Server::Run(const std::string& host, const std::string& port) {
  Impl& m = *impl_;
  if (!m.options.metrics.empty() && !m.StartMetrics()) return kExitStorage;
  m.proactor = pn_proactor();
  m.CheckAlarms();  // a full disk withholds credit from the first producer on
  m.append_thread = std::thread([&m] { m.AppendLoop(); });
  for (uint32_t i = 0; i < m.options.reader_threads; ++i) m.readers.emplace_back([&m] { m.ReaderLoop(); });
  m.retention_thread = std::thread([&m] { m.RetentionLoop(); });  // also retries a failed store

  // SIGTERM / SIGINT are blocked in every thread (RunServe blocks them before starting any) and
  // taken here, synchronously, so the handler may call into Proton.
  std::atomic<bool> stop_signals{false};
  std::atomic<bool> signalled{false};
  std::thread signals([&] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    timespec tick{0, 200 * 1000 * 1000};
    while (!stop_signals.load()) {
      if (sigtimedwait(&set, nullptr, &tick) > 0) {
        signalled = true;
        pn_proactor_interrupt(m.proactor);
        return;
      }
    }
  });

  char addr[PN_MAX_ADDR];
  pn_proactor_addr(addr, sizeof addr, host.c_str(), port.c_str());
  m.listener = pn_listener();
  pn_proactor_listen(m.proactor, m.listener, addr, 64);

  bool running = true;
  while (running) {
    pn_event_batch_t* batch = pn_proactor_wait(m.proactor);
    pn_event_t* e;
    while ((e = pn_event_batch_next(batch)) != nullptr) {
      if (!m.Handle(e)) running = false;
    }
    pn_proactor_done(m.proactor, batch);
  }

  stop_signals = true;
  signals.join();
  // A signal that came while connections were closing for a reopen ends the server instead.
  if (signalled.load() && m.exit_code == Server::kReopenStore) m.exit_code = kExitMatched;
  if (m.retention_thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(m.retention_mu);
      m.retention_stop = true;
    }
    m.retention_cv.notify_all();
    m.retention_thread.join();
  }
  {
    std::lock_guard<std::mutex> lock(m.append_mu);
    m.append_stop = true;
  }
  m.append_cv.notify_all();
  m.append_thread.join();
  {
    std::lock_guard<std::mutex> lock(m.read_mu);
    m.read_stop = true;
  }
  m.read_cv.notify_all();
  for (std::thread& t : m.readers) t.join();
  if (m.login_checker) m.login_checker->Stop();
  if (m.metrics_endpoint) m.metrics_endpoint->Stop();
  m.read_queue.clear();
  m.read_queue_large.clear();
  m.waiters.clear();
  m.conns.clear();
  pn_proactor_free(m.proactor);
  m.proactor = nullptr;
  return m.exit_code;
}

}  // namespace sift::tools
