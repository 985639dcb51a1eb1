// The user name SASL EXTERNAL takes from a client certificate: the one common name (CN) of the
// subject, read from the subject as Proton gives it (pn_ssl_get_remote_subject), never from the raw
// bytes of the entry.
//
// Proton prints the subject with OpenSSL's X509_NAME_print_ex and XN_FLAG_RFC2253: the most
// specific attribute first, `,` between relative names and `+` inside one, every string converted
// to UTF-8, a special character (`,+"\<>;`, `#` or a space at the start, a space at the end)
// escaped as `\c`, a control byte and every byte of a non-ASCII character as `\XX`, and a value of
// a type that is no string as `#` and the hex of its DER. Reading that text back gives each
// entry's true UTF-8 value, NUL bytes included, where the raw subfield Proton also offers
// (pn_ssl_get_remote_subject_subfield) stops at a NUL and passes BMPString and UniversalString
// bytes through unconverted. OpenSSL refuses to decode a certificate whose name strings do not
// convert to UTF-8, so a certificate that got through the handshake prints whole.
#ifndef SIFT_TOOLS_SERVE_CERTIFICATE_NAME_H_
#define SIFT_TOOLS_SERVE_CERTIFICATE_NAME_H_

#include <string>
#include <string_view>

namespace sift::tools {

// The common name of `subject` (RFC 2253 text as above) into *name. False with *why when the
// subject is malformed, has no common name or more than one, or when the name is empty, is no
// string, is not valid UTF-8, or holds a NUL or another control character (C0, DEL or C1): none of
// these can name a user.
bool CommonNameFromSubject(std::string_view subject, std::string* name, std::string* why);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_CERTIFICATE_NAME_H_
