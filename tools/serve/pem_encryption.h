// Which blocks of a PEM file are encrypted, read without decrypting anything, so that the server can
// refuse an encrypted key that has no password before OpenSSL sees it. OpenSSL asks for a missing
// password with its own prompt (a read from the terminal, or from stdin when piped), and Proton
// installs a password callback only when it is given a password: a server must never stop there.
#ifndef SIFT_TOOLS_SERVE_PEM_ENCRYPTION_H_
#define SIFT_TOOLS_SERVE_PEM_ENCRYPTION_H_

#include <string>

namespace sift::tools {

struct PemEncryption {
  // A private key block encrypted in PKCS#8 ("ENCRYPTED PRIVATE KEY") or the legacy way (a
  // "Proc-Type: 4,ENCRYPTED" header).
  bool key = false;
  // Any other block with a "Proc-Type: 4,ENCRYPTED" header (a certificate, say), which OpenSSL would
  // also ask a password for.
  bool other = false;
};

// Reads the PEM blocks of `path` (headers only decoded, nothing decrypted) into *found. False with
// *error when the file cannot be opened or holds a malformed block.
bool ScanPemEncryption(const std::string& path, PemEncryption* found, std::string* error);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_PEM_ENCRYPTION_H_
