"""The MNIST loader's arguments: each bad one is a ValueError that names it, before any file is read."""

import os

import pytest

from rkmlearn.datasets import load_mnist_5k


@pytest.mark.parametrize("path", [0, 3, True, 2.5])
def test_path_must_be_a_file_path_not_a_file_descriptor(path):
    # an int was opened as a file descriptor: path=0 read stdin, a pipe blocked for ever,
    # and the descriptor was closed afterwards
    with pytest.raises(ValueError, match=r"^path must be None \(the copy shipped with rkmlearn\) or a file path"):
        load_mnist_5k(100, path=path)


def test_a_descriptor_given_as_path_is_left_open():
    read, write = os.pipe()
    os.write(write, b"not a table")
    os.close(write)  # so that the old code's read returned instead of blocking
    try:
        with pytest.raises(ValueError, match="^path must be"):
            load_mnist_5k(100, path=read)
        os.fstat(read)  # still open: OSError if the loader had closed it
    finally:
        os.close(read)


@pytest.mark.parametrize("name", ["random_state", "test_random_state"])
def test_seed_errors_name_their_parameter_and_the_range(name):
    with pytest.raises(ValueError, match=rf"^{name} must be None, an int in \[0, 2\*\*32 - 1\]"):
        load_mnist_5k(100, **{name: -1})
