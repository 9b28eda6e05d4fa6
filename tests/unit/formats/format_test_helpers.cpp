// SPDX-License-Identifier: MIT
#include "format_test_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "support/test_support.hpp"

namespace fastpsr::test {
namespace {

class PipeSource final : public ByteSource {
 public:
  PipeSource(std::vector<std::uint8_t> bytes, std::size_t chunk, std::string name)
      : ByteSource(std::move(name)), bytes_(std::move(bytes)), chunk_(chunk) {}

 protected:
  std::size_t read_some(void* dst, std::size_t n) override {
    const std::size_t k = std::min({n, chunk_, bytes_.size() - pos_});
    if (k > 0) std::memcpy(dst, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t chunk_;
  std::size_t pos_ = 0;
};

// FITS header writer: 80-character cards padded to whole 2880-byte blocks.
class Cards {
 public:
  void raw(const std::string& card) {
    std::string c = card.substr(0, 80);
    c.resize(80, ' ');
    text_ += c;
  }
  void str(const std::string& key, const std::string& v) {
    std::string q = "'" + v;
    while (q.size() < 9) q += ' ';
    raw(fmt::format("{:<8}= {:<20}", key, q + "'"));
  }
  void num(const std::string& key, double v) { raw(fmt::format("{:<8}= {:>20}", key, fmt::format("{}", v))); }
  void integer(const std::string& key, std::int64_t v) { raw(fmt::format("{:<8}= {:>20}", key, v)); }
  void logical(const std::string& key, bool v) { raw(fmt::format("{:<8}= {:>20}", key, v ? "T" : "F")); }
  std::vector<std::uint8_t> finish() {
    raw("END");
    while (text_.size() % 2880 != 0) text_ += ' ';
    return {text_.begin(), text_.end()};
  }

 private:
  std::string text_;
};

template <typename T>
void put_be(std::vector<std::uint8_t>& out, T v) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>>;
  const U u = std::bit_cast<U>(v);
  for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
}

void append(std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) { a.insert(a.end(), b.begin(), b.end()); }

}  // namespace

std::unique_ptr<ByteSource> pipe_source(std::vector<std::uint8_t> bytes, std::size_t chunk, std::string name) {
  return std::make_unique<PipeSource>(std::move(bytes), chunk, std::move(name));
}

std::vector<std::uint8_t> FakePsrfits::encode() const {
  const std::size_t values = static_cast<std::size_t>(nsblk) * npol * nchan;
  if (raw.size() != values * static_cast<std::size_t>(nrows))
    throw std::logic_error("FakePsrfits: raw has the wrong size");
  std::vector<std::uint8_t> file;
  Cards p;
  p.logical("SIMPLE", true);
  p.integer("BITPIX", 8);
  p.integer("NAXIS", 0);
  p.logical("EXTEND", true);
  p.raw("COMMENT   a synthetic search-mode file for the fastpsr tests");
  p.str("FITSTYPE", "PSRFITS");
  p.str("TELESCOP", "Parkes");
  p.str("BACKEND", "TESTBE");
  p.str("OBS_MODE", obs_mode);
  p.str("SRC_NAME", "J0000+0000");
  p.str("RA", "12:34:56.700");
  p.str("DEC", "-45:06:07.800");
  p.str("NCHNOFFS", "*");
  p.integer("STT_IMJD", stt_imjd);
  p.integer("STT_SMJD", static_cast<std::int64_t>(stt_smjd_s));
  p.num("STT_OFFS", stt_offs_s);
  append(file, p.finish());

  Cards hist;
  hist.str("XTENSION", "BINTABLE");
  hist.integer("BITPIX", 8);
  hist.integer("NAXIS", 2);
  hist.integer("NAXIS1", 8);
  hist.integer("NAXIS2", 3);
  hist.integer("PCOUNT", 0);
  hist.integer("GCOUNT", 1);
  hist.integer("TFIELDS", 1);
  hist.str("TTYPE1", "DATE_PRO");
  hist.str("TFORM1", "8A");
  hist.str("EXTNAME", "HISTORY");
  append(file, hist.finish());
  std::vector<std::uint8_t> hist_data(24, 'x');
  hist_data.resize(2880, 0);
  append(file, hist_data);

  struct Col {
    std::string name, form;
    std::size_t bytes;
  };
  const std::size_t data_bytes = values * static_cast<std::size_t>(nbits) / 8;
  const char data_type = nbits <= 8 ? 'B' : (nbits == 16 ? 'I' : 'E');
  const std::size_t data_count = nbits <= 8 ? data_bytes : values;
  std::vector<Col> cols = {{"TSUBINT", "1D", 8},
                           {"OFFS_SUB", "1D", 8},
                           {"DAT_FREQ", fmt::format("{}{}", nchan, freqs_as_float ? 'E' : 'D'),
                            static_cast<std::size_t>(nchan) * (freqs_as_float ? 4 : 8)}};
  if (!wts.empty()) cols.push_back({"DAT_WTS", fmt::format("{}E", wts.size()), wts.size() * 4});
  if (!offs.empty()) cols.push_back({"DAT_OFFS", fmt::format("{}E", offs.size()), offs.size() * 4});
  if (!scl.empty()) cols.push_back({"DAT_SCL", fmt::format("{}E", scl.size()), scl.size() * 4});
  cols.push_back({"DATA", fmt::format("{}{}", data_count, data_type), data_bytes});
  std::size_t row_bytes = 0;
  for (const auto& c : cols) row_bytes += c.bytes;

  Cards s;
  s.str("XTENSION", "BINTABLE");
  s.integer("BITPIX", 8);
  s.integer("NAXIS", 2);
  s.integer("NAXIS1", static_cast<std::int64_t>(row_bytes));
  s.integer("NAXIS2", nrows);
  s.integer("PCOUNT", 0);
  s.integer("GCOUNT", 1);
  s.integer("TFIELDS", static_cast<std::int64_t>(cols.size()));
  for (std::size_t i = 0; i < cols.size(); ++i) {
    s.str(fmt::format("TTYPE{}", i + 1), cols[i].name);
    s.str(fmt::format("TFORM{}", i + 1), cols[i].form);
    if (cols[i].name == "DATA" && nbits == 16 && tzero16 != 0.0) s.num(fmt::format("TZERO{}", i + 1), tzero16);
  }
  s.str("POL_TYPE", pol_type);
  s.integer("NPOL", npol);
  s.num("TBIN", tbin_s);
  s.integer("NBITS", nbits);
  s.num("ZERO_OFF", zero_off);
  s.integer("SIGNINT", signint ? 1 : 0);
  s.integer("NSUBOFFS", 0);
  s.integer("NCHAN", nchan);
  s.num("CHAN_BW", nchan > 1 ? freqs_mhz[1] - freqs_mhz[0] : 1.0);
  s.integer("NSBLK", nsblk);
  if (nstot > 0) s.integer("NSTOT", nstot);
  s.str("EXTNAME", "SUBINT");
  append(file, s.finish());

  const double row_s = nsblk * tbin_s;
  std::vector<std::uint8_t> table;
  for (int r = 0; r < nrows; ++r) {
    put_be(table, row_s);
    const double index = row_index.empty() ? r : row_index[static_cast<std::size_t>(r)];
    put_be(table, offs_sub_set ? (index + 0.5) * row_s : 0.0);
    for (double f : freqs_mhz) {
      if (freqs_as_float) {
        put_be(table, static_cast<float>(f));
      } else {
        put_be(table, f);
      }
    }
    for (float w : wts) put_be(table, w);
    for (float o : offs) put_be(table, o);
    for (float c : scl) put_be(table, c);
    const double* v = raw.data() + static_cast<std::size_t>(r) * values;
    if (nbits < 8) {
      const int per = 8 / nbits;
      for (std::size_t b = 0; b < data_bytes; ++b) {
        unsigned byte = 0;
        for (int k = 0; k < per; ++k) {
          byte = (byte << nbits) |
                 (static_cast<unsigned>(v[b * per + static_cast<std::size_t>(k)]) & ((1U << nbits) - 1U));
        }
        table.push_back(static_cast<std::uint8_t>(byte));
      }
    } else if (nbits == 8) {
      for (std::size_t i = 0; i < values; ++i)
        table.push_back(static_cast<std::uint8_t>(static_cast<int>(v[i]) & 0xff));
    } else if (nbits == 16) {
      for (std::size_t i = 0; i < values; ++i) put_be(table, static_cast<std::int16_t>(std::lround(v[i] - tzero16)));
    } else {
      for (std::size_t i = 0; i < values; ++i) put_be(table, static_cast<float>(v[i]));
    }
  }
  table.resize((table.size() + 2879) / 2880 * 2880, 0);
  append(file, table);
  return file;
}

std::vector<float> read_all_float(SpectraSource& s, std::size_t piece) {
  const auto nchans = static_cast<std::size_t>(s.header().nchans);
  std::vector<float> out;
  std::vector<float> buf(piece * nchans);
  for (;;) {
    const std::size_t got = s.read_float(buf.data(), piece);
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(got * nchans));
    if (got < piece) return out;
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void check_error(const std::function<void()>& f, const std::string& fragment, const std::string& path) {
  const std::string e = error_of(f);
  CHECK_MESSAGE((e.find(fragment) != std::string::npos && e.ends_with("[" + path + "]")), e);
}

}  // namespace fastpsr::test
