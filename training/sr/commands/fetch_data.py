"""python -m sr fetch-data: runs data/fetch_licensed.py, which stays beside its manifest and runs with any python3
that has Pillow (bench/realphoto uses it without the training venv)."""
import runpy
import sys

from sr.paths import TRAINING


def main():
    script = TRAINING / 'data' / 'fetch_licensed.py'
    sys.argv[0] = str(script)
    runpy.run_path(str(script), run_name='__main__')
