# Every dependency comes from a Debian 12 package (scripts/install-deps.sh installs them).
# Nothing is downloaded at configure time.
find_package(Boost 1.74 REQUIRED)             # Graph and Random are header-only
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)               # target: yaml-cpp (no namespace in 0.7)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)                   # gzipped IDX files (zlib1g-dev)
if(PSSIM_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)             # v2: <catch2/catch.hpp>, Catch2::Catch2WithMain
endif()
