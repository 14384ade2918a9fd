"""Numba kernels of the motion wing: plain arrays in, plain arrays out."""
