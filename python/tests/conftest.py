# SPDX-License-Identifier: Apache-2.0
# pytest python/tests from the repository root works without PYTHONPATH: the package and the
# comparison tool (whose tolerances and comparison the tests share) are put on the path here.
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
for directory in (REPO / "python", REPO / "bench"):
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
