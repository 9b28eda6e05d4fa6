// SPDX-License-Identifier: MIT
#include "fastpsr/cuda/ppf_cuda.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "common/pinned_arena.hpp"
#include "common/setup_timing.hpp"
#include "fastpsr/error.hpp"
#include "ppf_engine.hpp"

namespace fastpsr::cuda {
namespace {

constexpr std::size_t kDefaultGulpBytes = std::size_t{64} << 20;  // the larger of input and output per push

// Streaming: per push the new samples go up into the raw buffer after the kept history, the
// engine makes the rows, the rows come down into one of two pinned slots, and the unconsumed
// tail moves to the front of the other raw buffer. push() returns the rows of the previous
// push, so the GPU works while the caller reads and writes files.
class CudaChanneliser final : public Channeliser {
 public:
  CudaChanneliser(const ChanneliserPlan& plan, const ChanneliserOptions& options, int device)
      : plan_(plan), device_(device), context_ms_(time_context(device)) {
    const auto props = device_properties(device_);
    cfg_ = ppf::parse_gpu_config(options.gpu_config, plan_, props);
    const auto& p = plan_.problem;
    const std::size_t c = static_cast<std::size_t>(p.nchans);
    const std::size_t spr = static_cast<std::size_t>(plan_.spectra_per_row());
    const std::size_t f = static_cast<std::size_t>(p.ncoarse);
    sample_bytes_ = plan_.sample_bytes();
    history_max_ = (static_cast<std::size_t>(p.ntaps - 1) + spr - 1) * c + (c - 1);
    const std::size_t row_samples = c * spr;
    if (options.gulp_samples > 0) {
      gulp_ = options.gulp_samples;
    } else {
      const std::size_t out_per_sample =
          plan_.complex_output() ? static_cast<std::size_t>(p.npol) * sizeof(float2) : sizeof(float);
      const std::size_t per_sample = std::max(sample_bytes_, out_per_sample) * f;
      gulp_ = std::max<std::size_t>(1, kDefaultGulpBytes / per_sample / row_samples) * row_samples;
    }
    capacity_ = history_max_ + gulp_;
    max_rows_ = static_cast<std::size_t>(plan_.rows_for_samples(capacity_));

    if (options.gpu_config.count("chunk") == 0) {  // no chunk longer than a push
      cfg_.chunk_spectra = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(cfg_.chunk_spectra),
                                                                  std::max<std::size_t>(max_rows_, 1) * spr));
    }
    engine_ = std::make_unique<ppf::PpfEngine>(plan_, cfg_, stream_.get());
    for (auto& r : raw_) r = DeviceBuffer<std::uint8_t>(f * capacity_ * sample_bytes_);
    out_rows_capacity_ = engine_->out_rows_capacity(std::max<std::size_t>(max_rows_, 1));
    d_out_ = DeviceBuffer<float>(out_rows_capacity_ * plan_.row_floats());
    // The two pinned output slots in one arena (faster to make and free than cudaHostAlloc).
    // The input's staging buffer is made at the first push that needs it: the ppf tool pushes
    // from input_buffers() only and never does.
    const auto t0 = SetupClock::now();
    const std::size_t out_bytes =
        round_to_page(std::max<std::size_t>(max_rows_, 1) * plan_.row_floats() * sizeof(float));
    pinned_ = PinnedArena(2 * out_bytes);
    for (int i = 0; i < 2; ++i) h_out_[i] = reinterpret_cast<float*>(pinned_.get() + i * out_bytes);
    pinned_ms_ = ms_since(t0);
    setup_ms_ = ms_since(created_);
  }

  ~CudaChanneliser() override { (void)cudaStreamSynchronize(stream_.get()); }

  [[nodiscard]] const ChanneliserPlan& plan() const noexcept override { return plan_; }
  [[nodiscard]] std::size_t gulp_samples() const noexcept override { return gulp_; }

