# Generated from ch05_exercises.ipynb (python -m rkmlearn.grading sync): edit the notebook.
"""Chapter 5 exercises: imputing a missing view, in primal and in dual. YOUR ANSWERS GO HERE.

Fill in the two functions below (the statements are in the exercise notebook and README.md). Keep each signature as it is: the
autograder calls them by name. Use numpy (and scipy if you wish), vectorised. Check your work with the check cells of the exercise notebook, or from a shell in your
handout folder::

    python -m rkmlearn.grading . starter.py

Chapter 5 is *Forecasting and imputation*; the equation labels refer to it.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.linalg


# YOUR CODE HERE (helpers you may want)


def impute_primal(U_views, Gamma, phi_other_c, target):
    """Centred feature vector of a missing view from the other views, :eq:`eq-mv-impute-primal`.

    ``h = (Gamma - U_v^T U_v)^{-1} sum_{w != v} U_w^T phi_w(x_w)`` and ``phi_v = U_v h``.

    Parameters
    ----------
    U_views : list of V arrays of shape (d_w, s)
    Gamma : array-like of shape (s, s)
    phi_other_c : list of V arrays of shape (m, d_w) (entry ``target`` ignored, may be None)
        Centred features of the query points, per view.
    target : int

    Returns
    -------
    phi_target : ndarray of shape (m, d_target)
        Imputed centred features of the target view.
    h : ndarray of shape (m, s)
    """
    raise NotImplementedError("impute_primal: write your implementation here")


def impute_dual(K_views_c, H, Gamma, k_other_c, target):
    """Centred kernel vector of a missing view from the other views, :eq:`eq-mv-impute-dual`.

    ``h = (Gamma - H^T K_v H)^{-1} H^T sum_{w != v} k_w(x_w)`` and ``k_v = K_v H h`` for the target
    view ``v`` (the sum runs over the OTHER views; the paper prints ``k_v`` inside it, a typo).

    Parameters
    ----------
    K_views_c : list of V arrays of shape (n, n)
        Centred training Gram matrices ``M_c K_w M_c``, one per view.
    H : array-like of shape (n, s)
        Hidden features of the training points.
    Gamma : array-like of shape (s, s)
    k_other_c : list of V arrays of shape (m, n) (entry ``target`` ignored, may be None)
        Centred kernel rows of the m query points against the training points, per view.
    target : int
        The missing view.

    Returns
    -------
    k_target : ndarray of shape (m, n)
        Imputed centred kernel rows of the target view.
    h : ndarray of shape (m, s)
        Hidden features of the query points.
    """
    raise NotImplementedError("impute_dual: write your implementation here")
