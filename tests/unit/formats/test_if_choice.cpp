// SPDX-License-Identifier: MIT
// Multi-IF input (dedisp --if): a SIGPROC filterbank of several IFs read as one IF, summed or
// one IF alone, against a plain reference on random data of every nbits; PSRFITS polarisations
// chosen the same way; the choices a file cannot meet refused with its name.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/if_choice.hpp"
#include "fastpsr/psrfits.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

struct MultiIf {
  SigprocHeader header;
  std::vector<float> values;  // [sample][if][chan], the values the file holds
  std::size_t nsamples = 0;
};

MultiIf random_multi_if(int nbits, int nifs, int nchans, std::size_t nsamples, std::mt19937_64& rng) {
  MultiIf m;
  m.header = test::small_fil_header();
  m.header.nchans = nchans;
  m.header.nbits = nbits;
  m.header.nifs = nifs;
  m.header.keys = sigproc_filterbank_keys(m.header);
  m.nsamples = nsamples;
  const std::size_t n = nsamples * static_cast<std::size_t>(nifs) * static_cast<std::size_t>(nchans);
  if (nbits == 32) {
    std::normal_distribution<float> g(50.0F, 7.0F);
    for (std::size_t i = 0; i < n; ++i) m.values.push_back(g(rng));
  } else {
    std::uniform_int_distribution<int> d(0, (1 << nbits) - 1);
    for (std::size_t i = 0; i < n; ++i) m.values.push_back(static_cast<float>(d(rng)));
  }
  return m;
}

