"""numba kernels: arrays in, arrays out. No Python objects, fixed dtypes (see ``_config``)."""
