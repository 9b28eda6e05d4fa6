// SPDX-License-Identifier: MIT
// Voltage input: GUPPI RAW (the real PUPPI sample), PSRDADA axis orders and metadata, raw files,
// and the bad inputs of the issue.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/guppi.hpp"
#include "fastpsr/ppf_input.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"
#include "unit/formats/format_test_helpers.hpp"

using namespace fastpsr;

namespace {

// Reads of any size (the pipe source cuts them to 7 bytes by default).
constexpr std::size_t kWholeReads = std::numeric_limits<std::size_t>::max();

std::vector<std::uint8_t> read_everything(VoltageReader& r, std::size_t chunk, std::size_t& nsamples) {
  const std::size_t value = static_cast<std::size_t>(r.info().npol) * 2 * component_bytes(r.info().type);
  const std::size_t f_count = static_cast<std::size_t>(r.info().ncoarse);
  std::vector<std::vector<std::uint8_t>> per(f_count);
  std::vector<std::uint8_t> buf(chunk * f_count * value);
  nsamples = 0;
  for (;;) {
    const std::size_t n = r.read(buf.data(), chunk);
    for (std::size_t f = 0; f < f_count; ++f) {  // coarse channel f starts at f·chunk samples
      const auto first = buf.begin() + static_cast<std::ptrdiff_t>(f * chunk * value);
      per[f].insert(per[f].end(), first, first + static_cast<std::ptrdiff_t>(n * value));
    }
    nsamples += n;
    if (n < chunk) break;
  }
  std::vector<std::uint8_t> all;
  for (auto& p : per) all.insert(all.end(), p.begin(), p.end());
  return all;  // [F][nsamples][P][2]
}

DadaHeader dada_header(int nchan, int npol, int nbit, const std::string& order) {
  DadaHeader h;
  h.set("HDR_VERSION", "1.0");
  h.set("NCHAN", std::to_string(nchan));
  h.set("NPOL", std::to_string(npol));
  h.set("NBIT", std::to_string(nbit));
  h.set("NDIM", "2");
  h.set("TSAMP", "0.32");  // µs: 3.125 MHz channels
  h.set("FREQ", "1400");
  h.set("BW", std::to_string(-3.125 * nchan));
  if (!order.empty()) h.set("ORDER", order);
  h.set("UTC_START", "2000-01-01-12:00:00");
  h.set("OBS_OFFSET", std::to_string(8 * nchan * npol * 2 * (nbit / 8)));  // 8 samples in
  h.set("SOURCE", "J0437-4715");
  h.set("TELESCOPE", "Parkes");
  h.set("RA", "04:37:15.9");
  h.set("DEC", "-47:15:09.1");
  return h;
}

}  // namespace

TEST_CASE("ppf input: the GUPPI RAW sample of shared/data parses (4 blocks, 6400-byte headers, OVERLAP 64)" *
          doctest::skip(!test::have_shared_data())) {
  const auto path = *test::shared_data_dir() / "real" / "puppi_J1810+1744.raw";
  const auto file = test::read_file(path);
  REQUIRE(file.size() == 91136);
  auto r = open_voltage_reader(open_source(path.string()), std::nullopt);
  const VoltageInfo& in = r->info();
  CHECK(in.format == "GUPPI RAW");
  CHECK(in.type == VoltageType::ci8);
  CHECK(in.npol == 2);
  CHECK(in.ncoarse == 4);
  CHECK(in.chan_bw_mhz == 3.125);
  REQUIRE(in.coarse_centre_mhz.size() == 4);
  for (int i = 0; i < 4; ++i)
    CHECK(in.coarse_centre_mhz[static_cast<std::size_t>(i)] == 356.6875 - 6.25 + (i + 0.5) * 3.125);
  CHECK(in.tsamp_s == 0.004);  // as written (the sample's TBIN was edited; the reader warns)
  CHECK(in.tstart_mjd == doctest::Approx(58132.0 + 51093.0 / 86400.0).epsilon(1e-15));
  CHECK(in.source_name == "J1810+1744");
  CHECK(in.telescope == "Arecibo");
  CHECK(in.src_raj == doctest::Approx(181037.28));
  CHECK(in.src_dej == doctest::Approx(174437.3801));
  std::size_t n = 0;
  const auto data = read_everything(*r, 700, n);
  // 1024 samples per channel per block, the last 64 repeated by the next block: 4 × 960.
  REQUIRE(n == 3840);
  // Sample k of channel f: block k / 960, index k % 960 of that block's channel-major payload
  // ([chan][1024][pol][re, im]); payloads at 6400 + b·22784.
  for (std::size_t f = 0; f < 4; ++f) {
    for (std::size_t k : {0UL, 1UL, 959UL, 960UL, 961UL, 1919UL, 1920UL, 3839UL}) {
      const std::size_t b = k / 960;
      const std::size_t offset = 6400 + b * 22784 + (f * 1024 + k % 960) * 4;
      CAPTURE(f);
      CAPTURE(k);
      CHECK(std::memcmp(data.data() + (f * n + k) * 4, file.data() + offset, 4) == 0);
    }
  }
  // The header cards as the reader sees them.
  auto src = open_source(path.string());
  const auto h = read_guppi_header(*src);
  REQUIRE(h);
  CHECK(h->header_bytes == 6400);
  CHECK(h->get_int("BLOCSIZE", "x") == 16384);
  CHECK(h->get_int("OVERLAP", "x") == 64);
  CHECK(*h->get("PKTFMT") == "1SFA");
  CHECK(*h->get("TELESCOP") == "Arecibo");
}

