"""Where the training package's files live, whatever the working directory."""
from pathlib import Path

TRAINING = Path(__file__).resolve().parents[1]
"""training/: runs/, exports/, shipped/, recipes/, data/ and packs/ are under it."""
REPO = TRAINING.parent
RUNS = TRAINING / 'runs'
EXPORTS = TRAINING / 'exports'
SHIPPED = TRAINING / 'shipped'
RECIPES = TRAINING / 'recipes'
