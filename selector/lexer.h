// The lexer: turns expression text into tokens, driven by a 256-entry character-class table
// (the SQLite tokenizer's approach), so each byte costs one table lookup to classify.
//
// Invariants: tokens are spans of the input, in order, never overlapping; the lexer reads no byte
// outside the input; every byte that starts no token is an error naming its offset. The text must
// be valid UTF-8 (an AMQP string); bytes >= 0x80 may appear in identifiers, strings and delimited
// identifiers only.
#ifndef SIFT_SELECTOR_LEXER_H_
#define SIFT_SELECTOR_LEXER_H_

#include <string_view>

#include "selector/error.h"
#include "selector/selector.h"
#include "selector/token.h"

namespace sift::selector {

class Lexer {
 public:
  Lexer(std::string_view text, Dialect dialect) : text_(text), dialect_(dialect) {}

  // The next token; kEnd at the end of the text (and again after that). On a lexical error returns
  // false and fills *error; the lexer must not be used afterwards.
  bool Next(Token* token, Error* error);

 private:
  bool LexNumber(uint32_t start, Token* token, Error* error);
  bool Fail(ErrorCode code, uint32_t position, uint32_t length, std::string message, Error* error);

  std::string_view text_;
  Dialect dialect_;
  uint32_t pos_ = 0;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_LEXER_H_
