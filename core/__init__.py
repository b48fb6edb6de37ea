"""Road to Attention: the shared model package (no streamlit here).

Importing ``core`` caps the BLAS/OpenMP thread pools before torch is imported, so that
many Streamlit sessions (each running in its own thread) do not oversubscribe a small
server. Set the variables yourself before importing to override.
"""

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
