"""The bounds of one read: their api.json `rest` keys (whole numbers of at least 1, the
others at their defaults) and the query string's parameter limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from folio.config import load_settings
from folio.content.query import ReadLimits
from folio.errors import ConfigError, ValidationError
from folio.http.rest.qs import PARAMETER_LIMIT, parse_qs


def _app(tmp_path: Path, rest: dict[str, object]) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "config" / "api.json").write_text(json.dumps({"rest": rest}))
    return tmp_path


def test_configured_keys_set_their_bounds_and_leave_the_others(tmp_path: Path) -> None:
    settings = load_settings(_app(tmp_path, {"maxPopulatedEntries": 50, "maxFilterDepth": 8}))
    limits = ReadLimits.configured(settings.rest_read_limits)
    assert limits == ReadLimits(populated_entries=50, filter_depth=8)
    assert limits.filter_conditions == 400 and limits.sort_fields == 100


@pytest.mark.parametrize("value", [0, -3, "many", 2.5, True])
def test_a_bound_that_is_not_a_whole_number_of_at_least_one_stops_start_up(
    tmp_path: Path, value: object
) -> None:
    with pytest.raises(ConfigError, match=r"rest\.maxFilterConditions must be a whole number"):
        load_settings(_app(tmp_path, {"maxFilterConditions": value}))


def test_a_query_string_holds_at_most_a_thousand_parameters() -> None:
    assert PARAMETER_LIMIT == 1000
    full = "&".join(f"a[]={i}" for i in range(1000))
    assert len(parse_qs(full)["a"]) == 1000
    # empty parts are no parameters
    assert len(parse_qs(full + "&&&")["a"]) == 1000
    with pytest.raises(ValidationError, match="Too many query parameters: at most 1000"):
        parse_qs(full + "&b=1")
