"""RecurrentRKM.forecast after set_params, and step counts beyond every integer type."""

import numpy as np
import pytest

from rkmlearn import RecurrentRKM

series = np.sin(0.3 * np.arange(200))


@pytest.fixture(scope="module")
def smoother_fit():
    return RecurrentRKM(4).fit(series)


def test_krr_preimage_set_after_a_smoother_fit_says_to_refit(smoother_fit):
    # was: AttributeError 'RecurrentRKM' object has no attribute 'preimage_weights_'
    model = RecurrentRKM(4).fit(series).set_params(preimage="krr")
    with pytest.raises(ValueError, match=r"^preimage='krr' was set after fit.*Refit"):
        model.forecast(5)
    with pytest.raises(ValueError, match=r"^preimage='krr' was set after fit"):
        model.preimage_of(model.H_[:2])
    np.testing.assert_array_equal(model.fit(series).forecast(5),  # refitted: the KRR pre-image
                                  RecurrentRKM(4, preimage="krr").fit(series).forecast(5))


def test_krr_options_changed_after_fit_say_to_refit():
    model = RecurrentRKM(4, preimage="krr").fit(series).set_params(preimage_alpha=0.5)
    with pytest.raises(ValueError, match=r"^preimage_alpha / preimage_sigma are .* refit"):
        model.forecast(5)


def test_switching_to_the_smoother_needs_no_refit(smoother_fit):
    model = RecurrentRKM(4, preimage="krr").fit(series).set_params(preimage="smoother")
    np.testing.assert_array_equal(model.forecast(5), smoother_fit.forecast(5))


@pytest.mark.parametrize("steps", [2**64 + 3, 2**63, 10**30])
def test_steps_beyond_any_integer_type_get_the_steps_error(smoother_fit, steps):
    # was: TypeError from np.isnan on a Python int too large for any NumPy type
    with pytest.raises(ValueError, match=rf"^steps={steps} is more than the 10_000_000 steps"):
        smoother_fit.forecast(steps)
    with pytest.raises(ValueError, match=rf"^steps={steps} is more than"):
        smoother_fit.forecast_latents(steps)
