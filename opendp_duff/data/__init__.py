"""Small datasets shipped with the library, for demos and tests."""
import pathlib

import numpy as np

_HERE = pathlib.Path(__file__).resolve().parent


def load_wages():
    """1000 synthetic hourly wages (USD); see the header of ``wages.csv`` for how they were made."""
    return np.loadtxt(_HERE / "wages.csv", comments="#", skiprows=3, dtype=np.float64)
