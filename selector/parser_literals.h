// Literal values of the selector language, for the parser (parser.cc): the text of an integer,
// decimal or approximate number, string or binary token (as the lexer delimited it) into its value.
// Private to selector/.
#ifndef SIFT_SELECTOR_PARSER_LITERALS_H_
#define SIFT_SELECTOR_PARSER_LITERALS_H_

#include <string>
#include <string_view>

#include "selector/selector.h"
#include "selector/value.h"

namespace sift::selector {

// An integer literal: decimal, or in the JMS dialect also hexadecimal, octal or binary, with Java's
// '_' between digits and 'l' / 'L' suffix. False with *why set when it is out of range or malformed.
bool IntegerLiteral(std::string_view text, Dialect dialect, Value* out, std::string* why);
// A decimal or approximate number: a double, or in the JMS dialect also Java's forms (".5", "5.",
// hexadecimal floating point, 'f' / 'd' suffixes; 'f' makes a float). False with *why set when it is
// out of range or malformed.
bool FloatingLiteral(std::string_view text, Dialect dialect, Value* out, std::string* why);
// The text of a quoted string literal, its quotes removed and doubled quotes made single.
std::string StringLiteral(std::string_view text);
// The bytes of a binary literal X'...' (the lexer let through only pairs of hex digits).
std::string BinaryLiteral(std::string_view text);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_PARSER_LITERALS_H_
