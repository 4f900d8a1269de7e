import a_module_that_does_not_exist  # noqa: F401


def add(a, b):
    return a + b


def mul(a, b):
    return a * b
