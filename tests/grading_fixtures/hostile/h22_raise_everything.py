"""Hostile: raise a ValueError that names every parameter, whatever the input.

Every `pytest.raises(ValueError, match=...)` test passed (8 points against 0 honest). Defeated
because a bad-input test earns its points only when the same function passes its tests with
valid input.
"""
MESSAGE = ("X Y sigma K_train K_test Kc n_components Kc_test eigenvalues H: each must be a "
           "finite array of the right shape, positive, an integer, ...")


def rbf_gram(X, Y=None, sigma=1.0):
    raise ValueError(MESSAGE)


center_train_test = kpca_eig = kpca_transform = rbf_gram
