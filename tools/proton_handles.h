// Owning handles for the Proton C objects the tools create and free themselves: each is freed once,
// on every path, by the unique_ptr that holds it. (Connections, transports and links belong to the
// proactor and are never held this way.)
#ifndef SIFT_TOOLS_PROTON_HANDLES_H_
#define SIFT_TOOLS_PROTON_HANDLES_H_

#include <proton/message.h>
#include <proton/ssl.h>

#include <memory>

namespace sift::tools {

struct SslDomainFree {
  void operator()(pn_ssl_domain_t* d) const { pn_ssl_domain_free(d); }
};
using SslDomainPtr = std::unique_ptr<pn_ssl_domain_t, SslDomainFree>;

struct MessageFree {
  void operator()(pn_message_t* m) const { pn_message_free(m); }
};
using MessagePtr = std::unique_ptr<pn_message_t, MessageFree>;

}  // namespace sift::tools

#endif  // SIFT_TOOLS_PROTON_HANDLES_H_
