"""The examples in the shared package's docstrings run, so they stay true (the wire codec's
among them)."""

import doctest
import importlib

import pytest

# Every module of the shared package whose docstrings hold examples.
MODULES = ["shared_rules.wire", "shared_rules.led_scene", "shared_rules.tag_identity"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0


def test_every_module_with_examples_is_listed():
    import os
    from mpy import REPO
    found = sorted("shared_rules." + f[:-3] for f in os.listdir(os.path.join(REPO, "shared_rules"))
                   if f.endswith(".py") and ">>>" in open(os.path.join(REPO, "shared_rules", f),
                                                           encoding="utf-8").read())
    assert found == sorted(MODULES)
