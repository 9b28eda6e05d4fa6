// SPDX-License-Identifier: MIT
// Several files of one observation read as one (dedisp a.fil b.fil c.fil): a filterbank or a
// PSRFITS file cut into consecutive parts reads back as the whole, byte for byte and value for
// value, from the start or after skips across the parts; a gap between parts reads as zeros
// (as PRESTO pads it); overlaps, implausible gaps, other data and mixed formats are refused,
// naming the file.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/file_sequence.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/psrfits.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<std::uint8_t> read_bytes(ByteSource& s) {
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> buf(777);
  for (;;) {
    const std::size_t got = s.read(buf.data(), buf.size());
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(got));
    if (got < buf.size()) break;
  }
  return out;
}

// A 4-bit filterbank of `n` random samples starting at MJD `tstart`, with an nsamples key.
struct Fil {
  SigprocHeader h;
  std::vector<std::uint8_t> data;  // packed
};

Fil random_fil(std::size_t n, std::mt19937_64& rng) {
  Fil f;
  f.h = test::small_fil_header();
  f.h.nbits = 4;
  f.h.tstart = 60000.25;
  f.h.nsamples = static_cast<std::int32_t>(n);
  f.h.keys = sigproc_filterbank_keys(f.h);
  f.h.add_key("nsamples");
  std::uniform_int_distribution<int> d(0, 255);
  f.data.resize(n * f.h.bytes_per_sample());
  for (auto& b : f.data) b = static_cast<std::uint8_t>(d(rng));
  return f;
}

// Part [first, first + count) of `f` as a file of its own, its tstart moved by `shift` samples
// more than its place says.
std::vector<std::uint8_t> part(const Fil& f, std::size_t first, std::size_t count, double shift = 0) {
  SigprocHeader h = f.h;
  h.tstart = f.h.tstart + (static_cast<double>(first) + shift) * f.h.tsamp / 86400.0;
  h.nsamples = static_cast<std::int32_t>(count);
  auto bytes = encode_sigproc_header(h);
  const std::size_t bps = f.h.bytes_per_sample();
  bytes.insert(bytes.end(), f.data.begin() + static_cast<std::ptrdiff_t>(first * bps),
               f.data.begin() + static_cast<std::ptrdiff_t>((first + count) * bps));
  return bytes;
}

}  // namespace

TEST_CASE("file sequence: consecutive filterbanks read as the whole file, from the start and after skips") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const Fil f = random_fil(1000, rng);
  SigprocHeader whole_header = f.h;
  auto whole = encode_sigproc_header(whole_header);
  whole.insert(whole.end(), f.data.begin(), f.data.end());
  const std::vector<std::pair<std::size_t, std::size_t>> cuts{{0, 300}, {300, 1}, {301, 499}, {800, 200}};
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    paths.push_back((dir / ("p" + std::to_string(i) + ".fil")).string());
    test::write_file(paths.back(), part(f, cuts[i].first, cuts[i].second));
  }
  FilterbankSequence seq(paths);
  CHECK(seq.size() == std::optional<std::uint64_t>(whole.size()));
  CHECK(read_bytes(seq) == whole);  // the first header with nsamples 1000, then every sample

  for (std::uint64_t skip : {0, 1, 299, 300, 301, 799, 800, 999, 1000}) {
    CAPTURE(skip);
    FilterbankReader r(std::make_unique<FilterbankSequence>(paths));
    CHECK(r.nsamples() == std::optional<std::uint64_t>(1000));
    CHECK(r.skip(skip) == skip);
    std::vector<std::uint8_t> rest((1000 - skip) * f.h.bytes_per_sample() + 5);
    CHECK(r.read_packed(rest.data(), 1000) == 1000 - skip);
    rest.resize((1000 - skip) * f.h.bytes_per_sample());
    CHECK(std::equal(rest.begin(), rest.end(), f.data.begin() + static_cast<std::ptrdiff_t>(skip * 4)));
  }
}

