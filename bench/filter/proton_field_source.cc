// The baseline's field source for programs of bench/ that compile this file rather than link
// sift_baseline (tools/baseline/CMakeLists.txt): its one implementation, tools/baseline/.
#include "tools/baseline/proton_field_source.cc"  // NOLINT(bugprone-suspicious-include)
