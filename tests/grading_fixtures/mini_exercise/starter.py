def add(a, b):
    raise NotImplementedError("add")


def mul(a, b):
    raise NotImplementedError("mul")
