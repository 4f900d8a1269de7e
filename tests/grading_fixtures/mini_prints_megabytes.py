import sys


def add(a, b):
    for _ in range(200):
        sys.stdout.write("x" * 100_000 + "\n")  # 20 MB of output, then the right answer
    return a + b


def mul(a, b):
    return a * b
