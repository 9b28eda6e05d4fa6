// SPDX-License-Identifier: MIT
// rfifind masks and their padding values (presto_mask.hpp), and the masker that puts those values
// in place of masked samples of packed spectra (sample_mask.hpp), against plain references.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_mask.hpp"
#include "fastpsr/sample_mask.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// Appends a value's bytes (little-endian, as rfifind writes on every machine it runs on).
template <typename T>
void put(std::vector<std::uint8_t>& out, T v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

// The bytes rfifind writes for `m` (an interval with every channel masked is written as a count of
// numchan and no list).
std::vector<std::uint8_t> encode(const PrestoMask& m) {
  std::vector<std::uint8_t> b;
  for (double d : {m.time_sigma, m.freq_sigma, m.mjd, m.interval_s, m.lofreq_mhz, m.dfreq_mhz}) put(b, d);
  for (int i : {m.nchans, m.nintervals, m.samples_per_interval}) put<std::int32_t>(b, i);
  put<std::int32_t>(b, static_cast<std::int32_t>(m.zap_chans.size()));
  for (int c : m.zap_chans) put<std::int32_t>(b, c);
  put<std::int32_t>(b, static_cast<std::int32_t>(m.zap_ints.size()));
  for (int i : m.zap_ints) put<std::int32_t>(b, i);
  for (const auto& l : m.chans) put<std::int32_t>(b, static_cast<std::int32_t>(l.size()));
  for (const auto& l : m.chans) {
    if (static_cast<int>(l.size()) == m.nchans) continue;
    for (int c : l) put<std::int32_t>(b, c);
  }
  return b;
}

// A random mask over `nchans` channels and `nint` intervals of `per` samples: a few channels
// throughout, a few whole intervals, a random set per interval (sometimes all, sometimes none).
PrestoMask random_mask(std::mt19937_64& rng, int nchans, int nint, int per, double tsamp, double lofreq, double width) {
  PrestoMask m;
  m.time_sigma = 10;
  m.freq_sigma = 4;
  m.mjd = 60000.5;
  m.interval_s = per * tsamp;
  m.lofreq_mhz = lofreq;
  m.dfreq_mhz = width;
  m.nchans = nchans;
  m.nintervals = nint;
  m.samples_per_interval = per;
  auto subset = [&](int n, double p) {
    std::vector<int> v;
    std::bernoulli_distribution pick(p);
    for (int i = 0; i < n; ++i) {
      if (pick(rng)) v.push_back(i);
    }
    return v;
  };
  m.zap_chans = subset(nchans, 0.1);
  m.zap_ints = subset(nint, 0.15);
  std::uniform_int_distribution<int> kind(0, 9);
  for (int i = 0; i < nint; ++i) {
    const int k = kind(rng);
    std::vector<int> all(static_cast<std::size_t>(nchans));
    for (int c = 0; c < nchans; ++c) all[static_cast<std::size_t>(c)] = c;
    m.chans.push_back(k == 0 ? all : k == 1 ? std::vector<int>{} : subset(nchans, 0.2));
  }
  return m;
}

// Mask channels (rfifind's order) masked at sample s: the plain reading of the format.
std::set<int> masked_at(const PrestoMask& m, std::uint64_t s) {
  std::set<int> out(m.zap_chans.begin(), m.zap_chans.end());
  const auto i = s / static_cast<std::uint64_t>(m.samples_per_interval);
  if (i >= static_cast<std::uint64_t>(m.nintervals)) return out;
  const int ii = static_cast<int>(i);
  if (std::find(m.zap_ints.begin(), m.zap_ints.end(), ii) != m.zap_ints.end()) {
    for (int c = 0; c < m.nchans; ++c) out.insert(c);
  }
  out.insert(m.chans[i].begin(), m.chans[i].end());
  return out;
}

SigprocHeader header_for(int nchans, int nbits, bool descending, double tsamp = 1e-3) {
  SigprocHeader h;
  h.nchans = nchans;
  h.nbits = nbits;
  h.tsamp = tsamp;
  h.foff = descending ? -0.5 : 0.5;
  h.fch1 = descending ? 1500.0 : 1500.0 - (nchans - 1) * 0.5;  // lowest channel 1500 - (n-1)/2 either way
  h.tstart = 60000.5;
  return h;
}

}  // namespace

