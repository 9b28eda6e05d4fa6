// SPDX-License-Identifier: MIT
#pragma once

namespace fastpsr::bench {

/// The real FFT of DM trials' time series (accel_gpu --realfft): 24 lengths near 2^22 that
/// differ as dedisp's trials do, transformed by the GPU's RealFftCuda (Bluestein on kept
/// power-of-two plans), by a cuFFT plan made for each length (the behaviour before), and by FFTW
/// on the host, on 1 and 8 threads at once; prints ms a trial and the difference from FFTW.
void run_realfft_table(int device);

}  // namespace fastpsr::bench
