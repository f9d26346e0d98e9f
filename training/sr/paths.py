"""Where the training package's files live, whatever the working directory."""
from pathlib import Path

TRAINING = Path(__file__).resolve().parents[1]
"""training/: runs/, exports/, shipped/, parked/, recipes/, data/ and packs/ are under it."""
REPO = TRAINING.parent
RUNS = TRAINING / 'runs'
EXPORTS = TRAINING / 'exports'
SHIPPED = TRAINING / 'shipped'
PARKED = TRAINING / 'parked'
"""Runs that outlive their machine, continued on the next one (sr park)."""
RECIPES = TRAINING / 'recipes'
