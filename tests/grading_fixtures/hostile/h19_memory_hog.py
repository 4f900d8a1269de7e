"""Careless or hostile: allocate and touch 3 GB in rbf_gram.

Without a memory cap this takes 3 GB of the grading machine (times the parallel workers).
With the cap (RLIMIT_AS) numpy raises MemoryError and the test fails with that message.
"""
import numpy as np


def rbf_gram(X, Y=None, sigma=1.0):
    block = np.ones(3 * 2**30 // 8)
    raise NotImplementedError(f"touched {block.nbytes / 2**30:.0f} GB")


center_train_test = kpca_eig = kpca_transform = rbf_gram
