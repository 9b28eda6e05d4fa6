// SPDX-License-Identifier: MIT
// DM trial lists and the automatic plan (DDplan.py's algorithm).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("dm ranges: lo:hi:step includes hi, values are lo + i*step") {
  const auto dms = parse_dm_range("0:1000:0.5");
  REQUIRE(dms.size() == 2001);
  CHECK(dms.front() == 0.0);
  CHECK(dms.back() == 1000.0);
  CHECK(dms[3] == 1.5);
  const auto odd = parse_dm_range("58:67.3:0.3");  // 67.3 is 58 + 31 * 0.3 up to rounding
  CHECK(odd.size() == 32);
  CHECK(odd[31] == 58.0 + 31 * 0.3);
  CHECK(parse_dm_range("56.7") == std::vector<double>{56.7});
  CHECK(parse_dm_range("3:3:1") == std::vector<double>{3.0});
}

TEST_CASE("dm ranges: empty, negative-step and malformed ranges are refused") {
  for (const char* bad : {"10:0:1", "0:10:-1", "0:10:0", "a:b:c", "-5", "0:10", "0:10:1:2", "", "-1:5:1", "1:inf:1"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_dm_range(bad), Error);
  }
}

TEST_CASE("dm lists: numbers from a file, comments and commas allowed, bad values named") {
  test::TempDir tmp;
  const auto path = (tmp / "dms.txt").string();
  {
    std::ofstream f(path);
    f << "# trial DMs\n0 1.5, 3\n\n474.0 # the FRB\n";
  }
  CHECK(read_dm_list(path) == std::vector<double>{0.0, 1.5, 3.0, 474.0});
  {
    std::ofstream f(path);
    f << "1 2 x\n";
  }
  try {
    read_dm_list(path);
    FAIL("no error for a bad DM");
  } catch (const Error& e) {
    CHECK(e.path() == path);
  }
  CHECK_THROWS_AS(read_dm_list((tmp / "missing.txt").string()), Error);
}

namespace {

// The value after ':' on the line of iso_psr.fil.header.txt that starts with `label`.
double header_value(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(label, 0) == 0) return std::stod(line.substr(line.find(':') + 1));
  }
  FAIL("no '" << label << "' line");
  return 0;
}