TEST_CASE("rfifind mask: read back what rfifind writes, every field and list") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const PrestoMask m = random_mask(rng, 24, 9, 100, 1e-3, 1400.25, 0.5);
  test::write_file(dir / "obs_rfifind.mask", encode(m));
  const PrestoMask r = read_presto_mask((dir / "obs_rfifind.mask").string());
  CHECK(r.time_sigma == m.time_sigma);
  CHECK(r.freq_sigma == m.freq_sigma);
  CHECK(r.mjd == m.mjd);
  CHECK(r.interval_s == m.interval_s);
  CHECK(r.lofreq_mhz == m.lofreq_mhz);
  CHECK(r.dfreq_mhz == m.dfreq_mhz);
  CHECK(r.nchans == 24);
  CHECK(r.nintervals == 9);
  CHECK(r.samples_per_interval == 100);
  CHECK(r.zap_chans == m.zap_chans);
  CHECK(r.zap_ints == m.zap_ints);
  CHECK(r.chans == m.chans);  // an interval of every channel comes back as every channel
}

TEST_CASE("rfifind mask: damaged files are errors naming the file and the problem") {
  test::TempDir dir;
  std::mt19937_64 rng(3);
  PrestoMask m = random_mask(rng, 16, 4, 50, 1e-3, 1400.0, 1.0);
  m.chans = {{}, {1}, {}, {2, 5}};  // the file ends with interval 3's list
  const auto good = encode(m);
  const auto path = (dir / "x.mask").string();
  auto error_for = [&](const std::vector<std::uint8_t>& bytes) {
    test::write_file(path, bytes);
    return test::error_of([&] { (void)read_presto_mask(path); });
  };
  CHECK(error_for(good) == "(no error)");
  auto cut = good;
  cut.erase(cut.end() - 4, cut.end());
  CHECK(error_for(cut).find("not a whole rfifind mask") != std::string::npos);
  CHECK(error_for(cut).find(path) != std::string::npos);
  auto longer = good;
  longer.push_back(0);
  CHECK(error_for(longer).find("1 bytes follow the mask's last list") != std::string::npos);
  CHECK(error_for(std::vector<std::uint8_t>(20, 0)).find("inside the header") != std::string::npos);
  // A channel number out of range, and a list out of order, in the last list.
  auto bad = good;
  const std::size_t last = bad.size() - 8;
  std::int32_t v = 16;
  std::memcpy(&bad[last + 4], &v, 4);
  CHECK(error_for(bad).find("16 is out of order or outside 0..15") != std::string::npos);
  v = 1;
  std::memcpy(&bad[last + 4], &v, 4);
  CHECK(error_for(bad).find("1 is out of order") != std::string::npos);
  // Zero channels in the header.
  auto zero = good;
  v = 0;
  std::memcpy(&zero[48], &v, 4);
  CHECK(error_for(zero).find("not an rfifind mask: 0 channels") != std::string::npos);
}

