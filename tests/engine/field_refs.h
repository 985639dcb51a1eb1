// FieldRef and PathStep builders for the engine's field-source tests.
#ifndef SIFT_TESTS_ENGINE_FIELD_REFS_H_
#define SIFT_TESTS_ENGINE_FIELD_REFS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "selector/field_source.h"

namespace sift::testing {

inline selector::FieldRef Field(selector::Section section, std::string name,
                                std::vector<selector::PathStep> path = {}) {
  selector::FieldRef f;
  f.section = section;
  f.name = std::move(name);
  f.path = std::move(path);
  return f;
}

inline selector::PathStep Key(std::string key) {
  return selector::PathStep{selector::PathStep::Kind::kKey, 0, std::move(key)};
}

inline selector::PathStep Index(uint64_t index) {
  return selector::PathStep{selector::PathStep::Kind::kIndex, index, ""};
}

}  // namespace sift::testing

#endif  // SIFT_TESTS_ENGINE_FIELD_REFS_H_
