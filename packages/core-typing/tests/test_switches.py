"""The one parser of boolean environment switches."""

from __future__ import annotations

import pytest

from cudalite.core.switches import parse_bool


@pytest.mark.parametrize("text", ["1", "true", "yes", "on", "ON", " True ", "Yes\n"])
def test_true(text):
    assert parse_bool("X", text, False) is True


@pytest.mark.parametrize("text", ["0", "false", "no", "off", "OFF", " Off ", "FALSE"])
def test_false(text):
    assert parse_bool("X", text, True) is False


@pytest.mark.parametrize("text", [None, "", "  "])
@pytest.mark.parametrize("default", [True, False])
def test_unset_or_empty_is_the_default(text, default):
    assert parse_bool("X", text, default) is default


@pytest.mark.parametrize("text", ["maybe", "2", "enabled", "o"])
def test_anything_else_names_the_variable(text):
    with pytest.raises(ValueError) as e:
        parse_bool("CUDALITE_SOMETHING", text, False)
    assert str(e.value) == (f"CUDALITE_SOMETHING={text!r}: expected a boolean switch, "
                            "one of 1/true/yes/on (on) or 0/false/no/off (off)")
