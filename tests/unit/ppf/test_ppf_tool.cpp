// SPDX-License-Identifier: MIT
// The ppf tool end to end: the filterbank it writes has the right header (fch1, foff,
// tsamp = C·nint/rate, tstart) and the data of the library's channeliser; on a machine with a
// GPU the GPU run agrees with the CPU run.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "fastpsr/backends.hpp"
#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/ppf.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::string ppf() { return (test::bin_dir() / "ppf").string(); }

std::vector<float> read_data(const std::string& path, SigprocHeader& h) {
  auto r = FilterbankReader::open(path);
  h = r->header();
  const std::size_t n = static_cast<std::size_t>(*r->nsamples());
  std::vector<float> v(n * static_cast<std::size_t>(h.nchans) * static_cast<std::size_t>(h.nifs));
  CHECK(r->read_float(v.data(), n) == n);
  return v;
}

}  // namespace

TEST_CASE("ppf tool: the filterbank header and data of a raw ci8 run") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  test::TempDir dir;
  const int c = 128;
  const int t = 8;
  const int nint = 4;
  const std::size_t nsamples = static_cast<std::size_t>(c) * (t - 1 + 10 * nint + 3);
  const auto input = test::random_voltages(VoltageType::ci8, nsamples * 4, seed);
  test::write_file(dir / "in.dat", input);
  const std::string cmd = ppf() + " -C 128 -T 8 --nint 4 --format ci8 --npol 2 --fcentre 1400 --bw 256 " +
                          "--tstart 60123.5 --source-name B0531+21 --fftw estimate -q " + (dir / "in.dat").string() +
                          " -o " + (dir / "out.fil").string();
  const auto res = test::run_command(cmd);
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  SigprocHeader h;
  const auto data = read_data((dir / "out.fil").string(), h);
  // 256 MHz in 128 channels of 2 MHz, bins −64 ... 63 above 1400: highest centre 1526 MHz.
  CHECK(h.fch1 == 1526.0);
  CHECK(h.foff == -2.0);
  CHECK(h.nchans == 128);
  CHECK(h.nifs == 1);
  CHECK(h.nbits == 32);
  CHECK(h.data_type == 1);
  CHECK(h.tsamp == doctest::Approx(128.0 * 4 / 256e6).epsilon(1e-14));
  CHECK(h.tstart == doctest::Approx(60123.5 + 7.0 * 128 / 2 / 256e6 / 86400.0).epsilon(1e-15));
  CHECK(h.source_name == "B0531+21");
  CHECK(h.rawdatafile == "in.dat");
  // The data: the library's CPU channeliser with the same plan, bit for bit.
  ChanneliserProblem p;
  p.nchans = c;
  p.ntaps = t;
  p.npol = 2;
  p.nint = nint;
  p.descending = true;
  const auto plan = make_channeliser_plan(p);
  auto ch = cpu::make_channeliser(plan, ChanneliserOptions{});
  const auto want = test::run_channeliser(*ch, input, nsamples);
  REQUIRE(data.size() == want.size());
  CHECK(std::memcmp(data.data(), want.data(), data.size() * sizeof(float)) == 0);
  CHECK(test::max_relative_error(data.data(), test::reference_ppf(plan, input, nsamples)) <= 1e-5);
}

TEST_CASE("ppf tool: the GPU run agrees with the CPU run" * doctest::skip(gpu_count() == 0)) {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  test::TempDir dir;
  const std::size_t nsamples = 4096 * 80;
  test::write_file(dir / "in.dat", test::random_voltages(VoltageType::ci16, nsamples * 4, seed));
  for (const char* mode : {"--detect IQUV --nint 8", "--nint 64", "--complex"}) {
    CAPTURE(std::string(mode));
    const std::string base = ppf() + " -C 4096 -T 16 --format ci16 --npol 2 --fcentre 1400 --bw 400 --fftw estimate " +
                             mode + " -q " + (dir / "in.dat").string();
    REQUIRE(test::run_command(base + " --device cpu -o " + (dir / "cpu.out").string()).exit_code == 0);
    REQUIRE(test::run_command(base + " --device gpu -o " + (dir / "gpu.out").string()).exit_code == 0);
    const auto a = test::read_file(dir / "cpu.out");
    const auto b = test::read_file(dir / "gpu.out");
    REQUIRE(a.size() == b.size());
    // Same header bytes; data within the accuracy contract of each backend.
    std::size_t header = 0;
    if (std::string(mode) != "--complex") {
      auto src = memory_source(a, "cpu.out");
      header = static_cast<std::size_t>(read_sigproc_header(*src).header_bytes);
      CHECK(std::memcmp(a.data(), b.data(), header) == 0);
    }
    const std::size_t n = (a.size() - header) / 4;
    std::vector<double> ref(n);
    std::vector<float> got(n);
    for (std::size_t i = 0; i < n; ++i) {
      float v = 0;
      std::memcpy(&v, a.data() + header + 4 * i, 4);
      ref[i] = v;
    }
    std::memcpy(got.data(), b.data() + header, n * 4);
    CHECK(test::max_relative_error(got.data(), ref) <= 2e-5);
  }
}
