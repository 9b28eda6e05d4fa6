// SPDX-License-Identifier: MIT
// --coeffs files are read up to a cap (QA pass 16): 4·C·T bytes of float32, or text of at most
// 64·C·T bytes and 1 MiB more. A larger file is refused with the sizes expected and found,
// before it is read (a regular file) or after the cap (a device or FIFO that never ends: that
// case is in tests/cli/ppf_coeffs_size.sh, under a memory limit).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "fastpsr/error.hpp"
#include "fastpsr/ppf_window.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {
std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
}  // namespace

TEST_CASE("ppf coeffs size: a file above the cap is refused with the sizes") {
  test::TempDir dir;
  // 64 coefficients: 256 bytes of float32, or text up to 64 x 64 + 1 MiB = 1052672 bytes.
  const auto big = dir / "big.bin";
  test::write_file(big, {});
  std::filesystem::resize_file(big, 1052673);
  const std::string e = test::error_of([&] { (void)read_ppf_coeffs(big.string(), 64); });
  CHECK(e.find("too large for --coeffs") != std::string::npos);
  CHECK(e.find("exactly 256 bytes as float32") != std::string::npos);
  CHECK(e.find("at most 1052672 bytes as text") != std::string::npos);
  CHECK(e.find("the file has 1052673 bytes") != std::string::npos);
  CHECK(e.find(big.string()) != std::string::npos);
}

TEST_CASE("ppf coeffs size: text up to the cap is read") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 64; ++i) text += "1 ";
  text += "# ";
  text.resize(1052672 - 1, 'x');
  text += '\n';
  test::write_file(dir / "c.txt", bytes_of(text));
  CHECK(read_ppf_coeffs((dir / "c.txt").string(), 64).size() == 64);
  text.insert(0, " ");
  test::write_file(dir / "c1.txt", bytes_of(text));
  CHECK(test::error_of([&] {
          (void)read_ppf_coeffs((dir / "c1.txt").string(), 64);
        }).find("the file has 1052673 bytes") != std::string::npos);
}
