# SPDX-License-Identifier: MIT
# Warnings (and -Werror) apply to our own targets only, never to third-party headers,
# which are included as SYSTEM.
add_library(fastpsr_warnings INTERFACE)
target_compile_options(fastpsr_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
                            -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>)
# GCC 12 reports impossible overlaps in inlined std::string copies at -O2/-O3 (GCC bug 105651,
# fixed in 13); the warning is off there only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(fastpsr_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()
if(FASTPSR_WERROR)
  target_compile_options(fastpsr_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>
                         $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()

add_library(fastpsr_sanitize INTERFACE)
if(FASTPSR_SANITIZE)
  target_compile_options(fastpsr_sanitize INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${FASTPSR_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
  target_link_options(fastpsr_sanitize INTERFACE -fsanitize=${FASTPSR_SANITIZE})
endif()