TEST_CASE("ppf input: GUPPI blocks with DIRECTIO padding, a PKTIDX gap filled with zeros, truncation") {
  auto card = [](const std::string& k, const std::string& v) { return test::guppi_card(k, v); };
  auto block = [&](long long pktidx, std::uint8_t fill) {
    std::string h = card("BLOCSIZE", "32") + card("OBSNCHAN", "2") + card("NPOL", "4") + card("NBITS", "8") +
                    card("OBSFREQ", "1500.0") + card("OBSBW", "-200.0") + card("TBIN", "1e-8") + card("OVERLAP", "1") +
                    card("PKTSIZE", "8") + card("PKTIDX", std::to_string(pktidx)) + card("DIRECTIO", "1") +
                    card("SRC_NAME", "'B0329+54'");
    h += card("END", "");
    h.resize(h.size() - 80);
    h += std::string("END").append(77, ' ');
    std::vector<std::uint8_t> out(h.begin(), h.end());
    out.resize((out.size() + 511) / 512 * 512, 0);
    for (int i = 0; i < 32; ++i) out.push_back(static_cast<std::uint8_t>(fill + i));
    return out;
  };
  // 4 samples per channel per block (32 bytes / (2 chan × 4 bytes)), 3 usable; PKTSIZE 8:
  // one packet = 8·8 / (2·4·8) = 1 sample, so block PKTIDX advance by 3 when contiguous.
  std::vector<std::uint8_t> file = block(0, 0);
  const auto b2 = block(5, 100);  // samples 3 and 4 missing
  file.insert(file.end(), b2.begin(), b2.end());
  auto r = open_voltage_reader(memory_source(file, "g.raw"), std::nullopt);
  CHECK(r->info().chan_bw_mhz == -100.0);
  CHECK(r->info().coarse_centre_mhz[0] == 1550.0);
  CHECK(r->info().source_name == "B0329+54");
  std::size_t n = 0;
  const auto data = read_everything(*r, 4, n);
  REQUIRE(n == 3 + 2 + 3);
  // Channel 1, sample 0 = payload bytes 16..19; the gap is zeros; block 2's channel 0 starts at byte 0.
  CHECK(data[(1 * n + 0) * 4] == 16);
  for (int k = 3; k < 5; ++k) CHECK(data[(0 * n + static_cast<std::size_t>(k)) * 4] == 0);
  CHECK(data[(0 * n + 5) * 4] == 100);
  CHECK(data[(1 * n + 7) * 4 + 3] == 100 + 16 + 2 * 4 + 3);
  // A recording cut inside its second block: the first block's samples are the data (the cut
  // block, and the gap its PKTIDX announced, are dropped), with a warning: the same bytes as the
  // first block alone.
  file.erase(file.end() - 5, file.end());
  auto t = open_voltage_reader(memory_source(file, "t.raw"), std::nullopt);
  std::size_t nt = 0;
  const auto cut = read_everything(*t, 16, nt);
  CHECK(nt == 3);
  const auto one = block(0, 0);
  auto first = open_voltage_reader(memory_source(one, "one.raw"), std::nullopt);
  std::size_t n1 = 0;
  CHECK(cut == read_everything(*first, 16, n1));
  CHECK(n1 == 3);
  // Cut inside the first block: nothing to use.
  std::vector<std::uint8_t> short_first = one;
  short_first.erase(short_first.end() - 5, short_first.end());
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(short_first, "s.raw"), std::nullopt),
                       doctest::Contains("truncated"), Error);
}

TEST_CASE("ppf input: PSRDADA TFP and TPF are delivered coarse channel by coarse channel, with metadata") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (const std::string order : {"TFP", "TPF", ""}) {
    CAPTURE(order);
    const int nchan = 3;
    const int npol = 2;
    const std::size_t nsamp = 37;
    auto h = dada_header(nchan, npol, 16, order);
    auto bytes = encode_dada_header(h);
    const auto payload = test::random_voltages(VoltageType::ci16, nsamp * nchan * npol * 2, seed);
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    auto r = open_voltage_reader(memory_source(bytes, "x.dada"), std::nullopt);
    const auto& in = r->info();
    CHECK(in.format == "PSRDADA");
    CHECK(in.type == VoltageType::ci16);
    CHECK(in.ncoarse == 3);
    CHECK(in.npol == 2);
    CHECK(in.tsamp_s == doctest::Approx(0.32e-6));
    CHECK(in.chan_bw_mhz == -3.125);
    CHECK(in.coarse_centre_mhz[0] == 1400.0 + 3.125);  // negative BW: channel 0 is the highest
    CHECK(in.coarse_centre_mhz[2] == 1400.0 - 3.125);
    CHECK(in.tstart_mjd == doctest::Approx(51544.5 + 8 * 0.32e-6 / 86400.0).epsilon(1e-15));
    CHECK(in.source_name == "J0437-4715");
    CHECK(in.src_dej == doctest::Approx(-471509.1));
    REQUIRE(in.nsamples);
    CHECK(*in.nsamples == nsamp);
    std::size_t n = 0;
    const auto got = read_everything(*r, 10, n);
    REQUIRE(n == nsamp);
    const bool pol_major = order == "TPF";
    for (std::size_t t = 0; t < nsamp; ++t) {
      for (std::size_t f = 0; f < 3; ++f) {
        for (std::size_t p = 0; p < 2; ++p) {
          const std::size_t src = pol_major ? (t * 2 + p) * 3 + f : (t * 3 + f) * 2 + p;
          CHECK(std::memcmp(got.data() + ((f * nsamp + t) * 2 + p) * 4, payload.data() + src * 4, 4) == 0);
        }
      }
    }
  }
}

