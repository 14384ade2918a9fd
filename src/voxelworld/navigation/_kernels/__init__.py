"""Numba kernels of the navigation wing: plain arrays in, plain arrays out, no Python objects."""
