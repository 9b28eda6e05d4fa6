// SPDX-License-Identifier: MIT
#pragma once
/// The problem-shape part of a tuning database key (fastpsr/tuning.hpp), one function per
/// algorithm: the properties of a problem that change which GPU configuration is fastest, and
/// no others (so that runs on files of one observing setup share an entry).
#include <string>

#include "fastpsr/accel.hpp"
#include "fastpsr/dedisp.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/tuning.hpp"

namespace fastpsr {

/// e.g. "nchans=1024,nbits=8,ndms=2048,span=2^12,ds=1".
std::string dedisp_shape_key(const DedispPlan& plan);
/// e.g. "bins=2^22,numz=201,numharm=16,interp=fourier,plane=f32"; `config`: the user's
/// --gpu-config, whose plane key is part of the problem (it changes the powers, so tune never
/// chooses it).
std::string accel_shape_key(const AccelSearchProblem& problem, const GpuConfig& config);
/// e.g. "nchans=4096,ntaps=16,ncoarse=1,npol=1,input=ci8,output=complex".
std::string ppf_shape_key(const ChanneliserPlan& plan);
/// ceil(log2(n)) for n >= 1 (0 for n <= 1): the bucket of sizes whose best shape is the same.
int log2_bucket(std::int64_t n) noexcept;

}  // namespace fastpsr
