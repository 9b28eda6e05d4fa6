// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/psrfits.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// A fake file with random raw values, scales, offsets and weights.
test::FakePsrfits random_fake(int nbits, int npol, const std::string& pol_type, bool ascending, std::mt19937_64& rng) {
  test::FakePsrfits f;
  f.nbits = nbits;
  f.npol = npol;
  f.pol_type = pol_type;
  f.nchan = 8;
  f.nsblk = 16;
  f.nrows = 3;
  f.zero_off = nbits <= 8 ? std::ldexp(1.0, nbits - 1) - 0.5 : 0.0;
  for (int c = 0; c < f.nchan; ++c) f.freqs_mhz.push_back(ascending ? 1000.0 + 2.0 * c : 1014.0 - 2.0 * c);
  std::uniform_real_distribution<float> u(0.5F, 2.0F);
  for (int c = 0; c < f.nchan; ++c) f.wts.push_back(c == 3 ? 0.0F : u(rng));
  for (int i = 0; i < f.nchan * npol; ++i) {
    f.scl.push_back(u(rng));
    f.offs.push_back(10.0F * u(rng));
  }
  const std::size_t n = static_cast<std::size_t>(f.nrows) * f.nsblk * npol * f.nchan;
  if (nbits == 32) {
    std::normal_distribution<double> g(0.0, 3.0);
    for (std::size_t i = 0; i < n; ++i) f.raw.push_back(static_cast<double>(static_cast<float>(g(rng))));
  } else {
    const std::int64_t hi = nbits == 16 ? 32767 : (std::int64_t{1} << nbits) - 1;
    const std::int64_t lo = nbits == 16 ? -32768 : 0;
    std::uniform_int_distribution<std::int64_t> d(lo, hi);
    for (std::size_t i = 0; i < n; ++i) f.raw.push_back(static_cast<double>(d(rng)));
  }
  return f;
}

// The plain reference: ((raw - zero) * scl + offs) * wts, summed over the pols that make total
// intensity, channel order flipped when the frequencies ascend; a scaling turned off reads as
// scl 1, offs 0 or wts 1.
std::vector<double> reference_intensity(const test::FakePsrfits& f, PsrfitsScaling sc = {}) {
  const int pols = f.pol_type == "AABB" || f.pol_type == "AABBCRCI" ? 2 : 1;
  const bool flip = f.freqs_mhz.back() > f.freqs_mhz.front();
  std::vector<double> out;
  for (int r = 0; r < f.nrows; ++r) {
    for (int t = 0; t < f.nsblk; ++t) {
      std::vector<double> spec(static_cast<std::size_t>(f.nchan), 0.0);
      for (int p = 0; p < pols; ++p) {
        for (int c = 0; c < f.nchan; ++c) {
          const std::size_t k = ((static_cast<std::size_t>(r) * f.nsblk + t) * f.npol + p) * f.nchan + c;
          const double raw = f.raw[k];  // the physical value; the writer stores raw - TZERO
          const auto pc = static_cast<std::size_t>(p * f.nchan + c);
          const double scl = sc.scales ? static_cast<double>(f.scl[pc]) : 1.0;
          const double offs = sc.offsets ? static_cast<double>(f.offs[pc]) : 0.0;
          const double wts = sc.weights ? static_cast<double>(f.wts[static_cast<std::size_t>(c)]) : 1.0;
          const double v = ((raw - f.zero_off) * scl + offs) * wts;
          spec[flip ? f.nchan - 1 - c : c] += v;
        }
      }
      out.insert(out.end(), spec.begin(), spec.end());
    }
  }
  return out;
}

void check_against_reference(const test::FakePsrfits& f, std::size_t piece, PsrfitsScaling sc = {}) {
  PsrfitsReader r(memory_source(f.encode(), "fake.sf"), sc);
  const auto got = test::read_all_float(r, piece);
  const auto want = reference_intensity(f, sc);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    // float32 scaling of values up to ~1e5: relative 1e-6 of the largest term.
    const double tol = 1e-6 * (std::fabs(want[i]) + 100.0) + (f.nbits == 16 ? 0.05 : 1e-4);
    if (std::fabs(static_cast<double>(got[i]) - want[i]) > tol) {
      CAPTURE(i);
      CHECK(got[i] == doctest::Approx(want[i]));
      return;
    }
  }
}

// Bytes that cannot be read ahead, as a pipe's.
class PipeLikeSource final : public ByteSource {
 public:
  PipeLikeSource(std::vector<std::uint8_t> bytes, std::string name)
      : ByteSource(std::move(name)), bytes_(std::move(bytes)) {}

