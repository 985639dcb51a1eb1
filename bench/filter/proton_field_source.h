// The baseline's field source moved to tools/baseline/ (`sift bench` runs it too); this name is kept
// for the programs of bench/ that include it from here.
#ifndef SIFT_BENCH_FILTER_PROTON_FIELD_SOURCE_H_
#define SIFT_BENCH_FILTER_PROTON_FIELD_SOURCE_H_

#include "tools/baseline/proton_field_source.h"

namespace sift::bench {
using ProtonFieldSource = baseline::ProtonFieldSource;
}  // namespace sift::bench

#endif  // SIFT_BENCH_FILTER_PROTON_FIELD_SOURCE_H_
