"""Hostile (mini exercise): return numbers that equal everything.

``Yes`` is an int whose ``==`` is always True, so ``assert submission.add(2, 3) == 5`` passes
whatever it holds. Defeated when results cross the boundary as plain data: the judge gets the
int 0.
"""


class Yes(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def add(a, b):
    return Yes(0)


def mul(a, b):
    return Yes(0)
