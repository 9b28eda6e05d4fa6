// SPDX-License-Identifier: MIT
// The streaming CUDA dedisperser: pinned staging buffers and three streams, so that the upload
// of gulp k+1, the kernels of gulp k and the download of gulp k-1 overlap.
//
//   host      push(k): copy into pinned in[k % S] ... enqueue ... wait for block k-S+1, return it
//   upload    H2D in[k % S]            (waits until the prep of the slot's previous gulp has read it)
//   compute   prep(k), dedisp(k)       (waits for the upload; the kernel waits until the slot's
//                                       previous output was downloaded)
//   download  D2H out[k % S]           (waits for the kernel)
//
// Input and output slots rotate separately (a gulp may have input but no output yet, or, when
// flushing, output but no input). At most S - 1 blocks stay pending after a call, so a block
// handed to the caller is overwritten only by a later call.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "common/cuda_memory.hpp"
#include "common/pinned_arena.hpp"
#include "common/setup_timing.hpp"
#include "dedisp/dedisp_engine.hpp"
#include "fastpsr/cuda/dedisp_cuda.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::cuda {
namespace {

class CudaDedisperser final : public Dedisperser {
 public:
  CudaDedisperser(const DedispPlan& plan, const DedispOptions& options, int device)
      : context_ms_(time_context(device)), engine_(plan, options, device, 0), device_(device) {
    engine_ms_ = ms_since(created_);
    engine_ms_ -= context_ms_;
    const auto t0 = SetupClock::now();
    const auto slots = static_cast<std::size_t>(engine_.slots());
    const std::size_t D = static_cast<std::size_t>(plan.downsample());
    const std::size_t bps = engine_.bytes_per_sample();
    const std::size_t in_bytes = round_to_page((engine_.gulp_ds() * D + D - 1) * bps);
    const std::size_t out_bytes = round_to_page(plan.ndms() * engine_.gulp_ds() * sizeof(float));
    pinned_ = std::make_unique<PinnedArena>(slots * (in_bytes + out_bytes));
    for (std::size_t i = 0; i < slots; ++i) {
      in_.emplace_back(pinned_->get() + i * in_bytes);
      out_.emplace_back(reinterpret_cast<float*>(pinned_->get() + slots * in_bytes + i * out_bytes));
    }
    carry_.resize((D - 1) * bps);
    pinned_ms_ = ms_since(t0);
  }

  ~CudaDedisperser() override {
    // Let queued copies finish before the buffers they use are freed.
    (void)cudaSetDevice(device_);
    (void)cudaStreamSynchronize(upload_.get());
    (void)cudaStreamSynchronize(compute_.get());
    (void)cudaStreamSynchronize(download_.get());
  }
  CudaDedisperser(const CudaDedisperser&) = delete;
  CudaDedisperser& operator=(const CudaDedisperser&) = delete;

  [[nodiscard]] const DedispPlan& plan() const noexcept override { return engine_.plan(); }
  [[nodiscard]] std::size_t gulp_samples() const noexcept override {
    return engine_.gulp_ds() * static_cast<std::size_t>(engine_.plan().downsample());
  }

  DedispBlock push(const std::uint8_t* packed, std::size_t n) override {
    FASTPSR_EXPECTS(!flushing_, "push() after flush()");
    FASTPSR_EXPECTS(n <= gulp_samples(), "push of {} samples: at most {} per push", n, gulp_samples());
    set_device(device_);
    const std::size_t D = static_cast<std::size_t>(engine_.plan().downsample());
    const std::size_t bps = engine_.bytes_per_sample();
    const std::size_t total = carry_samples_ + n;
    const std::size_t use = total / D * D;
    if (use > 0) {
      InSlot& slot = in_[in_next_ % in_.size()];
      slot.uploaded.synchronize();  // its previous upload has left the pinned buffer
      std::uint8_t* host = slot.host;
      std::memcpy(host, carry_.data(), carry_samples_ * bps);
      if (n > 0) std::memcpy(host + carry_samples_ * bps, packed, n * bps);
      const std::size_t left = total - use;
      std::memcpy(carry_.data(), host + use * bps, left * bps);
      carry_samples_ = left;
      enqueue(static_cast<std::int64_t>(use / D), 0, &slot);
      ++in_next_;
    } else if (n > 0) {
      std::memcpy(carry_.data() + carry_samples_ * bps, packed, n * bps);
      carry_samples_ = total;
    }
    return pending_.size() > out_.size() - 1 ? pop() : DedispBlock{};
  }

