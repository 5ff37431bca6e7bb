"""What the gates' planted-fault tests share: a copy of shipped folders to break, and one edit planted in a
copied file."""
import os
import shutil

from fakes.paths import ROOT


def copy_of(dest, *folders):
    """`dest` holding a copy of each of these folders of the repository (paths relative to ROOT)."""
    for folder in folders:
        shutil.copytree(os.path.join(ROOT, folder), os.path.join(str(dest), folder))
    return dest


def edit(path, old, new, count=1):
    """Replace `old` by `new` in the file (the first `count` times; -1: every time); `old` must be there,
    or the fault would not be planted and the test would prove nothing."""
    with open(str(path), encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, (str(path), old)
    with open(str(path), "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new, count))