TEST_CASE("rfifind stats: the name beside a mask, and PRESTO's padding (mean of the middle 80%)") {
  CHECK(rfifind_stats_path("obs_rfifind.mask") == std::optional<std::string>("obs_rfifind.stats"));
  CHECK(rfifind_stats_path("dir.v1/obs_rfifind.mask") == std::optional<std::string>("dir.v1/obs_rfifind.stats"));
  CHECK(!rfifind_stats_path("dir.v1/mask").has_value());
  CHECK(!rfifind_stats_path(".mask").has_value());

  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const int nchan = 5;
  for (const int nint : {1, 2, 7, 10, 23}) {
    CAPTURE(nint);
    std::vector<std::uint8_t> b;
    for (int v : {nchan, nint, 2400, 0, 16}) put<std::int32_t>(b, v);
    std::normal_distribution<float> g(100.0F, 30.0F);
    std::vector<float> avg(static_cast<std::size_t>(nchan * nint));
    for (int i = 0; i < nchan * nint; ++i) put<float>(b, -1.0F);  // powers
    for (auto& a : avg) {
      a = g(rng);
      put<float>(b, a);
    }
    for (int i = 0; i < nchan * nint; ++i) put<float>(b, -2.0F);  // deviations
    test::TempDir dir;
    test::write_file(dir / "o.stats", b);
    const auto pad = read_rfifind_pad_values((dir / "o.stats").string(), nchan);
    REQUIRE(pad.size() == static_cast<std::size_t>(nchan));
    for (int c = 0; c < nchan; ++c) {
      std::vector<double> col;
      for (int i = 0; i < nint; ++i) col.push_back(avg[static_cast<std::size_t>(i * nchan + c)]);
      std::sort(col.begin(), col.end());
      const int len = static_cast<int>(nint * 0.8 + 0.5);
      const int first = (nint - len) / 2;
      double sum = 0;
      for (int i = first; i < first + len; ++i) sum += col[static_cast<std::size_t>(i)];
      CHECK(pad[static_cast<std::size_t>(c)] == static_cast<float>(sum / len));
    }
    CHECK(test::error_of([&] {
            (void)read_rfifind_pad_values((dir / "o.stats").string(), nchan + 1);
          }).find("holds 5 channels") != std::string::npos);
    b.erase(b.end() - 4, b.end());  // (resize to size() - 4 trips -Wstringop-overflow under ASan)
    test::write_file(dir / "o.stats", b);
    CHECK(test::error_of([&] {
            (void)read_rfifind_pad_values((dir / "o.stats").string(), nchan);
          }).find("bytes after the header") != std::string::npos);
  }
}

TEST_CASE("sample masker: masked samples take the padding, the rest are untouched, every nbits and gulp") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const int nbits : {1, 2, 4, 8, 16, 32}) {
    for (const bool is_signed : {false, true}) {
      if (is_signed && nbits != 8) continue;
      for (const bool descending : {true, false}) {
        CAPTURE(nbits);
        CAPTURE(is_signed);
        CAPTURE(descending);
        const int nchans = 32;
        const int per = 37;
        const int nint = 6;
        SigprocHeader h = header_for(nchans, nbits, descending);
        if (is_signed) {
          h.keys.push_back("signed");
          h.signed_flag = -1;
        }
        const PrestoMask m = random_mask(rng, nchans, nint, per, h.tsamp, 1500.0 - (nchans - 1) * 0.5, 0.5);
        std::vector<float> pad(static_cast<std::size_t>(nchans));
        std::uniform_real_distribution<float> u(-3.0F, 300.0F);
        for (auto& p : pad) p = u(rng);
        SampleMasker masker(m, pad, h, "t.mask");

        // Random samples from a start inside the mask through past its end.
        const std::uint64_t first = std::uniform_int_distribution<std::uint64_t>(0, per * 2)(rng);
        const std::size_t n = static_cast<std::size_t>(per * nint + 50 - first);
        std::vector<float> values(n * nchans);
        const double top = nbits == 32 ? 1000.0 : std::ldexp(1.0, nbits) - 1;
        std::uniform_int_distribution<int> level(0, static_cast<int>(top));
        for (auto& v : values) v = nbits == 32 ? u(rng) : static_cast<float>(level(rng) - (is_signed ? 128 : 0));
        std::vector<std::uint8_t> data(packed_bytes(values.size(), nbits));
        pack_from_float(values.data(), data.data(), values.size(), nbits, is_signed);

        // The reference: the value the padding packs to, in place of each masked sample.
        std::vector<float> want = values;
        for (std::size_t s = 0; s < n; ++s) {
          for (const int c : masked_at(m, first + s)) {
            const int fc = descending ? nchans - 1 - c : c;
            std::uint8_t one[4] = {};
            pack_from_float(&pad[static_cast<std::size_t>(c)], one, 1, nbits, is_signed);
            float back = 0;
            unpack_to_float(one, &back, 1, nbits, is_signed);
            want[s * nchans + static_cast<std::size_t>(fc)] = back;
          }
        }
        // In gulps of random sizes.
        const std::size_t row = packed_bytes(nchans, nbits);
        std::uniform_int_distribution<std::size_t> gulp(1, 90);
        for (std::size_t s = 0; s < n;) {
          const std::size_t k = std::min(n - s, gulp(rng));
          masker.apply(data.data() + s * row, k, first + s);
          s += k;
        }
        std::vector<float> got(values.size());
        unpack_to_float(data.data(), got.data(), got.size(), nbits, is_signed);
        CHECK(got == want);
        std::uint64_t expected_replaced = 0;
        for (std::size_t s = 0; s < n; ++s) expected_replaced += masked_at(m, first + s).size();
        CHECK(masker.values_replaced() == expected_replaced);
        CHECK(masker.values_seen() == n * nchans);
      }
    }
  }
}

