# Compile options shared by every pssim target, carried by the interface target
# `pssim_options` so that each library states them once by linking it.
add_library(pssim_options INTERFACE)
target_compile_options(pssim_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 reports false -Wrestrict overlaps inside std::string at -O3 (GCC bug 105329).
  target_compile_options(pssim_options INTERFACE -Wno-restrict)
  # Position-independent code (for the Python module) with the inlining of non-PIC code:
  # nothing in pssim relies on interposing its own functions.
  target_compile_options(pssim_options INTERFACE -fno-semantic-interposition)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Release" OR CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  # -O3 with -mtune=generic was measured ~1.3x faster for Eigen GEMM than -march=native alone.
  target_compile_options(pssim_options INTERFACE -O3)
endif()
if(PSSIM_NATIVE)
  target_compile_options(pssim_options INTERFACE -march=native -mtune=generic)
endif()
if(PSSIM_SANITIZE)
  target_compile_options(pssim_options INTERFACE -fsanitize=address,undefined
                         -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(pssim_options INTERFACE -fsanitize=address,undefined)
endif()
if(PSSIM_FUZZ)
  target_compile_options(pssim_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                         -fno-omit-frame-pointer)
  target_link_options(pssim_options INTERFACE -fsanitize=address,undefined)
endif()
