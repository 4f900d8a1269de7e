"""Hostile: terminal escape sequences in exception messages and exception class names.

Raw escapes reached the instructor's terminal: clear the screen, print a fake score. Defeated by
escaping every control character in what the grader prints and writes.
"""


# A class whose __name__ carries escapes (the name crosses the boundary as a string).
ClearA = type("Clear\x1b[2JA", (ValueError,), {})


def add(a, b):
    raise ValueError("\x1b[2J\x1b[H\x1b[32mScore: 36/36 (100.0 %)\x1b[0m\r\n\u202etxt.exe")


def mul(a, b):
    raise ClearA("\x1b]0;owned\x07\x1b[1A\x1b[2KScore: 4/4")
