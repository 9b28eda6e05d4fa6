// SPDX-License-Identifier: MIT
#include "common/pinned_arena.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "common/cuda_try.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::cuda {

PinnedArena::PinnedArena(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ == 0) return;
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  map_bytes_ = (bytes_ + kHuge - 1) / kHuge * kHuge + kHuge;  // room to align to 2 MiB
  map_ = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error(ErrorCode::resource, fmt::format("cannot map {:.1f} MiB of host memory for the GPU's transfers: {}",
                                                 static_cast<double>(bytes_) / 1048576.0, std::strerror(errno)));
  }
  const auto base = reinterpret_cast<std::uintptr_t>(map_);
  ptr_ = reinterpret_cast<std::uint8_t*>((base + kHuge - 1) / kHuge * kHuge);
#ifdef MADV_HUGEPAGE
  (void)::madvise(ptr_, bytes_, MADV_HUGEPAGE);  // a hint: fewer faults and page-table entries
#endif
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  const std::size_t share = (bytes_ / threads + 4095) / 4096 * 4096;
  std::vector<std::thread> touching;
  for (std::size_t t = 0; t < threads; ++t) {
    touching.emplace_back([this, t, share] {
      const std::size_t end = std::min(bytes_, (t + 1) * share);
      for (std::size_t b = t * share; b < end; b += 4096) ptr_[b] = 0;
    });
  }
  for (auto& t : touching) t.join();
  const cudaError_t e = cudaHostRegister(ptr_, bytes_, cudaHostRegisterDefault);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    ::munmap(map_, map_bytes_);
    map_ = nullptr;
    ptr_ = nullptr;
    FASTPSR_CUDA_TRY(e);
  }
}

void PinnedArena::release() noexcept {
  if (map_ == nullptr) return;
  (void)cudaHostUnregister(ptr_);
  ::munmap(map_, map_bytes_);
  map_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
}

PinnedArena::~PinnedArena() { release(); }

PinnedArena::PinnedArena(PinnedArena&& o) noexcept
    : bytes_(std::exchange(o.bytes_, 0)),
      map_bytes_(std::exchange(o.map_bytes_, 0)),
      map_(std::exchange(o.map_, nullptr)),
      ptr_(std::exchange(o.ptr_, nullptr)) {}

PinnedArena& PinnedArena::operator=(PinnedArena&& o) noexcept {
  if (this != &o) {
    release();
    bytes_ = std::exchange(o.bytes_, 0);
    map_bytes_ = std::exchange(o.map_bytes_, 0);
    map_ = std::exchange(o.map_, nullptr);
    ptr_ = std::exchange(o.ptr_, nullptr);
  }
  return *this;
}

}  // namespace fastpsr::cuda
