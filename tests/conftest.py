"""A guard for every test: the default dtype is process-wide (minigrad.set_default_dtype), so
one test that leaves it changed would silently change the dtypes of every test after it."""
import numpy as np
import pytest

import minigrad


@pytest.fixture(autouse=True)
def _default_dtype_left_as_found():
    yield
    left = minigrad.get_default_dtype()
    if left is not np.float32:
        minigrad.set_default_dtype(np.float32)  # so that only this test fails
        pytest.fail(f"the test left the default dtype {np.dtype(left)}; restore it in a "
                    f"finally (tests.helpers.default_dtype)")
