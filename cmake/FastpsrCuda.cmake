# SPDX-License-Identifier: MIT
# CUDA is optional: AUTO builds the CUDA backend whenever nvcc is found. A machine without a
# GPU still compiles it (CI does), and the GPU tests skip at run time.
set(FASTPSR_HAVE_CUDA OFF)
if(NOT FASTPSR_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Turing to Hopper as machine code, plus PTX of the newest for later GPUs.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;90")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)   # fmt 9 does not compile inside nvcc in C++20 mode
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(FASTPSR_HAVE_CUDA ON)
  elseif(FASTPSR_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "FASTPSR_WITH_CUDA=ON but no CUDA compiler was found")
  else()
    message(STATUS "No CUDA compiler found: building the CPU backend only")
  endif()
endif()