 protected:
  std::size_t read_some(void* dst, std::size_t n) override {
    const std::size_t k = std::min(n, bytes_.size() - pos_);
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_), k, static_cast<std::uint8_t*>(dst));
    pos_ += k;
    return k;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

TEST_CASE("psrfits: every nbits and polarisation layout matches a double reference") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int nbits : {1, 2, 4, 8, 16, 32}) {
    for (const auto& layout :
         std::vector<std::pair<int, std::string>>{{1, "AA+BB"}, {2, "AABB"}, {4, "AABBCRCI"}, {4, "IQUV"}}) {
      const int npol = layout.first;
      const std::string& pol_type = layout.second;
      for (bool ascending : {false, true}) {
        CAPTURE(nbits);
        CAPTURE(pol_type);
        CAPTURE(ascending);
        const auto f = random_fake(nbits, npol, pol_type, ascending, rng);
        for (std::size_t piece : {1, 5, 16, 100}) check_against_reference(f, piece);
      }
    }
  }
}

TEST_CASE("psrfits: weights, scales and offsets each left out (PRESTO's -noweights, -noscales, -nooffsets)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int nbits : {2, 8, 16, 32}) {
    for (int mask = 0; mask < 8; ++mask) {
      CAPTURE(nbits);
      CAPTURE(mask);
      const PsrfitsScaling sc{(mask & 1) == 0, (mask & 2) == 0, (mask & 4) == 0};
      const auto f = random_fake(nbits, 2, "AABB", mask % 2 == 1, rng);
      check_against_reference(f, 7, sc);
      // Each switch changes what is read (the fake's weights, scales and offsets are not 1, 1, 0).
      if (mask != 0) CHECK(reference_intensity(f, sc) != reference_intensity(f));
    }
  }
}

TEST_CASE("psrfits: sub-byte samples are read earliest-first from the most significant bits") {
  test::FakePsrfits f;
  f.nbits = 4;
  f.nchan = 2;
  f.nsblk = 1;
  f.nrows = 1;
  f.freqs_mhz = {1400.0, 1399.0};
  f.raw = {1, 2};  // packed by the writer as the byte 0x12
  const auto bytes = f.encode();
  PsrfitsReader r(memory_source(bytes, "order.sf"));
  float v[2] = {-1, -1};
  REQUIRE(r.read_float(v, 1) == 1);
  CHECK(v[0] == 1.0F);
  CHECK(v[1] == 2.0F);
  // The byte itself, so that the writer and the reader cannot share a mistake.
  const auto at = r.info().table_offset + r.info().row_bytes - 1;
  CHECK(bytes[at] == 0x12);
}

TEST_CASE("psrfits: header view, band flip, start time and NSTOT") {
  test::FakePsrfits f;
  f.nchan = 4;
  f.nsblk = 10;
  f.nrows = 3;
  f.nstot = 25;
  f.tbin_s = 64e-6;
  f.freqs_mhz = {1200.0, 1210.0, 1220.0, 1230.0};
  f.raw.assign(static_cast<std::size_t>(f.nrows * f.nsblk * f.nchan), 3.0);
  f.freqs_as_float = true;
  PsrfitsReader r(test::pipe_source(f.encode(), 1000, "piped.sf"));
  const SigprocHeader& h = r.header();
  CHECK(h.nchans == 4);
  CHECK(h.nifs == 1);
  CHECK(h.fch1 == 1230.0);
  CHECK(h.foff == -10.0);
  CHECK(r.info().band_flipped);
  CHECK(h.tsamp == 64e-6);
  CHECK(h.source_name == "J0000+0000");
  CHECK(h.telescope_id == 4);
  CHECK(h.src_raj == doctest::Approx(123456.7));
  CHECK(h.src_dej == doctest::Approx(-450607.8));
  // OFFS_SUB of row 0 is half a row: the data start at STT_* exactly.
  CHECK(h.tstart == doctest::Approx(60000.0 + 100.25 / 86400.0).epsilon(1e-15));
  REQUIRE(r.nsamples());
  CHECK(*r.nsamples() == 25);
  std::vector<float> all(40 * 4);
  CHECK(r.read_float(all.data(), 40) == 25);
  CHECK(r.position() == 25);
}

