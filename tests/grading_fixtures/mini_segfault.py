import faulthandler


def add(a, b):
    faulthandler._sigsegv()  # raises SIGSEGV in the interpreter: a crash, as a C bug would
    return a + b


def mul(a, b):
    return a * b