  DedispBlock flush() override {
    set_device(device_);
    if (!flushing_) {
      flushing_ = true;
      carry_samples_ = 0;  // a partial downsampling group makes no output sample
      // Zeros so that outputs reach nds - min_dm_max_delay, where nds = next_out_ + hist_len.
      const std::int64_t max_delay = engine_.plan().max_delay;
      const std::int64_t min_delay = engine_.plan().min_dm_max_delay;
      const auto produced = static_cast<std::int64_t>(next_out_);
      const std::int64_t nds = produced + engine_.hist_len();
      zeros_left_ = nds - min_delay > produced ? max_delay - min_delay : 0;
    }
    while (zeros_left_ > 0 && pending_.size() < out_.size()) {
      const std::int64_t z = std::min<std::int64_t>(zeros_left_, static_cast<std::int64_t>(engine_.gulp_ds()));
      zeros_left_ -= z;
      enqueue(0, z, nullptr);
    }
    return pending_.empty() ? DedispBlock{} : pop();
  }

  [[nodiscard]] std::string describe() const override {
    return fmt::format(
        "{}\n  set-up: CUDA context {:.1f} ms, {} (engine {:.1f} ms), {:.1f} MiB of pinned host buffers "
        "{:.1f} ms",
        engine_.describe(), context_ms_, engine_.setup_note(), engine_ms_,
        static_cast<double>(pinned_->bytes()) / 1048576.0, pinned_ms_);
  }
  [[nodiscard]] std::size_t host_bytes() const noexcept override { return carry_.size() + pinned_->bytes(); }
  [[nodiscard]] std::size_t device_bytes() const noexcept override { return engine_.device_bytes(); }

 private:
  struct InSlot {
    explicit InSlot(std::uint8_t* pinned) : host(pinned) {}
    std::uint8_t* host;  // in the pinned arena
    Event uploaded;      // the upload from `host` is complete
    Event consumed;      // the prep kernel has read the device copy
  };
  struct OutSlot {
    explicit OutSlot(float* pinned) : host(pinned) {}
    float* host;       // in the pinned arena
    Event computed;    // the kernel has written the device output
    Event downloaded;  // the device output is in `host`
  };
  struct Pending {
    std::size_t slot = 0;
    std::uint64_t first = 0;
    std::size_t n = 0;
  };

  void enqueue(std::int64_t n_new, std::int64_t n_zero, InSlot* in) {
    const int in_index = static_cast<int>(in_next_ % in_.size());
    const std::size_t out_index = out_next_ % out_.size();
    const GulpWork w = engine_.plan_gulp(n_new, n_zero, in_index, static_cast<int>(out_index));
    if (in != nullptr) {
      upload_.wait(in->consumed.get());
      const std::size_t bytes = static_cast<std::size_t>(n_new) *
                                static_cast<std::size_t>(engine_.plan().downsample()) * engine_.bytes_per_sample();
      FASTPSR_CUDA_TRY(
          cudaMemcpyAsync(engine_.in_slot(in_index), in->host, bytes, cudaMemcpyHostToDevice, upload_.get()));
      in->uploaded.record(upload_.get());
      compute_.wait(in->uploaded.get());
    }
    engine_.launch_prep(w, compute_.get());
    if (in != nullptr) in->consumed.record(compute_.get());
    engine_.advance(w);
    if (w.n_out == 0) return;
    OutSlot& out = out_[out_index];
    compute_.wait(out.downloaded.get());
    engine_.launch_dedisp(w, compute_.get());
    out.computed.record(compute_.get());
    download_.wait(out.computed.get());
    const std::size_t row = static_cast<std::size_t>(w.n_out) * sizeof(float);
    FASTPSR_CUDA_TRY(cudaMemcpy2DAsync(out.host, row, engine_.out_slot(static_cast<int>(out_index)),
                                       static_cast<std::size_t>(engine_.out_pitch()) * sizeof(float), row,
                                       engine_.plan().ndms(), cudaMemcpyDeviceToHost, download_.get()));
    out.downloaded.record(download_.get());
    pending_.push_back({out_index, next_out_, static_cast<std::size_t>(w.n_out)});
    next_out_ += static_cast<std::uint64_t>(w.n_out);
    ++out_next_;
  }

  DedispBlock pop() {
    const Pending p = pending_.front();
    pending_.pop_front();
    out_[p.slot].downloaded.synchronize();
    DedispBlock b;
    b.first = p.first;
    b.nsamples = p.n;
    b.data = out_[p.slot].host;
    b.stride = p.n;
    return b;
  }

  SetupClock::time_point created_ = SetupClock::now();
  double context_ms_ = 0;
  double engine_ms_ = 0;
  double pinned_ms_ = 0;
  DedispEngine engine_;
  int device_ = 0;
  Stream upload_;
  Stream compute_;
  Stream download_;
  std::unique_ptr<PinnedArena> pinned_;
  std::vector<InSlot> in_;
  std::vector<OutSlot> out_;
  std::deque<Pending> pending_;
  std::vector<std::uint8_t> carry_;
  std::size_t carry_samples_ = 0;
  std::size_t in_next_ = 0;
  std::size_t out_next_ = 0;
  std::uint64_t next_out_ = 0;
  std::int64_t zeros_left_ = 0;
  bool flushing_ = false;
};

}  // namespace

std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options, int device) {
  return std::make_unique<CudaDedisperser>(plan, options, device);
}

}  // namespace fastpsr::cuda