TEST_CASE("psrfits: a first row later in the observation moves the start time") {
  test::FakePsrfits f;
  f.nsblk = 4;
  f.nrows = 1;
  f.freqs_mhz = {1400.0, 1399.0, 1398.0, 1397.0};
  f.raw.assign(16, 1.0);
  auto bytes = f.encode();
  // Rewrite OFFS_SUB of row 0 (the second double of the row) to 2.5 rows: the file starts 2 rows in.
  PsrfitsReader probe(memory_source(bytes));
  const auto at = probe.info().table_offset + 8;
  const double v = 2.5 * 4 * 1e-3;
  const auto u = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u >> (56 - 8 * i));
  PsrfitsReader r(memory_source(bytes));
  CHECK(r.info().first_row_offset_s == doctest::Approx(8e-3));
  CHECK(r.header().tstart == doctest::Approx(60000.0 + (100.25 + 8e-3) / 86400.0).epsilon(1e-15));
}

TEST_CASE("psrfits: rows missing by OFFS_SUB read as zeros where they belong") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::FakePsrfits f = random_fake(8, 2, "AABB", false, rng);
  f.nrows = 3;
  // Rows 0, 1 and 2 of the file lie at rows 0, 3 and 4 of the observation (with jitter in
  // OFFS_SUB up to 0.4 rows, which the nearest whole row absorbs): two rows missing after the
  // first.
  f.row_index = {0.0, 3.0 + 0.4, 4.0 - 0.3};
  const auto present = reference_intensity(f);
  const std::size_t row_values = static_cast<std::size_t>(f.nsblk) * f.nchan;
  std::vector<double> want(present.begin(), present.begin() + static_cast<std::ptrdiff_t>(row_values));
  want.resize(3 * row_values, 0.0);
  want.insert(want.end(), present.begin() + static_cast<std::ptrdiff_t>(row_values), present.end());
  for (std::size_t piece : {1, 5, 16, 17, 1000}) {
    CAPTURE(piece);
    PsrfitsReader r(memory_source(f.encode(), "gappy.sf"));
    CHECK(r.nsamples() == std::optional<std::uint64_t>(5 * 16));
    const auto got = test::read_all_float(r, piece);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (std::fabs(static_cast<double>(got[i]) - want[i]) > 1e-6 * (std::fabs(want[i]) + 100.0)) {
        CAPTURE(i);
        CHECK(got[i] == doctest::Approx(want[i]));
        break;
      }
    }
    CHECK(r.gaps() == std::vector<SampleGap>{{16, 32}});
  }
  // Skips across the gap land where reads would.
  for (std::uint64_t skip : {1, 16, 20, 47, 48, 79, 80}) {
    CAPTURE(skip);
    PsrfitsReader r(memory_source(f.encode(), "gappy.sf"));
    CHECK(r.skip(skip) == skip);
    const auto rest = test::read_all_float(r, 7);
    REQUIRE(rest.size() == want.size() - skip * f.nchan);
    CHECK(static_cast<double>(rest.empty() ? 0.0F : rest.front()) ==
          doctest::Approx(want.empty() || skip * f.nchan >= want.size() ? 0.0 : want[skip * f.nchan]));
  }
  // Row 0 itself late in the observation moves the start, not the samples.
  test::FakePsrfits late = f;
  late.row_index = {2.0, 3.0, 4.0};
  PsrfitsReader r(memory_source(late.encode(), "late.sf"));
  CHECK(r.nsamples() == std::optional<std::uint64_t>(3 * 16));
  CHECK(r.info().first_row_offset_s == doctest::Approx(2 * 16 * 1e-3));
  CHECK(test::read_all_float(r, 9).size() == present.size());
  CHECK(r.gaps().empty());
}

TEST_CASE("psrfits: rows out of order, overlapping or missing from a pipe are errors") {
  std::mt19937_64 rng(5);
  test::FakePsrfits f = random_fake(8, 1, "AA+BB", false, rng);
  f.row_index = {0.0, 2.0, 1.4};
  test::check_error(
      [&] {
        PsrfitsReader r(memory_source(f.encode(), "back.sf"));
        (void)test::read_all_float(r, 100);
      },
      "row 3 of 3: it starts at sample 16 by its OFFS_SUB, before the rows before it end (sample 32)", "back.sf");
  f.row_index = {0.0, 1.0, 1000.0};
  test::check_error([&] { PsrfitsReader r(memory_source(f.encode(), "far.sf")); },
                    "more likely a wrong OFFS_SUB than gaps", "far.sf");
  // A pipe cannot be read ahead for the length: a row that does not follow is refused there.
  f.row_index = {0.0, 2.0, 3.0};
  test::TempDir dir;
  const auto path = (dir / "gappy.sf").string();
  test::write_file(path, f.encode());
  PsrfitsReader from_file(open_source(path));
  CHECK(from_file.nsamples() == std::optional<std::uint64_t>(64));
  CHECK(test::read_all_float(from_file, 100).size() == 64 * static_cast<std::size_t>(f.nchan));
  test::check_error(
      [&] {
        PsrfitsReader r(std::make_unique<PipeLikeSource>(f.encode(), "<stdin>"));
        (void)test::read_all_float(r, 100);
      },
      "row 2 starts at sample 32 by its OFFS_SUB, not 16: rows are missing", "<stdin>");
}

