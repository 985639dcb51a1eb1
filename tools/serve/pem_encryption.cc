// PEM blocks read with OpenSSL's PEM_read_bio, which decodes a block without decrypting it (see
// pem_encryption.h).
#include "tools/serve/pem_encryption.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string_view>

namespace sift::tools {

bool ScanPemEncryption(const std::string& path, PemEncryption* found, std::string* error) {
  *found = PemEncryption{};
  ERR_clear_error();
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_file(path.c_str(), "r"), &BIO_free);
  if (in == nullptr) {
    ERR_clear_error();
    *error = path + ": cannot read the file";
    return false;
  }
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(in.get(), &name, &header, &data, &length) != 1) break;
    EVP_CIPHER_INFO cipher{};
    const bool legacy = PEM_get_EVP_CIPHER_INFO(header, &cipher) == 1 && cipher.cipher != nullptr;
    const std::string_view type = name;
    const bool is_key = type.find("PRIVATE KEY") != std::string_view::npos;
    if (is_key && (legacy || type == PEM_STRING_PKCS8)) found->key = true;
    if (!is_key && legacy) found->other = true;
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
  }
  // The loop ends at the end of the file (no further start line) or at a block it cannot decode.
  const unsigned long last = ERR_peek_last_error();
  ERR_clear_error();
  if (last != 0 && !(ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE)) {
    *error = path + ": a malformed PEM block";
    return false;
  }
  return true;
}

}  // namespace sift::tools
