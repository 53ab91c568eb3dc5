"""A model as one file: numpy arrays and JSON metadata in a zip, never a pickle.

Layout (a valid ``.npz``: ``np.load`` reads it too)::

    meta.json        format name and version, arcwise version, system, options,
                     labels, vocabularies, training data hash, scores,
                     hyperparameters, the command line that made it, and a
                     manifest {array name: {"dtype", "shape"}}
    NAME.npy         one member per array, in the .npy format

The bytes depend only on the arrays and the metadata: members are written in a
fixed order with a fixed timestamp and permissions, JSON with sorted keys, and
deflated at zlib's default level, so training twice with the same seed gives
byte-identical files (with the same zlib).  Format 2 deflates meta.json and the
integer arrays: a perceptron's int8 weight tables (`arcwise.learn.perceptron`)
are mostly zeros, and deflate to about a tenth (English-EWT arc-eager: two
16 MiB tables, 2.9 MB in the file, inflated in 0.1 s).  Float arrays (the
weights of neural and graph-based models, dense and mostly nonzero) are
stored as they are: saving them is fast, and loading reads them in one copy
or memory-maps them (`load(..., mapped=True)`; a deflated member is always
read).  Format 1 stored every member and a perceptron's float32 weights (its
nonzero rows); its files are still read.  Format 3 adds float16 arrays (a neural
model's pretrained word vectors, `arcwise.learn.embeddings`); a file is written as
format 3 only when it holds one, so that every other file stays format 2 (an
arcwise that reads up to 2 reads it, and asks for an upgrade for the others).

Loading reads the metadata first, refuses newer format versions, and checks
every member's name, dtype, shape and length against the manifest before
reading its data, and its CRC after; object arrays are never accepted, so
nothing is unpickled.  Every problem with a file is an `ArcwiseError` with a
one-line message.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import IO, Any

import numpy as np

from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.version import __version__
from arcwise.io.atomic import atomic_write
from arcwise.models import packages

FORMAT_NAME = "arcwise-model"
FORMAT_VERSION = 3  # the newest this arcwise reads (`written_version`: what it writes)
HALF_VERSION = 3  # the first format with float16 arrays
META = "meta.json"

# Metadata every model carries (besides what `save` adds), with its JSON type.
REQUIRED_META: dict[str, type | tuple[type, ...]] = {
    "system": str,
    "options": dict,
    "labels": list,
    "vocabularies": dict,
    "training_data_sha256": (str, type(None)),
    "scores": dict,
    "hyperparameters": dict,
    "command_line": list,
}
_ADDED_META = ("format", "format_version", "arcwise_version", "arrays")

ALLOWED_DTYPES = frozenset(
    np.dtype(t).str
    for t in ("b1", "i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8")
)
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say
_MAX_META_BYTES = 256 * 2**20
_ZIP_START = b"PK\x03\x04"  # a zip archive's first member header, where the file starts
_MAX_DEFLATE_RATIO = 1100  # deflate expands at most 1032-fold: a larger claim is a damaged file


def save(
    path: str | os.PathLike | IO[bytes], arrays: Mapping[str, np.ndarray],
    meta: Mapping[str, Any]
) -> None:
    """Write arrays and metadata atomically to `path` (see the module docstring), or into
    a binary file opened for writing (`arcwise.io.atomic.AtomicFiles.write`).

    arrays: {name: numeric array}, names matching ``[a-z][a-z0-9_]*``;
    meta: the keys of `REQUIRED_META` (and any other JSON-able keys).
    """
    missing = [key for key in REQUIRED_META if key not in meta]
    if missing:
        raise ValueError(f"model metadata lacks {', '.join(missing)}")
    clash = [key for key in _ADDED_META if key in meta]
    if clash:
        raise ValueError(f"model metadata must not set {', '.join(clash)}; save adds them")
    prepared = {}
    for name in sorted(arrays):
        if not _NAME.fullmatch(name):
            raise ValueError(f"array name {name!r} must match [a-z][a-z0-9_]*")
        array = np.asarray(arrays[name])
        array = np.asarray(array, dtype=array.dtype.newbyteorder("<"), order="C")
        if array.dtype.str not in ALLOWED_DTYPES:
            raise ValueError(f"array {name!r} has dtype {array.dtype}, not a plain number type")
        prepared[name] = array
    full = dict(meta)
    full.update(
        format=FORMAT_NAME,
        format_version=written_version(prepared),
        arcwise_version=__version__,
        arrays={
            name: {"dtype": a.dtype.str, "shape": list(a.shape)} for name, a in prepared.items()
        },
    )
    try:
        _check_meta(full, "model metadata")  # the checks a reader makes
    except ArcwiseError as error:
        raise ValueError(str(error)) from None
    text = json.dumps(full, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    opened = nullcontext(path) if hasattr(path, "write") else atomic_write(path, "wb")
    with opened as f, zipfile.ZipFile(f, "w") as zf:
        zf.writestr(_member(META, deflated=True), text.encode("utf-8"))
        for name, array in prepared.items():
            info = _member(name + ".npy", deflated=array.dtype.kind != "f")
            with zf.open(info, "w", force_zip64=array.nbytes > 2**31) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def written_version(arrays: Mapping[str, np.ndarray]) -> int:
    """The format version a file of these arrays is written as: `HALF_VERSION` if one is
    float16, else 2."""
    return HALF_VERSION if any(a.dtype == np.float16 for a in arrays.values()) else 2


def _member(name: str, deflated: bool) -> zipfile.ZipInfo:
    """A zip entry whose header bytes depend on nothing but its name and compression."""
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED
    info.create_system = 3  # Unix
    info.external_attr = 0o644 << 16
    return info


def load(
    path: str | os.PathLike,
    expected: Mapping[str, tuple[str, tuple[int | None, ...]]] | None = None,
    mapped: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, metadata) of a model file, every part checked.

    expected: {array name: (dtype, shape)} the caller needs, None in a shape
    meaning any size; a missing array or another dtype or shape is an error.
    mapped: memory-map the stored arrays read-only instead of reading them (instant,
    shared between processes; their contents are then not checksummed); deflated ones
    are read all the same.
    """
    source = packages.located(path)
    with _opened(source) as (raw, zf):
        meta = _guarded(source, _read_meta, zf, source)
        arrays = {
            name: _guarded(source, _read_array, raw, zf, name, spec, source, mapped)
            for name, spec in meta["arrays"].items()
        }
    check_arrays(arrays, expected or {}, source)
    return arrays, meta


