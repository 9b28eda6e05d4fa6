// SPDX-License-Identifier: MIT
// The problem-shape keys of the tuning database: what goes in, what is bucketed, what is left out.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "fastpsr/dedisp_setups.hpp"
#include "fastpsr/tuning_keys.hpp"

using namespace fastpsr;

TEST_CASE("tuning keys: log2 buckets") {
  CHECK(log2_bucket(0) == 0);
  CHECK(log2_bucket(1) == 0);
  CHECK(log2_bucket(2) == 1);
  CHECK(log2_bucket(3) == 2);
  CHECK(log2_bucket(4096) == 12);
  CHECK(log2_bucket(4097) == 13);
}

TEST_CASE("tuning keys: dedisp from the plan, the DM values and sample time left out") {
  const DedispSetup s = make_dedisp_setup("apertif", 0, 1.0);
  REQUIRE(s.plans.size() == 1);
  const DedispPlan& p = s.plans[0];
  CHECK(dedisp_shape_key(p) == fmt::format("nchans=1024,nbits=8,ndms=2048,span=2^{},ds=1", log2_bucket(p.max_delay)));
  // The same shape shifted in DM (a span in the same bucket) shares the key; other counts do not.
  DedispProblem q = p.problem;
  for (auto& dm : q.dms) dm += 0.01;
  CHECK(dedisp_shape_key(make_dedisp_plan(q)) == dedisp_shape_key(p));
  q.dms.pop_back();
  CHECK(dedisp_shape_key(make_dedisp_plan(q)) != dedisp_shape_key(p));
  DedispProblem f = p.problem;
  f.input.nbits = 32;
  CHECK(dedisp_shape_key(make_dedisp_plan(f)).find("nbits=32") != std::string::npos);
  DedispProblem d = p.problem;
  d.downsample = 2;
  CHECK(dedisp_shape_key(make_dedisp_plan(d)).ends_with(",ds=2"));
}

TEST_CASE("tuning keys: accel and ppf") {
  AccelSearchProblem a;
  a.numbins = (1 << 22) - 5;
  a.zmax = 200;
  a.numharm = 16;
  CHECK(accel_shape_key(a, {}) == "bins=2^22,numz=201,numharm=16,interp=fourier,plane=auto");
  CHECK(accel_shape_key(a, {{"plane", "f32"}}) == "bins=2^22,numz=201,numharm=16,interp=fourier,plane=f32");
  a.interp = AccelInterp::interbin;
  CHECK(accel_shape_key(a, {{"plane", "f16"}, {"path", "cufft"}}) ==
        "bins=2^22,numz=201,numharm=16,interp=interbin,plane=f16");

  ChanneliserProblem c;
  c.nchans = 4096;
  c.ntaps = 16;
  c.output = PpfOutput::complex;
  CHECK(ppf_shape_key(make_channeliser_plan(c)) == "nchans=4096,ntaps=16,ncoarse=1,npol=1,input=ci8,output=complex");
  c.output = PpfOutput::power;
  c.nint = 64;
  c.npol = 2;
  c.detection = Detection::IQUV;
  c.input = VoltageType::ci16;
  CHECK(ppf_shape_key(make_channeliser_plan(c)) ==
        "nchans=4096,ntaps=16,ncoarse=1,npol=2,input=ci16,output=power-IQUV-nint64");
}