TEST_CASE("psrfits: 16-bit unsigned data (TZERO 32768) and signed 8-bit data") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = random_fake(16, 1, "AA+BB", false, rng);
  f.tzero16 = 32768.0;
  for (auto& v : f.raw) v = std::fabs(v);  // stored value + 32768 is then 32768..65535
  check_against_reference(f, 7);
  auto g = random_fake(8, 1, "AA+BB", false, rng);
  g.signint = true;
  g.zero_off = 0.0;
  for (auto& v : g.raw) v -= 128.0;  // -128..127
  check_against_reference(g, 3);
}

TEST_CASE("psrfits: bad files give clear errors") {
  test::FakePsrfits f;
  f.freqs_mhz = {1400.0, 1399.0, 1398.0, 1397.0};
  f.raw.assign(64, 1.0);
  auto expect = [](std::vector<std::uint8_t> bytes, const char* fragment) {
    try {
      PsrfitsReader r(memory_source(std::move(bytes), "bad.sf"));
      FAIL("no error for: " << fragment);
    } catch (const Error& e) {
      CHECK(e.path() == "bad.sf");
      CHECK_MESSAGE(std::string(e.what()).find(fragment) != std::string::npos, std::string(e.what()));
    }
  };
  SUBCASE("fold mode") {
    auto g = f;
    g.obs_mode = "PSR";
    expect(g.encode(), "only search-mode");
  }
  SUBCASE("truncated table") {
    auto b = f.encode();
    b.erase(b.end() - 2880, b.end());
    expect(b, "truncated");
  }
  SUBCASE("no END card") {
    auto b = f.encode();
    b.resize(2880);
    for (std::size_t at = 0; at < b.size(); at += 80) {
      if (b[at] == 'E' && b[at + 1] == 'N' && b[at + 2] == 'D' && b[at + 3] == ' ') b[at] = ' ';
    }
    expect(b, "no END card");
  }
  SUBCASE("unknown polarisation") {
    auto g = f;
    g.npol = 2;
    g.pol_type = "XXYY";
    g.raw.assign(128, 1.0);
    expect(g.encode(), "POL_TYPE 'XXYY'");
  }
}

TEST_CASE("psrfits: the Parkes Crab file (real/README.md section 5)" * doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "real";
  auto src = open_source((dir / "parkes_crab_4bit.sf").string());
  CHECK(detect_format(*src) == FileFormat::psrfits);
  PsrfitsReader r(std::move(src));
  const PsrfitsInfo& i = r.info();
  CHECK(i.nrows == 2);
  CHECK(i.nsblk == 2048);
  CHECK(i.nstot == 4096);
  CHECK(i.nchan == 416);
  CHECK(i.npol == 4);
  CHECK(i.pol_type == "AABBCRCI");
  CHECK(i.intensity_from == "AA+BB");
  CHECK(i.nbits == 4);
  CHECK(i.zero_off == 7.5);
  CHECK(i.tbin_s == 512e-6);
  CHECK(i.chan_dm == 56.712);
  CHECK(i.dat_freq_mhz.front() == 4028.0);
  CHECK(i.dat_freq_mhz.back() == 708.0);
  CHECK_FALSE(i.band_flipped);
  const SigprocHeader& h = r.header();
  CHECK(h.fch1 == 4028.0);
  CHECK(h.foff == -8.0);
  CHECK(h.nchans == 416);
  CHECK(h.source_name == "J0534+2200");
  CHECK(h.telescope_id == 4);
  CHECK(*r.nsamples() == 4096);
  // Start: MJD 58543 + 28543.3605 s, exactly 4096 x 512 us before parkes_crab_8bit_1.fil.
  CHECK(h.tstart == doctest::Approx(58543.0 + 28543.3605 / 86400.0).epsilon(1e-15));
  const auto fil = FilterbankReader::open((dir / "parkes_crab_8bit_1.fil").string());
  const double gap_s = (fil->header().tstart - h.tstart) * 86400.0;
  CHECK(std::fabs(gap_s - 4096 * 512e-6) < 2e-6);  // two ulps of a double MJD (0.6 us each)
  // Every sample decodes; per-channel means are finite and DAT_WTS are all 1 here.
  const auto all = test::read_all_float(r, 1000);
  REQUIRE(all.size() == 4096u * 416u);
  CHECK(std::all_of(all.begin(), all.end(), [](float v) { return std::isfinite(v); }));
}