  ChanneliserBlock push(const void* in, std::size_t n, std::size_t stride) override {
    FASTPSR_EXPECTS(n <= gulp_, "push of {} samples exceeds the gulp of {}", n, gulp_);
    if (stride == 0) stride = n;
    set_device(device_);
    const std::size_t f_count = static_cast<std::size_t>(plan_.ncoarse());
    const auto* src = static_cast<const std::uint8_t*>(in);
    // From one of input_buffers(): uploaded straight from it (no staging copy: on the H200
    // machine that copy was most of a push, ~0.25 s a GiB on one core), and the push returns
    // once the upload is done, as the caller may then refill the buffer.
    const bool direct = n > 0 && in_input_buffers(src, ((f_count - 1) * stride + n) * sample_bytes_);
    const std::uint8_t* upload_from = src;
    std::size_t upload_stride = stride;
    if (direct) {
      ++direct_pushes_;
    } else if (n > 0) {
      ++staged_pushes_;
      if (staging_.get() == nullptr) staging_ = PinnedArena(round_to_page(f_count * gulp_ * sample_bytes_));
      std::uint8_t* h_in = staging_.get();
      FASTPSR_CUDA_TRY(cudaEventSynchronize(h2d_done_.get()));  // the staging buffer is free again
      for (std::size_t f = 0; f < f_count; ++f) {
        std::memcpy(h_in + f * gulp_ * sample_bytes_, src + f * stride * sample_bytes_, n * sample_bytes_);
      }
      upload_from = h_in;
      upload_stride = gulp_;
    }
    if (n > 0) {
      FASTPSR_CUDA_TRY(cudaMemcpy2DAsync(raw_[cur_].get() + count_ * sample_bytes_, capacity_ * sample_bytes_,
                                         upload_from, upload_stride * sample_bytes_, n * sample_bytes_, f_count,
                                         cudaMemcpyHostToDevice, stream_.get()));
      FASTPSR_CUDA_TRY(cudaEventRecord(h2d_done_.get(), stream_.get()));
    }
    count_ += n;
    std::optional<Pending> fresh;
    const auto rows = static_cast<std::size_t>(plan_.rows_for_samples(count_));
    if (rows > 0) fresh = enqueue(rows);
    ChanneliserBlock block = take_pending();
    pending_ = fresh;
    if (direct) FASTPSR_CUDA_TRY(cudaEventSynchronize(h2d_done_.get()));
    return block;
  }

  std::vector<std::uint8_t*> input_buffers(std::size_t count, std::size_t bytes) override {
    set_device(device_);
    const std::size_t each = round_to_page(bytes);
    const PinnedArena& arena = input_arenas_.emplace_back(count * each);
    std::vector<std::uint8_t*> buffers;
    for (std::size_t i = 0; i < count; ++i) buffers.push_back(arena.get() + i * each);
    return buffers;
  }

  ChanneliserBlock flush() override {
    set_device(device_);
    ChanneliserBlock block = take_pending();
    pending_.reset();
    return block;
  }

  [[nodiscard]] std::string describe() const override {
    const auto props = device_properties(device_);
    std::string text = fmt::format(
        "GPU {} ({}): {} ({} {}-point transforms), gulp {} samples\n  set-up {:.1f} ms: CUDA context {:.1f} ms, "
        "{:.1f} MiB of pinned output buffers {:.1f} ms",
        device_, props.name, cfg_.describe(), plan_.inverse_fft ? "inverse" : "forward", plan_.nchans(), gulp_,
        setup_ms_, context_ms_, static_cast<double>(pinned_.bytes()) / 1048576.0, pinned_ms_);
    if (direct_pushes_ + staged_pushes_ > 0) {  // after the first push (-v prints this before any)
      text += fmt::format("\n  pushes: {} from input_buffers(), {} staged ({:.1f} MiB staging buffer)", direct_pushes_,
                          staged_pushes_, static_cast<double>(staging_.bytes()) / 1048576.0);
    }
    return text;
  }

  [[nodiscard]] std::size_t host_bytes() const noexcept override {
    std::size_t bytes = pinned_.bytes() + staging_.bytes();
    for (const auto& a : input_arenas_) bytes += a.bytes();
    return bytes;
  }
  [[nodiscard]] std::size_t device_bytes() const noexcept override {
    return raw_[0].bytes() + raw_[1].bytes() + d_out_.bytes() + engine_->device_bytes();
  }

