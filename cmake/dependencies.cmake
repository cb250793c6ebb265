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
if(PSSIM_BUILD_PYTHON)
  # Debian's /usr/bin/python3 and its pybind11 (pybind11-dev, python3-dev): the extension
  # module must match the interpreter that imports it, not whichever python3 is on PATH.
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the pssim package is built for")
  set(PYBIND11_FINDPYTHON ON)
  find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
  find_package(pybind11 2.6 CONFIG REQUIRED)
endif()
# The libraries are linked into the Python extension module too: position-independent
# code, also when the module is not built, so that turning it on (scripts/build.sh) never
# recompiles them.
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
