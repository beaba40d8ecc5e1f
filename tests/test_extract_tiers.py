"""Ranked tiers of keys (node-group expressions for the priority expander): numbers taken per tier from
either side of its keys, a run of numbers given in order, an order in words with no numbers, and an order
the request states again."""

from __future__ import annotations

from conftest import read_params as _read

_CA = "cluster-autoscaler-priority-expander"


def test_each_line_gives_its_tier_a_number_on_either_side():
    before = _read(_CA, "expander tiers, please:\n  90   .*h100-reserved.*   (prepaid)\n  40   .*l4-spot.*\n"
                        "   5   .*l4-od.*\n")
    after = _read(_CA, "expander tiers, please:\n* `.*h100-reserved.*`: prepaid, use it first, priority 90\n"
                       "* `.*l4-spot.*`: 40\n* `.*l4-od.*`: only when nothing else fits, 5\n")
    want = {".*h100-reserved.*": 90, ".*l4-spot.*": 40, ".*l4-od.*": 5}
    assert before["priorities"] == want, before
    assert after["priorities"] == want, after


def test_expressions_joined_in_one_tier_share_its_number():
    params = _read(_CA, "priority expander: 70 for .*a10-spot.* and .*l40s-spot.*, 30 for .*a10-od.*, no catch-all")
    assert params["priorities"] == {".*a10-spot.*": 70, ".*l40s-spot.*": 70, ".*a10-od.*": 30}, params
    assert params["other_groups"] is False, params


def test_a_run_of_falling_numbers_is_given_to_the_tiers_in_order():
    params = _read(_CA, "For the autoscaler: burn the prepaid groups (.*gpu-ri.*) first, then spot (.*gpu-spot.*), "
                        "and on-demand (.*gpu-od.*) only when there is no other way. Weights 80 / 45 / 15.")
    assert params["priorities"] == {".*gpu-ri.*": 80, ".*gpu-spot.*": 45, ".*gpu-od.*": 15}, params


def test_an_order_in_words_without_numbers_fills_first_and_fallback_groups():
    params = _read(_CA, "CA expander: go for `.*t4-spot.*` first, after that `.*t4-od.*`, and `.*v100.*` "
                        "as a last resort")
    assert params["preferred_groups"] == [".*t4-spot.*"], params
    assert params["fallback_groups"] == [".*t4-od.*", ".*v100.*"], params
    assert "priorities" not in params, params


def test_an_order_stated_again_replaces_the_one_it_follows():
    params = _read(_CA, "Today the expander prefers .*l4-spot.* and then .*l4-od.*. Since we bought reservations, "
                        "prefer .*l4-ri.* from now on and fall back to .*l4-spot.*.")
    assert params["preferred_groups"] == [".*l4-ri.*"], params
    assert params["fallback_groups"] == [".*l4-spot.*"], params


def test_labels_prices_and_dates_are_no_tier_numbers():
    params = _read(_CA, "FIN-208 (2025-03-02, $18000 over budget): tier 1 is `.*g6-spot.*`, tier 2 is `.*g6-od.*`.")
    assert params.get("preferred_groups") == [".*g6-spot.*"], params
    assert params.get("fallback_groups") == [".*g6-od.*"], params
    assert "priorities" not in params, params
