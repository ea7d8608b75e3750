"""fio's completion latency buckets (stat.h): FIO_IO_U_PLAT_BITS 6 — 64 log-linear buckets per
power of two, exact below 128 ns — and FIO_IO_U_PLAT_NR 1856 of them (29 groups), the last
holding every latency from its low bound (17.0 s) up. fio's json+ `bins` and its histogram
logs (`write_hist_log`) count I/Os in these buckets, in nanoseconds."""

FIO_PLAT_BITS = 6
FIO_PLAT_BUCKETS = 1856
