// CommonNameFromSubject: the one common name of a subject as X509_NAME_print_ex (XN_FLAG_RFC2253)
// prints it, unescaped, and every subject that must not log anyone in refused with its reason. The
// subjects below are what OpenSSL 3.0 prints for the certificates serve_auth_test.py crafts.
#include "tools/serve/certificate_name.h"

#include <gtest/gtest.h>

#include <string>

namespace sift::tools {
namespace {

std::string Name(std::string_view subject) {
  std::string name, why;
  EXPECT_TRUE(CommonNameFromSubject(subject, &name, &why)) << subject << ": " << why;
  return name;
}

std::string Refusal(std::string_view subject) {
  std::string name, why;
  EXPECT_FALSE(CommonNameFromSubject(subject, &name, &why)) << subject << " gave '" << name << "'";
  return why;
}

TEST(CertificateName, PlainCommonName) {
  EXPECT_EQ(Name("CN=alice"), "alice");
  EXPECT_EQ(Name("CN=alice,OU=ops,O=Example,C=DE"), "alice");
  EXPECT_EQ(Name("emailAddress=a@example.com,CN=alice,O=Example"), "alice");
}

TEST(CertificateName, EscapesAreUndone) {
  EXPECT_EQ(Name("CN=Smith\\, Alice,O=Example"), "Smith, Alice");
  EXPECT_EQ(Name("CN=a\\+b\\\\c\\;d\\<e\\>f\\\"g"), "a+b\\c;d<e>f\"g");
  EXPECT_EQ(Name("CN=\\#1\\ "), "#1 ");
  EXPECT_EQ(Name("CN=a=b"), "a=b");
  EXPECT_EQ(Name("CN=J\\C3\\BCrgen"), "J\xc3\xbcrgen");  // ESC_MSB: each UTF-8 byte as \XX
  EXPECT_EQ(Name("CN=\\E6\\85\\AC"), "\xe6\x85\xac");
}

TEST(CertificateName, NulAndControlCharactersAreRefused) {
  // A UTF8String "alice\0.evil.example": the raw subfield would read "alice".
  EXPECT_EQ(Refusal("CN=alice\\00.evil.example"), "the common name holds a NUL byte");
  EXPECT_EQ(Refusal("CN=alice\\00"), "the common name holds a NUL byte");
  EXPECT_EQ(Refusal("CN=ali\\01ce"), "the common name holds a control character");
  EXPECT_EQ(Refusal("CN=alice\\0A"), "the common name holds a control character");
  EXPECT_EQ(Refusal("CN=alice\\7F"), "the common name holds a control character");
  EXPECT_EQ(Refusal("CN=alice\\C2\\85"), "the common name holds a control character");  // U+0085, C1
}

TEST(CertificateName, BmpStringIsConvertedNotTakenAsBytes) {
  // A BMPString whose raw bytes are "alice\0" is three CJK characters, not "alice".
  EXPECT_EQ(Name("CN=\\E6\\85\\AC\\E6\\A5\\A3\\E6\\94\\80"), "\xe6\x85\xac\xe6\xa5\xa3\xe6\x94\x80");
}

TEST(CertificateName, InvalidUtf8IsRefused) {
  EXPECT_EQ(Refusal("CN=alice\\FF"), "the common name is not valid UTF-8");
  EXPECT_EQ(Refusal("CN=\\C3"), "the common name is not valid UTF-8");
  EXPECT_EQ(Refusal("CN=\\ED\\A0\\80"), "the common name is not valid UTF-8");  // a surrogate
  EXPECT_EQ(Refusal("CN=\\C0\\AF"), "the common name is not valid UTF-8");      // overlong
}

TEST(CertificateName, NoneOrSeveralCommonNamesAreRefused) {
  EXPECT_EQ(Refusal("O=Example,C=DE"), "the certificate subject has no common name (CN)");
  EXPECT_EQ(Refusal(""), "the certificate subject has no common name (CN)");
  EXPECT_EQ(Refusal("CN=bob,CN=alice"), "the certificate subject has 2 common names (CN), not one");
  EXPECT_EQ(Refusal("CN=alice+CN=bob"), "the certificate subject has 2 common names (CN), not one");
  EXPECT_EQ(Refusal("CN=alice,O=x+CN=alice"), "the certificate subject has 2 common names (CN), not one");
}

TEST(CertificateName, EmptyOrNonStringValuesAreRefused) {
  EXPECT_EQ(Refusal("CN="), "the common name is empty");
  EXPECT_EQ(Refusal("CN=,O=Example"), "the common name is empty");
  EXPECT_EQ(Refusal("CN=#0405616C696365"), "the common name is not a string");
}

TEST(CertificateName, MalformedSubjectsAreRefused) {
  EXPECT_EQ(Refusal("CN=alice\\"), "malformed certificate subject (it ends in an escape)");
  EXPECT_EQ(Refusal("alice"), "malformed certificate subject (an attribute without a type)");
  EXPECT_EQ(Refusal("=alice"), "malformed certificate subject (an attribute without a type)");
}

}  // namespace
}  // namespace sift::tools