 private:
  struct Pending {
    int slot = 0;
    std::uint64_t first = 0;
    std::size_t nrows = 0;
  };

  Pending enqueue(std::size_t rows) {
    const std::size_t f_count = static_cast<std::size_t>(plan_.ncoarse());
    const int slot = next_slot_;
    next_slot_ ^= 1;
    engine_->run(raw_[cur_].get(), capacity_, rows, d_out_.get());
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(h_out_[slot], d_out_.get(), rows * plan_.row_floats() * sizeof(float),
                                     cudaMemcpyDeviceToHost, stream_.get()));
    FASTPSR_CUDA_TRY(cudaEventRecord(out_done_[slot].get(), stream_.get()));
    // Keep what later rows need: the tail moves to the front of the other raw buffer.
    const std::size_t consumed =
        rows * static_cast<std::size_t>(plan_.spectra_per_row()) * static_cast<std::size_t>(plan_.nchans());
    const std::size_t keep = count_ - consumed;
    if (keep > 0) {
      FASTPSR_CUDA_TRY(cudaMemcpy2DAsync(raw_[cur_ ^ 1].get(), capacity_ * sample_bytes_,
                                         raw_[cur_].get() + consumed * sample_bytes_, capacity_ * sample_bytes_,
                                         keep * sample_bytes_, f_count, cudaMemcpyDeviceToDevice, stream_.get()));
    }
    cur_ ^= 1;
    count_ = keep;
    Pending p{slot, rows_done_, rows};
    rows_done_ += rows;
    return p;
  }

  // Whether [p, p + bytes) lies in one of the buffers input_buffers() gave.
  [[nodiscard]] bool in_input_buffers(const std::uint8_t* p, std::size_t bytes) const {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    for (const auto& a : input_arenas_) {
      const auto begin = reinterpret_cast<std::uintptr_t>(a.get());
      if (at >= begin && bytes <= a.bytes() && at - begin <= a.bytes() - bytes) return true;
    }
    return false;
  }

  ChanneliserBlock take_pending() {
    ChanneliserBlock block;
    block.row_floats = plan_.row_floats();
    block.first = rows_done_;
    if (!pending_) return block;
    FASTPSR_CUDA_TRY(cudaEventSynchronize(out_done_[pending_->slot].get()));
    block.first = pending_->first;
    block.nrows = pending_->nrows;
    block.data = h_out_[pending_->slot];
    return block;
  }

  SetupClock::time_point created_ = SetupClock::now();
  ChanneliserPlan plan_;
  int device_ = 0;
  double context_ms_ = 0;  // before stream_ and the events: they are made on the current device
  double pinned_ms_ = 0;
  double setup_ms_ = 0;
  ppf::GpuConfig cfg_;
  std::size_t sample_bytes_ = 0;
  std::size_t history_max_ = 0;
  std::size_t gulp_ = 0;
  std::size_t capacity_ = 0;  // samples per coarse channel in each raw buffer
  std::size_t max_rows_ = 0;
  std::size_t out_rows_capacity_ = 0;
  std::size_t count_ = 0;  // samples per coarse channel held in raw_[cur_]
  int cur_ = 0;
  int next_slot_ = 0;
  std::uint64_t rows_done_ = 0;
  std::optional<Pending> pending_;
  Stream stream_;
  std::unique_ptr<ppf::PpfEngine> engine_;
  DeviceBuffer<std::uint8_t> raw_[2];
  DeviceBuffer<float> d_out_;
  PinnedArena pinned_;
  float* h_out_[2] = {};                   // in pinned_
  PinnedArena staging_;                    // the input of pushes not from input_buffers(), made when first needed
  std::uint64_t direct_pushes_ = 0;        // pushes uploaded straight from input_buffers()
  std::uint64_t staged_pushes_ = 0;        // pushes copied into staging_ first
  std::vector<PinnedArena> input_arenas_;  // input_buffers(): moved, an arena keeps its memory
  Event h2d_done_;
  Event out_done_[2];
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0F : v[v.size() / 2];
}

}  // namespace