TEST_CASE("sample masker: without padding values, a channel's mean over its unmasked samples") {
  const SigprocHeader h = header_for(4, 8, false);
  PrestoMask m;
  m.interval_s = 10 * h.tsamp;
  m.lofreq_mhz = h.fch1;
  m.dfreq_mhz = 0.5;
  m.nchans = 4;
  m.nintervals = 2;
  m.samples_per_interval = 10;
  m.zap_chans = {3};  // masked throughout: the other channels' mean
  m.chans = {{1}, {}};
  SampleMasker masker(m, {}, h, "t.mask");
  // 20 spectra: channels 0, 1, 2 hold 0, 10, 40 + (sample % 3); channel 1 is masked in samples
  // 0-9 only.
  std::vector<std::uint8_t> data(20 * 4);
  for (int s = 0; s < 20; ++s) {
    for (int c = 0; c < 4; ++c)
      data[static_cast<std::size_t>(s * 4 + c)] = static_cast<std::uint8_t>((c == 2 ? 40 : 10 * c) + s % 3);
  }
  masker.apply(data.data(), 20, 0);
  // Channel 1's unmasked samples 10-19 have mean 10 + (1+2+0+1+2+0+1+2+0+1)/10 = 11.0;
  // channels 0 and 2 are never masked (means 0.95 and 40.95 over 20); channel 3 takes their
  // and channel 1's mean (0.95 * 20 + 40.95 * 20 + 11 * 10) / 50 = 18.96, stored as 19.
  for (int s = 0; s < 10; ++s) CHECK(data[static_cast<std::size_t>(s * 4 + 1)] == 11);
  for (int s = 0; s < 20; ++s) CHECK(data[static_cast<std::size_t>(s * 4 + 3)] == 19);
  CHECK(data[10 * 4 + 1] == 11);  // sample 10 % 3 = 1: its own value, unmasked
}

TEST_CASE("sample masker: a mask of other data is an error naming the mask") {
  const SigprocHeader h = header_for(16, 8, true);
  std::mt19937_64 rng(5);
  const double lowest = 1500.0 - 15 * 0.5;
  auto error_for = [&](const PrestoMask& m) { return test::error_of([&] { SampleMasker(m, {}, h, "o.mask"); }); };
  CHECK(error_for(random_mask(rng, 16, 3, 10, h.tsamp, lowest, 0.5)) == "(no error)");
  CHECK(error_for(random_mask(rng, 8, 3, 10, h.tsamp, lowest, 0.5))
            .find("the mask is for 8 channels; the data have 16") != std::string::npos);
  CHECK(error_for(random_mask(rng, 16, 3, 10, h.tsamp, lowest + 0.5, 0.5)).find("is not the data's") !=
        std::string::npos);
  CHECK(error_for(random_mask(rng, 16, 3, 10, h.tsamp, lowest, 1.0)).find("is not the data's") != std::string::npos);
  CHECK(error_for(random_mask(rng, 16, 3, 10, 2 * h.tsamp, lowest, 0.5)).find("another sample time") !=
        std::string::npos);
  CHECK(error_for(random_mask(rng, 16, 3, 10, h.tsamp, lowest, 0.5)).find("o.mask") == std::string::npos);
  CHECK(error_for(random_mask(rng, 8, 3, 10, h.tsamp, lowest, 0.5)).find("[o.mask]") != std::string::npos);
}
