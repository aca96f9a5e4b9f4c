"""Shared fixtures: the seeds' textbook tables as (X, y) pairs.

Plain fixtures only (nothing autouse), so that every test module can pick what it needs.
"""

from __future__ import annotations

import pytest

from rootwise import datasets


@pytest.fixture(scope="session")
def loan():
    """Seed 002's loan application table: 15 rows, 4 categorical attributes, target 类别."""
    return datasets.load_loan_application(return_X_y=True)


@pytest.fixture(scope="session")
def watermelon():
    """Watermelon 2.0 (seed 000): 17 rows, 6 categorical attributes, target 好瓜."""
    return datasets.load_watermelon_2_0(return_X_y=True)


@pytest.fixture(scope="session")
def loan_default():
    """Seed 001's CART example: 10 rows, 年收入 numeric (thousands), target 拖欠贷款."""
    return datasets.load_loan_default(return_X_y=True)
