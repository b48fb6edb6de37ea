"""The baseline page of the benchmark: bare Streamlit, one slider, one 40×40 plotly heatmap.

``python -m bench`` serves this file with ``streamlit run`` in the same run as the app, so
every page's figures can be read as a ratio against what Streamlit itself costs here.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Bare page")
shift = st.slider("shift", 0, 100, 50)
x = np.linspace(0.0, 4.0 * np.pi, 40)
z = np.sin(x[None, :] + shift / 10.0) * np.cos(x[:, None])  # (40, 40)
st.plotly_chart(go.Figure(go.Heatmap(z=z)), width="stretch")
