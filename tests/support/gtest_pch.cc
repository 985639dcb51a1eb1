// Compiled only so that its target (sift_test_pch, tests/CMakeLists.txt) builds the precompiled
// GoogleTest header the test binaries reuse; it holds no code.