std::vector<std::uint8_t> encode(const MultiIf& m) {
  auto bytes = encode_sigproc_header(m.header);
  std::vector<std::uint8_t> data(packed_bytes(m.values.size(), m.header.nbits));
  pack_from_float(m.values.data(), data.data(), m.values.size(), m.header.nbits);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

// The IFs first .. first + count - 1 of each sample summed in IF order, in float as the
// combiner adds (for integer samples every partial sum is exact).
std::vector<float> reference(const MultiIf& m, int first, int count) {
  const auto nchans = static_cast<std::size_t>(m.header.nchans);
  const auto nifs = static_cast<std::size_t>(m.header.nifs);
  std::vector<float> out;
  for (std::size_t t = 0; t < m.nsamples; ++t) {
    for (std::size_t c = 0; c < nchans; ++c) {
      float s = 0.0F;
      for (int i = first; i < first + count; ++i) s += m.values[(t * nifs + static_cast<std::size_t>(i)) * nchans + c];
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("if choice: auto, sum and IF numbers parse, and anything else is named") {
  CHECK(parse_if_choice("auto").mode == IfChoice::Mode::automatic);
  CHECK(parse_if_choice("sum").mode == IfChoice::Mode::sum);
  const IfChoice three = parse_if_choice("3");
  CHECK(three.mode == IfChoice::Mode::one);
  CHECK(three.index == 3);
  CHECK(to_string(three) == "3");
  CHECK(to_string(parse_if_choice("sum")) == "sum");
  for (const char* bad : {"", "-1", "1.5", "x", "0x1", "2 ", "99999999999"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_if_choice(bad), Error);
  }
}

TEST_CASE("if choice: summed or single IFs of every nbits match the reference, in any read pieces") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int nbits : {1, 2, 4, 8, 16, 32}) {
    for (int nifs : {2, 3, 4}) {
      CAPTURE(nbits);
      CAPTURE(nifs);
      const auto m = random_multi_if(nbits, nifs, 8, 37, rng);
      std::vector<std::pair<IfChoice, std::pair<int, int>>> cases{{{IfChoice::Mode::sum, 0}, {0, nifs}}};
      if (nifs == 2) cases.push_back({{}, {0, 2}});
      for (int i = 0; i < nifs; ++i) cases.push_back({{IfChoice::Mode::one, i}, {i, 1}});
      for (const auto& [choice, used] : cases) {
        CAPTURE(to_string(choice));
        const auto want = reference(m, used.first, used.second);
        for (std::size_t piece : {1, 4, 37, 100}) {
          IfCombiner combiner(std::make_unique<FilterbankReader>(test::pipe_source(encode(m), 5, "multi.fil")), choice);
          CHECK(combiner.header().nifs == 1);
          CHECK(combiner.header().nchans == 8);
          CHECK(test::same_bits(test::read_all_float(combiner, piece), want));
          CHECK(combiner.position() == m.nsamples);
        }
        // Skipping whole samples, then reading, gives the rest.
        IfCombiner combiner(std::make_unique<FilterbankReader>(memory_source(encode(m), "multi.fil")), choice);
        CHECK(combiner.skip(10) == 10);
        const auto rest = test::read_all_float(combiner, 7);
        CHECK(test::same_bits(rest, std::vector<float>(want.begin() + 80, want.end())));
      }
    }
  }
}

TEST_CASE("if choice: combine_ifs reads the chosen IFs as a float32 filterbank of one IF") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto m = random_multi_if(8, 2, 5, 20, rng);
  auto reader = combine_ifs(std::make_unique<FilterbankReader>(memory_source(encode(m), "two.fil")), {});
  CHECK(reader->header().nifs == 1);
  CHECK(reader->header().nbits == 32);
  CHECK(reader->nsamples() == std::optional<std::uint64_t>(20));
  CHECK(test::same_bits(test::read_all_float(*reader, 6), reference(m, 0, 2)));

  // One IF: the reader itself, untouched (its packed samples keep their bits).
  const auto one = random_multi_if(4, 1, 8, 10, rng);
  auto plain = std::make_unique<FilterbankReader>(memory_source(encode(one), "one.fil"));
  const FilterbankReader* before = plain.get();
  auto same = combine_ifs(std::move(plain), IfChoice{IfChoice::Mode::one, 0});
  CHECK(same.get() == before);
  CHECK(same->header().nbits == 4);
}

TEST_CASE("if choice: choices the file cannot meet are refused, naming it") {
  std::mt19937_64 rng(7);
  const auto four = random_multi_if(8, 4, 8, 4, rng);
  test::check_error(
      [&] { IfCombiner c(std::make_unique<FilterbankReader>(memory_source(encode(four), "iquv.fil")), {}); }, "4 IFs",
      "iquv.fil");
  test::check_error(
      [&] {
        IfCombiner c(std::make_unique<FilterbankReader>(memory_source(encode(four), "iquv.fil")),
                     {IfChoice::Mode::one, 4});
      },
      "--if 4: the data have 4 IFs (0 to 3)", "iquv.fil");
  const auto one = random_multi_if(8, 1, 8, 4, rng);
  test::check_error(
      [&] {
        (void)combine_ifs(std::make_unique<FilterbankReader>(memory_source(encode(one), "one.fil")),
                          {IfChoice::Mode::one, 1});
      },
      "--if 1: the data have one IF", "one.fil");
}

namespace {

// A PSRFITS file of `npol` polarisations whose every stored value is distinct by polarisation,
// scales 1, offsets 0, weights 1: the intensity read is the chosen polarisations' sum.
test::FakePsrfits psrfits_pols(int npol, const std::string& pol_type, std::mt19937_64& rng) {
  test::FakePsrfits f;
  f.nbits = 8;
  f.npol = npol;
  f.pol_type = pol_type;
  f.nchan = 4;
  f.nsblk = 6;
  f.nrows = 2;
  f.freqs_mhz = {1400.0, 1399.0, 1398.0, 1397.0};
  std::uniform_int_distribution<int> d(0, 255);
  for (int i = 0; i < f.nrows * f.nsblk * npol * f.nchan; ++i) f.raw.push_back(d(rng));
  return f;
}

std::vector<float> pol_sum(const test::FakePsrfits& f, int first, int count) {
  std::vector<float> out;
  for (int t = 0; t < f.nrows * f.nsblk; ++t) {
    for (int c = 0; c < f.nchan; ++c) {
      float s = 0.0F;
      for (int p = first; p < first + count; ++p) {
        s += static_cast<float>(f.raw[static_cast<std::size_t>((t * f.npol + p) * f.nchan + c)]);
      }
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("if choice: PSRFITS polarisations, one of them or AA + BB") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const auto& [npol, type] : std::vector<std::pair<int, std::string>>{{2, "AABB"}, {4, "AABBCRCI"}, {4, "IQUV"}}) {
    CAPTURE(type);
    const auto f = psrfits_pols(npol, type, rng);
    for (int p = 0; p < npol; ++p) {
      PsrfitsReader r(memory_source(f.encode(), "pols.sf"), {}, {IfChoice::Mode::one, p});
      CHECK(r.info().intensity_from == "polarisation " + std::to_string(p));
      CHECK(test::same_bits(test::read_all_float(r, 5), pol_sum(f, p, 1)));
    }
    PsrfitsReader automatic(memory_source(f.encode(), "pols.sf"));
    CHECK(test::same_bits(test::read_all_float(automatic, 5), pol_sum(f, 0, type == "IQUV" ? 1 : 2)));
    if (type != "IQUV") {
      PsrfitsReader summed(memory_source(f.encode(), "pols.sf"), {}, {IfChoice::Mode::sum, 0});
      CHECK(test::same_bits(test::read_all_float(summed, 5), pol_sum(f, 0, 2)));
    }
  }
  // Two polarisations of a type the reader does not know: summed (as PRESTO does) or one, if asked.
  const auto xy = psrfits_pols(2, "XXYY", rng);
  PsrfitsReader summed(memory_source(xy.encode(), "xy.sf"), {}, {IfChoice::Mode::sum, 0});
  CHECK(test::same_bits(test::read_all_float(summed, 4), pol_sum(xy, 0, 2)));
  PsrfitsReader second(memory_source(xy.encode(), "xy.sf"), {}, {IfChoice::Mode::one, 1});
  CHECK(test::same_bits(test::read_all_float(second, 4), pol_sum(xy, 1, 1)));

  const auto iquv = psrfits_pols(4, "IQUV", rng);
  test::check_error(
      [&] {
        PsrfitsReader r(memory_source(iquv.encode(), "iquv.sf"), {}, {IfChoice::Mode::sum, 0});
      },
      "only the powers AA and BB sum", "iquv.sf");
  test::check_error(
      [&] {
        PsrfitsReader r(memory_source(iquv.encode(), "iquv.sf"), {}, {IfChoice::Mode::one, 4});
      },
      "--if 4: POL_TYPE 'IQUV' with 4 polarisations (0 to 3)", "iquv.sf");
  test::check_error([&] { PsrfitsReader r(memory_source(xy.encode(), "xy.sf")); }, "--if sum adds the first two",
                    "xy.sf");
}
