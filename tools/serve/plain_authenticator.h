// The server side of SASL for a Proton transport: ANONYMOUS (RFC 4505) until a user file is loaded,
// then PLAIN (RFC 4616) only, checked against that file.
//
// Proton's built-in SASL offers only ANONYMOUS and EXTERNAL, and the Cyrus build Debian ships needs a
// system-wide SASL configuration (without it, it closes every connection after the SASL header);
// this is a small pnx_sasl_implementation (proton/sasl_plugin.h) with no configuration beyond the
// user file, loaded once at start-up.
//
// User file: one `user:password` per line; blank lines and lines starting with `#` are ignored; the
// password is everything after the first `:`. A line without `:` or with an empty user is an error
// naming the line. Keep the file readable by the server's user only (it holds passwords in clear).
//
// The table is immutable after Load(); Attach() may be called from the event thread for any number
// of transports, which keep a pointer to the authenticator: it must outlive them.
#ifndef SIFT_TOOLS_SERVE_PLAIN_AUTHENTICATOR_H_
#define SIFT_TOOLS_SERVE_PLAIN_AUTHENTICATOR_H_

#include <map>
#include <string>
#include <string_view>

struct pn_transport_t;

namespace sift::tools {

class PlainAuthenticator {
 public:
  // Reads the user file. False with *error ("FILE: line N: why") when it cannot be read or parsed.
  bool Load(const std::string& path, std::string* error);

  // Makes `transport` (server side, before it is bound) offer ANONYMOUS, or PLAIN against the table.
  void Attach(pn_transport_t* transport) const;

  // True when `user` exists and `password` is its password (compared in constant time).
  bool Check(std::string_view user, std::string_view password) const;

  size_t size() const { return users_.size(); }
  // True until Load() succeeded: the transport offers ANONYMOUS and accepts anyone.
  bool anonymous() const { return anonymous_; }

 private:
  bool anonymous_ = true;
  std::map<std::string, std::string, std::less<>> users_;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_PLAIN_AUTHENTICATOR_H_