TEST_CASE("file sequence: a gap between filterbanks reads as zero samples, from the start and after skips") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const Fil f = random_fil(100, rng);
  const auto a = (dir / "a.fil").string();
  const auto b = (dir / "b.fil").string();
  const auto c = (dir / "c.fil").string();
  // a: samples 0-39; b: 40-69 placed 3 samples late; c: 70-99 placed 3 + 1 late (tstart rounded
  // to PRESTO's sample: a jitter of 0.3 samples changes nothing).
  test::write_file(a, part(f, 0, 40));
  test::write_file(b, part(f, 40, 30, 3));
  test::write_file(c, part(f, 70, 30, 4.3));
  const std::size_t bps = f.h.bytes_per_sample();
  std::vector<std::uint8_t> want(f.data.begin(), f.data.begin() + static_cast<std::ptrdiff_t>(40 * bps));
  want.resize(43 * bps, 0);
  want.insert(want.end(), f.data.begin() + static_cast<std::ptrdiff_t>(40 * bps),
              f.data.begin() + static_cast<std::ptrdiff_t>(70 * bps));
  want.resize(want.size() + bps, 0);
  want.insert(want.end(), f.data.begin() + static_cast<std::ptrdiff_t>(70 * bps), f.data.end());
  const std::vector<SampleGap> gaps{{40, 3}, {73, 1}};
  for (std::uint64_t skip : {0, 1, 39, 40, 41, 43, 72, 73, 74, 103, 104}) {
    CAPTURE(skip);
    FilterbankReader r(std::make_unique<FilterbankSequence>(std::vector<std::string>{a, b, c}));
    CHECK(r.nsamples() == std::optional<std::uint64_t>(104));
    CHECK(r.gaps() == gaps);
    CHECK(r.skip(skip) == skip);
    std::vector<std::uint8_t> rest((104 - skip) * bps);
    CHECK(r.read_packed(rest.data(), 200) == 104 - skip);
    CHECK(std::equal(rest.begin(), rest.end(), want.begin() + static_cast<std::ptrdiff_t>(skip * bps)));
  }
}

TEST_CASE("file sequence: overlaps, implausible gaps and other data are refused, naming the file") {
  std::mt19937_64 rng(11);
  test::TempDir dir;
  const Fil f = random_fil(100, rng);
  const auto a = (dir / "a.fil").string();
  const auto b = (dir / "b.fil").string();
  test::write_file(a, part(f, 0, 50));
  test::write_file(b, part(f, 50, 50, 6000));
  test::check_error(
      [&] {
        FilterbankSequence s({a, b});
      },
      "6000 samples after " + a + " ends (sample 50): too long a gap to pad", b);
  test::write_file(b, part(f, 50, 50, -2));
  test::check_error([&] { FilterbankSequence s({a, b}); }, "an overlap of 2 samples", b);
  Fil g = f;
  g.h.nchans = 16;
  g.h.keys = sigproc_filterbank_keys(g.h);
  test::write_file(b, part(g, 25, 25));
  test::check_error([&] { FilterbankSequence s({a, b}); }, "not the same data as " + a + ": 16 channels, not 8", b);
  g = f;
  g.h.foff = -2.0;
  test::write_file(b, part(g, 50, 50));
  test::check_error([&] { FilterbankSequence s({a, b}); }, "foff -2 MHz", b);
  test::check_error([&] { FilterbankSequence s({a, "-"}); }, "stdin cannot be one of several input files", "-");
}

namespace {

// A PSRFITS file of `rows` rows starting `first_row` rows into the observation (STT_OFFS moved).
test::FakePsrfits psrfits_part(const test::FakePsrfits& whole, int first_row, int rows, double shift_s = 0.0) {
  test::FakePsrfits p = whole;
  p.nrows = rows;
  p.stt_offs_s = whole.stt_offs_s + first_row * whole.nsblk * whole.tbin_s + shift_s;
  const std::size_t per_row = static_cast<std::size_t>(whole.nsblk) * whole.npol * whole.nchan;
  p.raw.assign(whole.raw.begin() + static_cast<std::ptrdiff_t>(first_row * per_row),
               whole.raw.begin() + static_cast<std::ptrdiff_t>((first_row + rows) * per_row));
  return p;
}

}  // namespace

