# SPDX-License-Identifier: MIT
# Third-party libraries, all from Debian packages (`make deps`). FFTW is located with
# find_path/find_library so that CMAKE_PREFIX_PATH works on the GPU machine, whose .pc files
# point at the wrong prefix.
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)

find_path(FFTW3_INCLUDE_DIR fftw3.h REQUIRED)
find_library(FFTW3F_LIBRARY NAMES fftw3f REQUIRED)
find_library(FFTW3F_OMP_LIBRARY NAMES fftw3f_omp REQUIRED)
find_library(FFTW3_LIBRARY NAMES fftw3 REQUIRED)
add_library(fastpsr_fftw INTERFACE)
target_include_directories(fastpsr_fftw SYSTEM INTERFACE ${FFTW3_INCLUDE_DIR})
target_link_libraries(fastpsr_fftw INTERFACE ${FFTW3F_OMP_LIBRARY} ${FFTW3F_LIBRARY} ${FFTW3_LIBRARY}
                      OpenMP::OpenMP_CXX)

if(FASTPSR_BUILD_TESTS)
  find_package(doctest REQUIRED)
endif()
