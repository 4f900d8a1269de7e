import ctypes


def add(a, b):
    ctypes.string_at(0)  # reads address 0: SIGSEGV
    return a + b


def mul(a, b):
    return a * b