def check_arrays(arrays: Mapping[str, np.ndarray],
                 expected: Mapping[str, tuple[str, tuple[int | None, ...]]], source: str) -> None:
    """ArcwiseError unless every expected array is there with its dtype and shape
    ({name: (dtype, shape)}, None in a shape meaning any size)."""
    for name, (dtype, shape) in expected.items():
        array = arrays.get(name)
        if array is None:
            raise MissingArray(source, name)
        if not _fits(array.dtype.str, array.shape, dtype, shape):
            raise ArcwiseError(
                f"{source}: array {name!r} is {array.dtype.str}{list(array.shape)}, "
                f"expected {np.dtype(dtype).str}{list(shape)}"
            )


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """Only the checked metadata of a model file (cheap: no array is read)."""
    source = packages.located(path)
    with _opened(source) as (_, zf):
        return _guarded(source, _read_meta, zf, source)


@contextmanager
def _opened(source: str) -> Iterator[tuple[IO[bytes], zipfile.ZipFile]]:
    """(file, zip) of a model file opened once: every read goes through that one file, so
    a file renamed over `source` meanwhile (`arcwise train -o`) is not half read."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not hang the open
    except FileNotFoundError:
        raise ArcwiseError(f"{source}: {packages.not_found(source)}") from None
    except OSError as error:
        raise ArcwiseError(f"{source}: cannot read model file: {error.strerror or error}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # /dev/zero would be read forever
        os.close(fd)
        raise ArcwiseError(f"{source}: not an arcwise model file (not a regular file)")
    with os.fdopen(fd, "rb") as raw:
        try:
            zf = zipfile.ZipFile(raw)
        except OSError as error:
            raise ArcwiseError(
                f"{source}: cannot read model file: {error.strerror or error}") from None
        except Exception:  # noqa: BLE001 -- BadZipFile, or whatever a damaged directory raises
            raw.seek(0)
            if raw.read(len(_ZIP_START)) == _ZIP_START:  # a zip's first member, no directory
                raise ArcwiseError(f"{source}: truncated or corrupt model file (a zip archive "
                                   "whose directory at the end is missing or damaged: cut "
                                   "short?)") from None
            raise ArcwiseError(
                f"{source}: not an arcwise model file (not a zip archive)") from None
        with zf:
            yield raw, zf


def _guarded(source: str, read, *args):
    """read(*args), with every failure of a damaged file turned into an ArcwiseError."""
    try:
        return read(*args)
    except ArcwiseError:
        raise
    except OSError as error:
        raise ArcwiseError(f"{source}: cannot read model file: {error.strerror or error}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise ArcwiseError(f"{source}: corrupt model file (bad zip data: {error})") from None
    except Exception as error:  # noqa: BLE001 -- a damaged file must never give a traceback
        raise ArcwiseError(
            f"{source}: corrupt model file ({type(error).__name__}: {error})"
        ) from None


def _read_meta(zf: zipfile.ZipFile, source: str) -> dict[str, Any]:
    names = zf.namelist()
    if META not in names:
        raise ArcwiseError(f"{source}: not an arcwise model file (no {META})")
    if len(set(names)) != len(names):
        raise ArcwiseError(f"{source}: corrupt model file (duplicate members)")
    info = zf.getinfo(META)
    if info.file_size > _MAX_META_BYTES:
        raise ArcwiseError(f"{source}: corrupt model file ({META} is too large)")
    try:
        meta = json.loads(zf.read(META).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ArcwiseError(f"{source}: corrupt model file ({META} is not JSON)") from None
    _check_meta(meta, source)
    members = {name + ".npy" for name in meta["arrays"]} | {META}
    if set(names) != members:
        extra = sorted(set(names) - members)
        lacking = sorted(members - set(names))
        what = f"unexpected member {extra[0]!r}" if extra else f"missing member {lacking[0]!r}"
        raise ArcwiseError(f"{source}: corrupt model file ({what})")
    return meta


def _check_meta(meta: Any, source: str) -> None:
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ArcwiseError(f"{source}: not an arcwise model file (wrong format name)")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ArcwiseError(f"{source}: corrupt model file (bad format version {version!r})")
    if version > FORMAT_VERSION:
        raise ArcwiseError(
            f"{source}: format version {version} is newer than this arcwise "
            f"({__version__} reads up to {FORMAT_VERSION}); upgrade arcwise"
        )
    for key, kind in {**REQUIRED_META, "arcwise_version": str, "arrays": dict}.items():
        if key not in meta or not isinstance(meta[key], kind):
            raise ArcwiseError(
                f"{source}: corrupt model file (metadata {key!r} missing or of the wrong type)"
            )
    if not all(isinstance(label, str) for label in meta["labels"]):
        raise ArcwiseError(f"{source}: corrupt model file (labels must be strings)")
    for name, spec in meta["arrays"].items():
        if (
            not _NAME.fullmatch(name)
            or not isinstance(spec, dict)
            or spec.get("dtype") not in ALLOWED_DTYPES
            or not isinstance(spec.get("shape"), list)
            or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in spec["shape"]
            )
        ):
            raise ArcwiseError(
                f"{source}: corrupt model file (bad manifest entry for array {name!r})"
            )


def check_parser_meta(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray],
                      source: str) -> None:
    """ArcwiseError unless a parser's metadata and arrays make sense together: labels that
    a treebank's DEPREL column can hold (distinct, no whitespace or control character,
    not ``_``), the root label among them, every vocabulary a list of distinct strings,
    and finite float weights."""
    from arcwise.core.vocab import COLUMNS

    def bad(what: str) -> ArcwiseError:
        return ArcwiseError(f"{source}: corrupt model file ({what})")

    labels = meta.get("labels")
    if not isinstance(labels, list) or not labels:
        raise bad("no labels")
    for label in labels:
        if not isinstance(label, str) or not _LABEL.fullmatch(label) or label == "_":
            raise bad(f"label {label!r} cannot be written in a DEPREL column")
    if len(set(labels)) != len(labels):
        raise bad("labels repeat")
    if "root_label" in meta and meta["root_label"] not in labels:
        raise bad(f"root label {meta['root_label']!r} is not one of the labels")
    vocabularies = meta.get("vocabularies")
    if not isinstance(vocabularies, dict):
        raise bad("no vocabularies")
    for column in COLUMNS:
        vocabulary = vocabularies.get(column)
        if (
            not isinstance(vocabulary, dict)
            or not isinstance(vocabulary.get("strings"), list)
            or not all(isinstance(x, str) for x in vocabulary["strings"])
            or not isinstance(vocabulary.get("frozen"), bool)
        ):
            raise bad(f"vocabulary {column!r} missing or not a list of strings")
    for name, array in arrays.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise bad(f"array {name!r} holds NaN or infinite weights")


_LABEL = re.compile(r"[^\s\x00-\x1f\x7f]{1,200}")


def _read_array(
    raw: IO[bytes], zf: zipfile.ZipFile, name: str, spec: dict, source: str, mapped: bool
) -> np.ndarray:
    """Read NAME.npy after checking its header against the manifest entry.

    Stored members are read straight from the model file `raw` -- one copy, then the
    CRC -- or mapped; deflated ones go through zipfile, which checks the CRC at their end.
    """
    info = zf.getinfo(name + ".npy")
    stored = info.compress_type == zipfile.ZIP_STORED
    with nullcontext(raw) if stored else zf.open(info) as f:
        start = _data_offset(f, info, source) if stored else 0
        f.seek(start)
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f"npy version {version}")
        except ValueError as error:
            raise ArcwiseError(f"{source}: corrupt model file (array {name!r}: {error})") from None
        header_length = f.tell() - start
        if fortran or dtype.str != spec["dtype"] or list(shape) != spec["shape"]:
            raise ArcwiseError(
                f"{source}: corrupt model file (array {name!r} is {dtype.str}{list(shape)}, "
                f"the manifest says {spec['dtype']}{spec['shape']})"
            )
        nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        if info.file_size != header_length + nbytes or (
                not stored and info.file_size > _MAX_DEFLATE_RATIO * info.compress_size + 2**10):
            raise ArcwiseError(
                f"{source}: corrupt model file (array {name!r} has the wrong length)"
            )
        if stored and mapped:
            view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            count = nbytes // dtype.itemsize
            return np.frombuffer(
                view, dtype=dtype, count=count, offset=start + header_length
            ).reshape(shape)
        array = np.empty(shape, dtype=dtype)
        data = memoryview(array.reshape(-1).view(np.uint8))  # its bytes, zero-size ones too
        if f.readinto(data) != nbytes or (not stored and f.read(1)):
            raise ArcwiseError(f"{source}: corrupt model file (array {name!r} is truncated)")
        if stored:
            f.seek(start)
            if zlib.crc32(data, zlib.crc32(f.read(header_length))) != info.CRC:
                raise ArcwiseError(
                    f"{source}: corrupt model file (array {name!r} fails its CRC check)"
                )
    return array


def _data_offset(raw, info: zipfile.ZipInfo, source: str) -> int:
    """Where a member's bytes start: after its local header (whose extra field may differ)."""
    raw.seek(info.header_offset)
    local = raw.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise ArcwiseError(f"{source}: corrupt model file (bad zip data)")
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_length + extra_length


def _fits(
    dtype: str, shape: tuple[int, ...], want_dtype: str, want_shape: tuple[int | None, ...]
) -> bool:
    return (
        dtype == np.dtype(want_dtype).str
        and len(shape) == len(want_shape)
        and all(w is None or w == d for d, w in zip(shape, want_shape))
    )


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes (the training data hash a model records)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()
