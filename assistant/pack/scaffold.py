"""`python3 -m assistant new-domain NAME`: a new domain pack to start from, valid from the first minute.

A business starts from a small pack that already loads and answers (three items, three help
articles, the words for them) instead of from an empty folder, and replaces the TODOs with its
own data. The template lives in assistant/pack/template/; the new pack is written to a hidden
folder beside the target, loaded with the engine's own validator, and only then renamed into
place, so a broken template is never shipped and an existing folder is never touched.
`--extension NAME` starts the business's own machinery beside it too: an extension package
(extensions/NAME/, from assistant/pack/template_extension/) that the new pack loads.
See docs/domain-packs.md and docs/extensions.md.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from assistant.pack.loading import load_catalog
from assistant.pack.model import DataError

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = Path(__file__).resolve().parent / "template"
EXTENSION_TEMPLATE = Path(__file__).resolve().parent / "template_extension"
DATA_DIR = ROOT / "data"
EXTENSIONS_DIR = ROOT / "extensions"
EXTENSION_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")  # a Python package's name, as pack.yaml names it
# The same rule as Settings.domain, so every scaffolded name can be chosen with DOMAIN=<name>.
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
USAGE_ERROR = 2


class ScaffoldError(ValueError):
    """A name or folder the scaffold refuses; nothing has been written."""


def business_name(name: str) -> str:
    """A first guess at how the business is called ("acme-shop" -> "Acme Shop"), for the TODO to correct."""
    return " ".join(word.capitalize() for word in re.split(r"[-_]+", name) if word) or name


def new_domain(name: str, data_dir: Path = DATA_DIR, extension: str | None = None, extensions_dir: Path = EXTENSIONS_DIR) -> Path:
    """Write the template pack to data_dir/name and return that folder; with `extension`, the
    extension template to extensions_dir/extension too, named in the pack's pack.yaml.

    Raises ScaffoldError for a bad name or an existing folder (nothing written), and DataError
    if the template itself does not load (nothing left behind either).
    """
    if not NAME.fullmatch(name):
        raise ScaffoldError(
            f"'{name}' is not a domain name: use 1 to 40 lowercase letters, digits, '_' or '-',"
            " starting with a letter or digit (the rule DOMAIN=<name> follows)"
        )
    target = data_dir / name
    if target.exists() or target.is_symlink():
        raise ScaffoldError(f"{target} already exists; choose another name (nothing was overwritten)")
    if extension is not None and not EXTENSION_NAME.fullmatch(extension):
        raise ScaffoldError(f"'{extension}' is not an extension name: a lowercase letter, then letters, digits or '_'")
    package = extensions_dir / extension if extension else None
    if package is not None and package.exists():
        raise ScaffoldError(f"{package} already exists; choose another extension name (nothing was overwritten)")
    data_dir.mkdir(parents=True, exist_ok=True)
    draft = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=data_dir))  # same file system: the rename is atomic
    try:
        draft.chmod(0o755)  # mkdtemp's folder is private; a pack folder is not
        for source in sorted(TEMPLATE.iterdir()):
            if source.is_file():
                text = source.read_text(encoding="utf-8")
                text = text.replace("__NAME__", name).replace("__BUSINESS__", business_name(name))
                (draft / source.name).write_text(text, encoding="utf-8")
        if package is not None and extension is not None:  # the pack's loader imports it: it is written in place
            _write_extension(package, extension, business_name(name))
            with (draft / "pack.yaml").open("a", encoding="utf-8") as pack:
                pack.write(f"\n# This business's own machinery (docs/extensions.md).\nextensions:\n  {extension}: {{}}\n")
        load_catalog(draft)  # the engine's own start-up checks
        if target.exists():  # made by someone else meanwhile: still never overwrite
            raise ScaffoldError(f"{target} already exists; choose another name (nothing was overwritten)")
        draft.rename(target)
    except BaseException:
        if package is not None and package.exists():
            shutil.rmtree(package)
        raise
    finally:
        if draft.exists():
            shutil.rmtree(draft)
    return target


def _write_extension(package: Path, extension: str, business: str) -> None:
    """The extension template as package `extension`: a class name from its name ("call_backs": CallBacks)."""
    package.mkdir(parents=True)
    words = {"__EXT__": extension, "__CLASS__": "".join(w.capitalize() for w in extension.split("_")), "__BUSINESS__": business}
    for source in sorted(EXTENSION_TEMPLATE.iterdir()):
        text = source.read_text(encoding="utf-8")
        for placeholder, value in words.items():
            text = text.replace(placeholder, value)
        (package / source.name.removesuffix(".txt")).write_text(text, encoding="utf-8")


def next_steps(name: str, target: Path, package: Path | None = None) -> str:
    domain = f"DOMAIN={name}" if target.parent.resolve() == DATA_DIR.resolve() else f"DATA_DIR={target}"
    return "\n".join(
        [
            f"Created {target} (pack.yaml, products.json, faq.json, vocabulary.json, nlu.yml).",
            "Next steps:",
            f"  1. Replace the TODOs in {target / 'pack.yaml'} with your business's details and words.",
            "  2. Put your items in products.json, your help articles in faq.json, the words your",
            "     customers use in vocabulary.json, and example messages per intent, written the way",
            "     your customers write, in nlu.yml (docs/domain-packs.md explains every field).",
            f"  3. Run it: {domain} python3 app.py   (start-up names any file and field that is wrong)",
            *([f"  4. Its own machinery is in {package}: docs/extensions.md walks through adding an action."] if package else []),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m assistant", description="Tools for domain packs.")
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new-domain", help="create a new, valid domain pack to fill in")
    new.add_argument("name", help="the pack's folder name, used as DOMAIN=<name>")
    new.add_argument("--data-dir", type=Path, default=DATA_DIR, help=f"where to create it (default: {DATA_DIR})")
    new.add_argument("--extension", help="also start an extension of that name, which the pack loads (docs/extensions.md)")
    new.add_argument("--extensions-dir", type=Path, default=EXTENSIONS_DIR, help="where the extension goes (default: extensions/)")
    args = parser.parse_args(argv)
    try:
        target = new_domain(args.name, args.data_dir, args.extension, args.extensions_dir)
    except ScaffoldError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except DataError as error:  # the template is broken: a bug here, not the user's mistake
        print(f"error: the pack template does not load, nothing was written: {error}", file=sys.stderr)
        return 1
    print(next_steps(args.name, target, args.extensions_dir / args.extension if args.extension else None))
    return 0
