"""``evolve``'s writes, all of them or none: the schema, its pin, the accepted-breaks entries, the next
requirement set and the surface snapshot (contract/evolution/evolve.py decides what to take in;
this module takes it in). The files are read before the first write, and a failure at any step
(a full disk, the surface gate refusing, an internal error) puts every one of them back and is
said in one line: the checkout is as it was, never half written.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from contract.core import textsafe
from contract.core.exitcodes import EXIT_OK
from contract.core.userfiles import read_whole
from contract.evolution.classify import Change
from contract.evolution.gate import ACCEPTED_NAME


def _accept(root: Path, wire: str, needed: list[Change], adr: str) -> None:
    """Append the entries the gate needs to accepted-breaks.json (its other content kept)."""
    path = root / ACCEPTED_NAME
    document: dict[str, Any] = json.loads(read_whole(path)) if path.exists() else {"accepted": []}
    have = {(e.get("wire"), e.get("path"), e.get("code"), e.get("adr")) for e in document["accepted"]}
    for change in needed:
        new = {**entry(wire, change, adr), "note": "accepted with the schema by milk-contract evolve --accept"}
        if (new["wire"], new["path"], new["code"], new["adr"]) not in have:
            document["accepted"].append(new)
    write_atomically(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


PINS = "pins.json"
SNAPSHOT_TEST = Path("contract") / "tests" / "test_surface.py"


class EvolveError(Exception):
    """Misuse or an unusable input: one line, exit 2."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_pins(schemas: Path) -> dict[str, Any]:
    """The pin file: ``{"sha256": {wire: digest}, "evolved": {wire: null or {"adr", "date"}}}``."""
    with open(schemas / PINS, encoding="utf-8") as handle:
        pins: dict[str, Any] = json.load(handle)
    return pins


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` atomically (a crash leaves the old or the new file, never a cut one)."""
    temporary = path.with_name(f".{path.name}.partial")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_pins(schemas: Path, pins: dict[str, Any]) -> None:
    write_atomically(schemas / PINS, (json.dumps(pins, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def refresh_snapshot(root: Path, wire: str) -> tuple[bool, str]:
    """Update the wire's surface snapshot through the gate; (ok, what pytest said when not)."""
    # the gate test draws nothing: without hypothesis' plugin pytest starts in two thirds the time
    command = [sys.executable, "-m", "pytest", str(SNAPSHOT_TEST), "-q", "-p", "no:cacheprovider",
               "-p", "no:hypothesispytest", "-k", wire, "-o", "addopts="]
    env = {**os.environ, "MILK_CONTRACT_SURFACE_ROOT": str(root), "PYTHONPATH": str(root)}
    env.pop("MILK_CONTRACT_EMITTER", None)
    # one run: under --snapshot-update the gate test still fails on a refused change, so exit 0
    # means the gate accepted the move and the snapshot now holds it
    done = subprocess.run([*command, "--snapshot-update"], cwd=root, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        return False, "\n".join((done.stdout + done.stderr).strip().splitlines()[-12:])
    return True, ""


def entry(wire: str, change: Change, adr: str | None) -> dict[str, str]:
    return {"wire": wire, "path": change.path, "code": change.code or "", "adr": adr or "ADR-NNNN"}


class _Checkout:
    """The files ``evolve`` may write, as they were before it wrote any: :meth:`restore` puts every one
    back (and removes what it added), so that a failure at any step leaves the checkout as it was."""

    def __init__(self, files: list[Path], folders: list[Path]) -> None:
        self.files = {path: path.read_bytes() if path.is_file() else None for path in files}
        self.folders = {folder: self._listing(folder) for folder in folders}

    @staticmethod
    def _listing(folder: Path) -> dict[Path, bytes] | None:
        if not folder.is_dir():
            return None
        return {path: path.read_bytes() for path in folder.iterdir() if path.is_file()}

    def restore(self) -> None:
        for path, data in self.files.items():
            path.with_name(f".{path.name}.partial").unlink(missing_ok=True)  # write_atomically's, cut short
            if data is None:
                path.unlink(missing_ok=True)
            else:
                write_atomically(path, data)
        for folder, listing in self.folders.items():
            if not folder.is_dir():
                continue
            for path in folder.iterdir():
                if path.is_file() and (listing is None or path not in listing):
                    path.unlink()
            for path, data in (listing or {}).items():
                if not path.is_file() or path.read_bytes() != data:
                    write_atomically(path, data)
            if listing is None and not any(folder.iterdir()):
                folder.rmdir()


def _step(name: str, action: Any) -> Any:
    """Run one write of ``_take_in``; any failure of it (a full disk, a file in the way) as an EvolveError
    naming the step, never a traceback."""
    try:
        return action()
    except EvolveError:
        raise
    except Exception as error:
        from contract.checking.failsafe import describe

        raise EvolveError(f"{name}: {describe(error)}") from None


def take_in(root: Path, wire: str, new_data: bytes, needed: list[Change], args: argparse.Namespace) -> int:
    """Write the schema, its pin, the accepted-breaks entries, the next requirement set and the surface
    snapshot: all of them, or (a failure at any step) none, said in one line."""
    from contract.rules import revisions

    schemas = root / "schemas"
    snapshots = root / SNAPSHOT_TEST.parent / "__snapshots__" / SNAPSHOT_TEST.stem
    checkout = _Checkout([schemas / f"{wire}.schema.json", schemas / PINS, root / ACCEPTED_NAME],
                         [revisions.folder(wire, root), snapshots])
    try:
        return _write_all(root, wire, new_data, needed, args)
    except EvolveError as error:
        checkout.restore()
        raise EvolveError(f"{error}; nothing was written (the checkout is as it was)") from None
    except BaseException:
        checkout.restore()
        raise


def _write_all(root: Path, wire: str, new_data: bytes, needed: list[Change], args: argparse.Namespace) -> int:
    from contract.rules import revisions

    out = sys.stdout
    current_path = root / "schemas" / f"{wire}.schema.json"
    schemas = root / "schemas"
    pins = _step("reading schemas/pins.json", lambda: read_pins(schemas))
    _step(f"writing schemas/{wire}.schema.json", lambda: write_atomically(current_path, new_data))
    pins.setdefault("sha256", {})[wire] = hashlib.sha256(new_data).hexdigest()
    pins.setdefault("evolved", {})[wire] = {"adr": args.adr, "date": datetime.date.today().isoformat()}
    _step(f"writing schemas/{PINS}", lambda: write_pins(schemas, pins))
    if needed:
        _step(f"writing {ACCEPTED_NAME}", lambda: _accept(root, wire, needed, args.adr))
    # the new revision's set, beside the previous
    frozen: Path = _step("writing the requirement set", lambda: revisions.write_next(wire, root, current_path))
    ok, said = _step("updating the surface snapshot", lambda: refresh_snapshot(root, wire))
    if not ok:
        out.write(said + "\n")
        raise EvolveError(f"{wire}: the surface gate refused the new surface (see above), so the snapshot did "
                          "not update")
    out.write(f"{wire}: requirement set {frozen.relative_to(root)} written (revision {frozen.stem})\n")
    accepted = f", {textsafe.counted(len(needed), 'accepted break')} in {ACCEPTED_NAME}" if needed else ""
    out.write(f"{wire}: schema taken in: schemas/{wire}.schema.json, schemas/{PINS} (sha256 "
              f"{pins['sha256'][wire][:12]}…){accepted} and the surface snapshot updated"
              + (f" for {args.adr}" if args.adr else "") + "\n")
    if args.then_record:
        out.write("next: milk-contract record -- ./bin/milk (the goldens are not valid under the new schema yet), "
                  "then run the suite\n")
    else:
        out.write("next: add or re-record a scenario that shows the change (milk-contract scenario / record), then "
                  "run the suite: python -m pytest -n auto\n")
    return EXIT_OK