std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options,
                                              int device) {
  return std::make_unique<CudaChanneliser>(plan, options, device);
}

PpfDeviceTiming benchmark_device_ppf(const ChanneliserPlan& plan, const ChanneliserOptions& options, int device,
                                     std::size_t nspectra, int repeats, bool split_stages) {
  set_device(device);
  const auto props = device_properties(device);
  const auto cfg = ppf::parse_gpu_config(options.gpu_config, plan, props);
  Stream stream;
  ppf::PpfEngine engine(plan, cfg, stream.get());
  const std::size_t spr = static_cast<std::size_t>(plan.spectra_per_row());
  const std::size_t rows = nspectra / spr;
  FASTPSR_EXPECTS(rows > 0, "benchmark of {} spectra gives no output row", nspectra);
  const std::size_t samples =
      (rows * spr + static_cast<std::size_t>(plan.ntaps() - 1)) * static_cast<std::size_t>(plan.nchans());
  const std::size_t in_bytes = (static_cast<std::size_t>(plan.ncoarse()) * samples * plan.sample_bytes() + 3) / 4 * 4;
  DeviceBuffer<std::uint8_t> in(in_bytes);
  DeviceBuffer<float> out(engine.out_rows_capacity(rows) * plan.row_floats());
  FASTPSR_CUDA_TRY(
      ppf::launch_fill_random(in.get(), in_bytes, 12345U, plan.problem.input == VoltageType::cf32, stream.get()));
  Event start(true);
  Event stop(true);
  auto time_stages = [&](unsigned stages) {
    engine.run(in.get(), samples, rows, out.get(), stages);  // warm-up
    std::vector<float> ms;
    for (int r = 0; r < repeats; ++r) {
      FASTPSR_CUDA_TRY(cudaEventRecord(start.get(), stream.get()));
      engine.run(in.get(), samples, rows, out.get(), stages);
      FASTPSR_CUDA_TRY(cudaEventRecord(stop.get(), stream.get()));
      FASTPSR_CUDA_TRY(cudaEventSynchronize(stop.get()));
      float t = 0.0F;
      FASTPSR_CUDA_TRY(cudaEventElapsedTime(&t, start.get(), stop.get()));
      ms.push_back(t);
    }
    return static_cast<double>(median(ms));
  };
  PpfDeviceTiming r;
  r.rows = rows;
  r.config = cfg.describe();
  r.total_ms = time_stages(ppf::kStageAll);
  if (split_stages) {
    r.fir_ms = time_stages(ppf::kStageFir);
    r.fft_ms = time_stages(ppf::kStageFft);
    if (!plan.complex_output()) r.detect_ms = time_stages(ppf::kStageDetect);
  }
  return r;
}

double measure_copy_bandwidth(int device, std::size_t bytes, int repeats) {
  set_device(device);
  Stream stream;
  DeviceBuffer<std::uint8_t> a(bytes);
  DeviceBuffer<std::uint8_t> b(bytes);
  FASTPSR_CUDA_TRY(cudaMemsetAsync(a.get(), 1, bytes, stream.get()));
  Event start(true);
  Event stop(true);
  std::vector<float> ms;
  for (int r = 0; r <= repeats; ++r) {
    FASTPSR_CUDA_TRY(cudaEventRecord(start.get(), stream.get()));
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    FASTPSR_CUDA_TRY(cudaEventRecord(stop.get(), stream.get()));
    FASTPSR_CUDA_TRY(cudaEventSynchronize(stop.get()));
    float t = 0.0F;
    FASTPSR_CUDA_TRY(cudaEventElapsedTime(&t, start.get(), stop.get()));
    if (r > 0) ms.push_back(t);  // the first copy is a warm-up
  }
  return 2.0 * static_cast<double>(bytes) / (static_cast<double>(median(ms)) * 1e-3);
}

}  // namespace fastpsr::cuda