std::string file_text(const std::filesystem::path& p) {
  const auto bytes = test::read_file(p);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE("dm plan: the iso observation gives DDplan.py's ranges, steps, downsampling and table" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs" / "iso";
  const std::string hdr = file_text(dir / "iso_psr.fil.header.txt");
  SigprocHeader h;
  h.fch1 = header_value(hdr, "Frequency of channel 1");
  h.foff = header_value(hdr, "Channel bandwidth");
  h.nchans = static_cast<int>(header_value(hdr, "Number of channels"));
  h.tsamp = header_value(hdr, "Sample time (us)") * 1e-6;
  const DmPlanObservation obs = DmPlanObservation::from_header(h);

  // As run for the peer file: DDplan.py -l 0 -d 200 -s 32 (its fudge factor is 1.2).
  DdplanOptions o;
  o.lo_dm = 0;
  o.hi_dm = 200;
  o.nsub = 32;
  o.tolerance = 1.2;
  const DmPlan plan = make_ddplan(obs, o);
  REQUIRE(plan.steps.size() == 2);
  CHECK(plan.steps[0].lo_dm == 0.0);
  CHECK(plan.steps[0].dm_step == 0.3);
  CHECK(plan.steps[0].downsample == 1);
  CHECK(plan.steps[0].ndms == 552);
  CHECK(plan.steps[0].dms_per_call == 24);
  CHECK(plan.steps[0].calls == 23);
  CHECK(plan.steps[1].lo_dm == doctest::Approx(165.6));
  CHECK(plan.steps[1].dm_step == 0.5);
  CHECK(plan.steps[1].downsample == 2);
  CHECK(plan.steps[1].ndms == 72);
  CHECK(plan.steps[1].hi_dm == doctest::Approx(201.6));

  // The printed text equals DDplan.py's stdout, line for line.
  const std::string ours = format_ddplan(plan, obs, o, "iso_psr.fil");
  CHECK(ours == file_text(dir / "DDplan_iso.txt"));

  // The default tolerance (1.25) gives the same plan for this observation.
  o.tolerance = 1.25;
  const DmPlan p125 = make_ddplan(obs, o);
  REQUIRE(p125.steps.size() == 2);
  CHECK(p125.steps[0].ndms == 552);
  CHECK(p125.steps[1].downsample == 2);
}

TEST_CASE("dm plan: ranges are contiguous, coarsen with DM and cover the requested span") {
  DmPlanObservation obs;
  obs.tsamp_s = 76.56e-6;
  obs.nchans = 4096;
  obs.bw_mhz = 856.0;
  obs.fctr_mhz = 1284.0;
  DdplanOptions o;
  o.hi_dm = 2000;
  const DmPlan plan = make_ddplan(obs, o);
  REQUIRE(plan.steps.size() >= 3);
  CHECK(plan.steps.front().lo_dm == 0.0);
  CHECK(plan.steps.back().hi_dm >= 2000.0);
  for (std::size_t i = 1; i < plan.steps.size(); ++i) {
    CHECK(plan.steps[i].lo_dm == plan.steps[i - 1].hi_dm);
    CHECK(plan.steps[i].dm_step >= plan.steps[i - 1].dm_step);
    CHECK(plan.steps[i].downsample > plan.steps[i - 1].downsample);
  }
  // The step keeps the smearing across the band near the sample time of the range (DDplan's rule).
  for (const auto& s : plan.steps) {
    const double bw_smear_ms = dm_smear_ms(0.5 * s.dm_step, obs.bw_mhz, obs.fctr_mhz);
    CHECK(bw_smear_ms < o.tolerance * 1000.0 * obs.tsamp_s * s.downsample);
  }
  CHECK_THROWS_AS(make_ddplan(obs, DdplanOptions{.lo_dm = 100, .hi_dm = 50}), Error);
}

TEST_CASE("dm plan: low-frequency bands out of downsampling factors end in one range to the last DM") {
  // QA pass 20, finding 2: once the last downsampling factor was reached, a range's crossover DM
  // stopped growing and fell below its start, so the next range was empty and the plan never
  // converged ("does not converge"): LOFAR HBA above DM ~820, an LBA band and a 24-channel
  // MWA-like band from DM 100.
  struct Band {
    double tsamp_s, bw_mhz, fctr_mhz, hi_dm;
    int nchans;
  };
  for (const Band& b : {Band{655.36e-6, 78.125, 151.0, 1000.0, 400}, Band{1310.72e-6, 50.0, 55.0, 100.0, 256},
                        Band{100e-6, 30.72, 200.0, 100.0, 24}}) {
    CAPTURE(b.fctr_mhz);
    DmPlanObservation obs;
    obs.tsamp_s = b.tsamp_s;
    obs.nchans = b.nchans;
    obs.bw_mhz = b.bw_mhz;
    obs.fctr_mhz = b.fctr_mhz;
    DdplanOptions o;
    o.hi_dm = b.hi_dm;
    const DmPlan plan = make_ddplan(obs, o);
    REQUIRE(plan.steps.size() >= 2);
    CHECK(plan.steps.front().lo_dm == 0.0);
    CHECK(plan.steps.back().hi_dm >= b.hi_dm);
    CHECK(plan.steps.back().hi_dm < b.hi_dm + plan.steps.back().dm_step + 1e-9);
    for (std::size_t i = 1; i < plan.steps.size(); ++i) {
      CHECK(plan.steps[i].lo_dm == plan.steps[i - 1].hi_dm);
      CHECK(plan.steps[i].ndms > 0);
      CHECK(plan.steps[i].dm_step >= plan.steps[i - 1].dm_step);
      CHECK(plan.steps[i].downsample >= plan.steps[i - 1].downsample);
    }
  }
}

TEST_CASE("dm plan: a delay table large enough for several threads equals plans of one DM each") {
  // 1500 DMs x 4096 channels (6 M delays: filled by up to 6 threads) against single-DM plans
  // (filled serially): both models, a killed channel (dm_max_delay skips it). (Two-stage
  // delays are left out: their within-subband part is rounded at the list's mean DM.)
  for (DelayModel model : {DelayModel::presto, DelayModel::sigproc}) {
    {
      CAPTURE(static_cast<int>(model));
      DedispProblem p;
      p.input = test::make_band(4096, 8, 1712.0, -856.0 / 4096, 76.56e-6);
      p.model = model;
      p.keep.assign(4096, 1);
      p.keep[4095] = 0;
      for (int i = 0; i < 1500; ++i) p.dms.push_back(0.37 * i);
      const DedispPlan plan = make_dedisp_plan(p);
      REQUIRE(plan.delays.size() == 1500U * 4096U);
      std::int32_t max_delay = 0;
      for (std::size_t i = 0; i < 1500; i += 97) {
        DedispProblem one = p;
        one.dms = {p.dms[i]};
        const DedispPlan single = make_dedisp_plan(one);
        CHECK(
            std::equal(single.delays.begin(), single.delays.end(), plan.delays.begin() + static_cast<long>(i * 4096)));
        CHECK(single.dm_max_delay[0] == plan.dm_max_delay[i]);
        max_delay = std::max(max_delay, plan.dm_max_delay[i]);
      }
      CHECK(plan.max_delay == *std::max_element(plan.dm_max_delay.begin(), plan.dm_max_delay.end()));
      CHECK(plan.max_delay >= max_delay);
      CHECK(plan.dm_max_delay[1000] < plan.delays[1001 * 4096 - 1]);  // the killed lowest channel
    }
  }
  // The error of the first failing DM, as a serial fill gives it: sigproc delays on a band
  // with channel 0 the lowest are negative from the first DM > 0 on.
  DedispProblem up;
  up.input = test::make_band(4096, 8, 856.0, 856.0 / 4096, 76.56e-6);
  up.model = DelayModel::sigproc;
  for (int i = 0; i < 1500; ++i) up.dms.push_back(0.37 * i);
  DedispProblem first_bad = up;
  first_bad.dms = {0.37};
  std::string serial;
  try {
    (void)make_dedisp_plan(first_bad);
  } catch (const Error& e) {
    serial = e.what();
  }
  REQUIRE(!serial.empty());
  CHECK_THROWS_WITH_AS((void)make_dedisp_plan(up), serial.c_str(), Error);
}

TEST_CASE("dm plan: a sample time near zero is refused as an absurd delay, not as a channel order (both models)") {
  // QA pass 16, P3: delay / tsamp beyond the int64 range overflowed the conversion (undefined;
  // it gave INT64_MIN, reported as "channel 1 is above the reference frequency").
  for (DelayModel model : {DelayModel::presto, DelayModel::sigproc}) {
    for (double tsamp : {1e-12, 1e-30, 1e-300, 5e-324}) {
      CAPTURE(static_cast<int>(model));
      CAPTURE(tsamp);
      DedispProblem p;
      p.input = test::make_band(64, 8, 433.0, -0.5, tsamp);
      p.model = model;
      p.dms = {0.0, 5.0};
      CHECK_THROWS_WITH_AS((void)make_dedisp_plan(p), doctest::Contains("DM 5 needs an absurd delay"), Error);
    }
  }
  // A band in the wrong order for the sigproc model is still named as such at any sample time.
  DedispProblem up;
  up.input = test::make_band(64, 8, 400.0, 0.5, 1e-30);
  up.model = DelayModel::sigproc;
  up.dms = {5.0};
  CHECK_THROWS_WITH_AS((void)make_dedisp_plan(up), doctest::Contains("above the reference frequency"), Error);
}

TEST_CASE("dm plan: the sigproc model refuses a band in rising order at any DM above 0, naming channel 1") {
  // QA pass 20, finding 3: a delay between -1 and 0 samples truncated to 0 and passed, so a small
  // DM was accepted and a larger one refused naming whichever channel first fell below -1.
  DedispProblem up;
  up.input = test::make_band(64, 8, 1374.0, 2.0, 64e-6);
  up.model = DelayModel::sigproc;
  for (const double dm : {0.05, 0.5, 2.0, 30.0}) {
    CAPTURE(dm);
    up.dms = {dm};
    CHECK_THROWS_WITH_AS((void)make_dedisp_plan(up), doctest::Contains("channel 1 (1376 MHz) is above the reference"),
                         Error);
  }
  up.dms = {0.0};
  CHECK_NOTHROW((void)make_dedisp_plan(up));  // no delays at DM 0
  up.model = DelayModel::presto;
  up.dms = {0.05, 30.0};
  CHECK_NOTHROW((void)make_dedisp_plan(up));
}
