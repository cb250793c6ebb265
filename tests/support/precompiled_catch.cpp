// The translation unit that makes the precompiled Catch2 header every test target reuses
// (tests/CMakeLists.txt, pssim_test_pch); it holds no tests.
