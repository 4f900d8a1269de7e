#!/usr/bin/env python3
"""Vendor the book's JavaScript so the built HTML works with no network at all.

The static book needs three pieces of JavaScript that are normally loaded from a CDN:

* ``require.js`` (``requirejs@2.3.8``) -- the AMD loader the widget bundle registers itself with;
* ``embed-amd.js`` (``@jupyter-widgets/html-manager@1.0.15``, the ipywidgets 8 compatible
  release) -- renders the widget state that ``execute_notebooks.py`` stores in every notebook,
  plus the icon fonts it references (they must sit next to ``embed-amd.js``: webpack resolves
  them relative to the bundle's own URL);
* MathJax 3 (``mathjax@3.2.2``: its ``tex-chtml`` component, fonts and TeX extensions) --
  typesets the equations.

Each package is fetched from the npm registry with ``npm pack`` (the ordinary npm client), its
tarball is checked against the SHA-256 pinned below (a mismatch is an error, never a warning),
cached in ``.cache/npm/`` and unpacked into ``book/_static/vendor/`` (git-ignored). Running the
script again is a no-op when the unpacked files are already there and fast when only the
tarballs are cached. ``_config.yml`` points Sphinx (``mathjax_path``) and myst-nb
(``nb_ipywidgets_js``) at the unpacked files.

Usage: ``python book/_tools/vendor_js.py [--force]`` (``make vendor`` runs it before every
``make book``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".cache" / "npm"
VENDOR_DIR = REPO_ROOT / "book" / "_static" / "vendor"


@dataclass(frozen=True)
class Package:
    """One npm tarball and the part of it the book serves."""

    spec: str  # npm package spec, name@exact-version
    tarball: str  # file name `npm pack` writes
    sha256: str  # pinned digest of that tarball
    target: str  # folder under book/_static/vendor/
    members: tuple[str, ...]  # prefixes (inside "package/") of the files to keep
    skip_suffixes: tuple[str, ...] = ()  # e.g. source maps
    keep_suffixes: tuple[str, ...] = ()  # also keep any file under members' folders ending so

    def wanted(self, member: str) -> str | None:
        """Return the path to write for a tarball member, or ``None`` to skip it."""
        path = PurePosixPath(member)
        if not path.parts or path.parts[0] != "package":
            return None
        inner = PurePosixPath(*path.parts[1:]).as_posix()
        if any(inner.endswith(suffix) for suffix in self.skip_suffixes):
            return None
        for prefix in self.members:
            if inner == prefix or inner.startswith(prefix.rstrip("/") + "/"):
                return inner
        folder = path.parent.as_posix().removeprefix("package").lstrip("/")
        if inner.endswith(self.keep_suffixes) and self.keep_suffixes:
            if any(PurePosixPath(prefix).parent.as_posix() == folder for prefix in self.members):
                return inner
        return None


# Pinned versions and digests. To upgrade: change the version, run with --force, read the
# "sha256 mismatch" error, check the new tarball, then paste its digest here.
PACKAGES = (
    Package(
        spec="requirejs@2.3.8",
        tarball="requirejs-2.3.8.tgz",
        sha256="777158e89275e16bd51aec3ef714fbcb5dc45789e7078659933bc814916d7dec",
        target="requirejs",
        members=("require.js", "LICENSE"),
    ),
    Package(
        spec="@jupyter-widgets/html-manager@1.0.15",
        tarball="jupyter-widgets-html-manager-1.0.15.tgz",
        sha256="2b9d65cb7913e1c7d671757a10008b32c9c2448d4429513371e55c07d6107638",
        target="html-manager",
        # embed-amd.js and the fonts/icons it loads; embed.js and libembed-amd.js are
        # alternative bundles the book does not use.
        # The fonts carry content hashes in their names, hence keep_suffixes.
        members=("dist/embed-amd.js", "dist/embed.js.LICENSE.txt"),
        skip_suffixes=(".map",),
        # Only the WOFF2 variant: every browser the book supports picks it first from the
        # bundle's @font-face lists, so the .eot/.svg/.ttf/.woff copies (2.6 MB) are never loaded.
        keep_suffixes=(".woff2",),
    ),
    Package(
        spec="mathjax@3.2.2",
        tarball="mathjax-3.2.2.tgz",
        sha256="1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09",
        target="mathjax",
        # What the pages load: the combined TeX-to-CHTML component, its WOFF fonts, and the TeX
        # extensions its autoloader fetches on demand (\boldsymbol, \cancel, ...). The other
        # combined builds, the SVG output, the accessibility components and the speech rule
        # engine (22 MB) are never requested (the accessibility menu is hidden, see
        # book/_static/rkm_book.js).
        members=(
            "es5/tex-chtml.js",
            "es5/output/chtml/fonts/woff-v2",
            "es5/input/tex/extensions",
            "LICENSE",
        ),
        skip_suffixes=(".map",),
    ),
)

STAMP_NAME = ".vendored.json"


class VendorError(RuntimeError):
    """A vendoring step failed; the message says how to fix it."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(package: Package) -> Path:
    """Return the cached, verified tarball of ``package``, running ``npm pack`` if needed."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tarball = CACHE_DIR / package.tarball
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise VendorError(
                "npm was not found on PATH. The book serves its widget and math JavaScript "
                "locally and fetches it once with `npm pack`: install Node.js/npm (e.g. "
                "`apt-get install npm`), or copy the tarball "
                f"{package.tarball} ({package.spec}) into {CACHE_DIR}."
            )
        print(f"vendor_js: npm pack {package.spec}", flush=True)
        result = subprocess.run(
            [npm, "pack", package.spec, "--pack-destination", str(CACHE_DIR), "--silent"],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0 or not tarball.exists():
            raise VendorError(
                f"`npm pack {package.spec}` failed (exit {result.returncode}); check access "
                f"to the npm registry.\n{result.stderr.strip()}"
            )
    digest = sha256_of(tarball)
    if digest != package.sha256:
        tarball.unlink()
        raise VendorError(
            f"sha256 mismatch for {package.spec}: expected {package.sha256}, got {digest}. "
            "The cached tarball was deleted; if the version in vendor_js.py was changed on "
            "purpose, review the new tarball and pin its digest."
        )
    return tarball


def unpack(package: Package, tarball: Path) -> int:
    """Unpack the wanted members of ``tarball`` under ``VENDOR_DIR / package.target``."""
    target = VENDOR_DIR / package.target
    stamp = target / STAMP_NAME
    wanted = {"spec": package.spec, "sha256": package.sha256, "members": list(package.members),
              "keep_suffixes": list(package.keep_suffixes)}
    if stamp.exists() and json.loads(stamp.read_text()) == wanted:
        return 0
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    count = 0
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            relative = package.wanted(member.name) if member.isfile() else None
            if relative is None:
                continue
            # dist/ is flattened away so URLs read vendor/html-manager/embed-amd.js.
            relative = relative.removeprefix("dist/")
            destination = staging / relative
            if staging.resolve() not in destination.resolve().parents:
                raise VendorError(f"refusing to unpack {member.name!r} outside {staging}")
            destination.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None  # member.isfile() was checked
            with source, destination.open("wb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    if count == 0:
        raise VendorError(f"{package.tarball} contained none of {package.members}")
    (staging / STAMP_NAME).write_text(json.dumps(wanted))
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--force", action="store_true", help="re-unpack even if the vendored files are current"
    )
    args = parser.parse_args(argv)
    if args.force:
        shutil.rmtree(VENDOR_DIR, ignore_errors=True)
    try:
        for package in PACKAGES:
            written = unpack(package, fetch(package))
            state = f"{written} files unpacked" if written else "up to date"
            print(f"vendor_js: {package.spec}: {state} in {VENDOR_DIR / package.target}")
    except VendorError as error:
        print(f"vendor_js: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