TEST_CASE("ppf input: bad inputs are named and explained") {
  // Raw: an odd byte count, inconsistent sample rate, no rate, no --format.
  RawVoltageOptions raw;
  raw.type = VoltageType::ci8;
  raw.fcentre_mhz = 1400;
  raw.bw_mhz = 400;
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(std::vector<std::uint8_t>(1001, 1), "odd.dat"), raw),
                       doctest::Contains("1001 bytes is not a whole number of ci8 samples"), Error);
  try {
    open_voltage_reader(memory_source(std::vector<std::uint8_t>(1001, 1), "odd.dat"), raw);
  } catch (const Error& e) {
    CHECK(e.path() == "odd.dat");
  }
  raw.npol = 2;
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(std::vector<std::uint8_t>(1002, 1), "o2.dat"), raw),
                       doctest::Contains("4 bytes each with 2 polarisations"), Error);
  raw.npol = 1;
  raw.tsamp_s = 1e-9;
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(std::vector<std::uint8_t>(1000, 1), "x"), raw),
                       doctest::Contains("disagree"), Error);
  raw.tsamp_s = 0.0;
  raw.bw_mhz = 0.0;
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(std::vector<std::uint8_t>(1000, 1), "x"), raw),
                       doctest::Contains("--bw or --tsamp"), Error);
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(std::vector<std::uint8_t>(1000, 1), "x"), std::nullopt),
                       doctest::Contains("give --format"), Error);
  // A pipe that ends inside a sample.
  raw.bw_mhz = 400;
  auto pipe = open_voltage_reader(test::pipe_source(std::vector<std::uint8_t>(1001, 1), kWholeReads), raw);
  std::vector<std::uint8_t> buf(4096);
  CHECK_THROWS_WITH_AS(pipe->read(buf.data(), 1000), doctest::Contains("end inside a sample"), Error);
  // PSRDADA values ppf cannot read.
  auto dada_with = [](const std::string& key, const std::string& value) {
    auto h = dada_header(1, 1, 8, "TFP");
    h.set(key, value);
    return memory_source(encode_dada_header(h), "bad.dada");
  };
  CHECK_THROWS_WITH_AS(open_voltage_reader(dada_with("NDIM", "1"), std::nullopt), doctest::Contains("NDIM 1"), Error);
  CHECK_THROWS_WITH_AS(open_voltage_reader(dada_with("NBIT", "4"), std::nullopt), doctest::Contains("NBIT 4"), Error);
  CHECK_THROWS_WITH_AS(open_voltage_reader(dada_with("NPOL", "4"), std::nullopt), doctest::Contains("NPOL 4"), Error);
  auto fpt = dada_header(2, 2, 8, "FTP");
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(encode_dada_header(fpt), "f.dada"), std::nullopt),
                       doctest::Contains("ORDER FTP"), Error);
  // A recording that stopped inside a sample: its whole samples are read (as GUPPI RAW and
  // SIGPROC files cut short are), with a warning.
  auto partial = encode_dada_header(dada_header(1, 1, 8, "TFP"));
  partial.insert(partial.end(), 7, 1);  // three 2-byte samples and one byte of a fourth
  CHECK(open_voltage_reader(memory_source(partial, "p.dada"), std::nullopt)->info().nsamples == 3U);
  // Header cards that end before a BLOCSIZE card: a GUPPI RAW file cut inside its header, said so.
  std::string cards = "BACKEND = 'GUPPI   '";
  cards.resize(80, ' ');
  const std::vector<std::uint8_t> cut(cards.begin(), cards.end());
  CHECK_THROWS_WITH_AS(open_voltage_reader(memory_source(cut, "cut.raw"), std::nullopt),
                       doctest::Contains("cut short inside its first header"), Error);
  CHECK_THROWS_WITH_AS(mjd_from_utc("2000-13-01-00:00:00", "u"), doctest::Contains("YYYY-MM-DD"), Error);
  CHECK(mjd_from_utc("1858-11-17-00:00:00", "u") == 0.0);
  CHECK(mjd_from_utc("2000-01-01T12:00:00", "u") == 51544.5);
}
