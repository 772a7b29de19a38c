"""Fail unless each JUnit report ran tests, skipped none and failed none."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def main(paths: list[str]) -> int:
    status = 0
    for path in paths:
        suite = ET.parse(path).getroot()
        suite = suite if suite.tag == "testsuite" else suite[0]
        counts = {
            key: int(suite.get(key, "0")) for key in ("tests", "skipped", "failures", "errors")
        }
        print(f"{path}: {counts}")
        if counts["tests"] == 0 or counts["skipped"] or counts["failures"] or counts["errors"]:
            print(f"{path}: some required tests did not run or did not pass")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
