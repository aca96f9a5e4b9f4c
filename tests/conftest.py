"""Shared fixtures: the seeds' textbook tables as (X, y) pairs.

Plain fixtures only (nothing autouse), so that every test module can pick what it needs.
"""

from __future__ import annotations

import os

# The compile notice (rootwise/_compile_notice.py: two lines on stderr while kernels compile)
# would land in the output of whichever test compiles first, here and in every child process;
# the tests of the notice turn it on themselves.
os.environ["ROOTWISE_COMPILE_NOTICE"] = "0"

import pytest  # noqa: E402

from rootwise import datasets  # noqa: E402


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
