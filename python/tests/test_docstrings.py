"""The examples in the package's docstrings run and print what they say."""

import doctest

import neardup
import neardup.lsh


def test_docstring_examples():
    for module in (neardup, neardup.lsh):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0, module.__name__
        assert result.failed == 0, module.__name__
