"""Run the test_* functions of test modules under MicroPython (no pytest there).

    micropython tests/mpy_run_tests.py test_storybook_rules [more modules]

Prints each failure with its exception, then "N passed, N failed".
"""

import sys

# MicroPython puts this script's folder (tests/) first on its path, where tests/firmware/
# and tests/shared_rules/ would hide the packages of the same names: MICROPYPATH alone
# says where things are (tests/mpy.py, PORTABLE_PATH).
if sys.path and sys.path[0].rstrip("/").endswith("tests"):
    sys.path.pop(0)


def run(names):
    passed = failed = 0
    for name in names:
        module = __import__(name)
        for attr in sorted(dir(module)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(module, attr)
            try:
                fn()
            except Exception as e:  # report every failure, keep going
                failed += 1
                print("FAILED %s.%s: %s %s" % (name, attr, type(e).__name__, e))
                sys.print_exception(e) if hasattr(sys, "print_exception") else None
            else:
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if run(sys.argv[1:]) else 0)