TEST_CASE("file sequence: consecutive PSRFITS files read as the whole file") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  test::FakePsrfits f;
  f.nbits = 8;
  f.npol = 2;
  f.pol_type = "AABB";
  f.nchan = 4;
  f.nsblk = 8;
  f.nrows = 7;
  f.freqs_mhz = {1400.0, 1399.0, 1398.0, 1397.0};
  std::uniform_int_distribution<int> d(0, 255);
  for (int i = 0; i < f.nrows * f.nsblk * f.npol * f.nchan; ++i) f.raw.push_back(d(rng));
  PsrfitsReader whole(memory_source(f.encode(), "whole.sf"));
  const auto want = test::read_all_float(whole, 5);
  std::vector<std::string> paths;
  for (const auto& [first, rows] : std::vector<std::pair<int, int>>{{0, 2}, {2, 1}, {3, 4}}) {
    paths.push_back((dir / ("p" + std::to_string(first) + ".sf")).string());
    test::write_file(paths.back(), psrfits_part(f, first, rows).encode());
  }
  for (std::size_t piece : {1, 3, 8, 100}) {
    PsrfitsSequence seq(paths, {}, {});
    CHECK(seq.nsamples() == std::optional<std::uint64_t>(56));
    CHECK(seq.header().tstart == doctest::Approx(whole.header().tstart).epsilon(1e-15));
    CHECK(test::read_all_float(seq, piece) == want);
  }
  for (std::uint64_t skip : {1, 16, 17, 24, 55, 56}) {
    CAPTURE(skip);
    PsrfitsSequence seq(paths, {}, {IfChoice::Mode::one, 1});
    PsrfitsReader bb(memory_source(f.encode(), "whole.sf"), {}, {IfChoice::Mode::one, 1});
    CHECK(seq.skip(skip) == skip);
    CHECK(bb.skip(skip) == skip);
    CHECK(test::read_all_float(seq, 7) == test::read_all_float(bb, 7));
  }
  // Through open_sigproc_sequence: a float32 filterbank of the same values.
  FilterbankReader r(open_sigproc_sequence(paths, {}, {}));
  CHECK(r.header().nbits == 32);
  CHECK(test::read_all_float(r, 9) == want);

  // A row's worth of gap reads as zeros, listed with the rows missing inside a file (the last
  // part lacks its second row), and a SIGPROC file among PSRFITS files is refused.
  const auto gap = (dir / "gap.sf").string();
  test::FakePsrfits late = psrfits_part(f, 3, 4, f.nsblk * f.tbin_s);
  late.row_index = {0.0, 2.0, 3.0, 4.0};
  test::write_file(gap, late.encode());
  const std::size_t row = static_cast<std::size_t>(f.nsblk * f.nchan);
  std::vector<float> gappy(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(3 * row));
  gappy.resize(4 * row, 0.0F);  // the gap between files
  gappy.insert(gappy.end(), want.begin() + static_cast<std::ptrdiff_t>(3 * row),
               want.begin() + static_cast<std::ptrdiff_t>(4 * row));  // the last part's row 0
  gappy.resize(6 * row, 0.0F);                                        // its missing row
  gappy.insert(gappy.end(), want.begin() + static_cast<std::ptrdiff_t>(4 * row), want.end());
  for (std::size_t piece : {1, 7, 100}) {
    PsrfitsSequence seq({paths[0], paths[1], gap}, {}, {});
    CHECK(seq.nsamples() == std::optional<std::uint64_t>(9 * 8));
    CHECK(seq.gaps() == std::vector<SampleGap>{{24, 8}});  // the missing row is not reached yet
    CHECK(test::same_bits(test::read_all_float(seq, piece), gappy));
    CHECK(seq.gaps() == std::vector<SampleGap>{{24, 8}, {40, 8}});
  }
  const auto fil = (dir / "x.fil").string();
  const Fil x = random_fil(10, rng);
  test::write_file(fil, part(x, 0, 10));
  test::check_error(
      [&] {
        (void)open_sigproc_sequence({paths[0], fil}, {}, {});
      },
      "several input files must be of one format", fil);
}
