"""`-o` naming a device, a FIFO or a symbolic link: streamed to or written through, not replaced."""

import os
import stat
import threading

import pytest

from arcwise.core.errors import ArcwiseError
from arcwise.io.atomic import atomic_write
from tests.tiny_model import arcwise, one_line, tiny_model  # noqa: F401 -- a fixture

pytestmark = pytest.mark.end_to_end

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")


def null_device(directory):
    path = directory / "null"
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


def fifo_reader(path):
    """Start a thread that reads the FIFO at `path` to its end; returns (thread, received)."""
    os.mkfifo(path)
    received = bytearray()

    def read():
        with open(path, "rb") as f:
            received.extend(f.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, received


@needs_root
def test_a_device_is_written_to_not_replaced(tmp_path):
    device = null_device(tmp_path)
    with atomic_write(device) as f:
        f.write("x" * 100_000)
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["null"]


def test_a_fifo_reader_gets_every_byte(tmp_path):
    fifo = tmp_path / "fifo"
    thread, received = fifo_reader(fifo)
    data = os.urandom(300_000)
    with atomic_write(fifo, "wb") as f:
        f.write(data)
    thread.join(10)
    assert bytes(received) == data
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["fifo"]


def test_a_symlink_is_followed_and_kept(tmp_path):
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / "real.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(os.path.join("sub", "real.txt"))
    with atomic_write(link) as f:
        f.write("new")
    assert link.is_symlink() and os.readlink(link) == os.path.join("sub", "real.txt")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    with pytest.raises(RuntimeError), atomic_write(link) as f:  # a failed write leaves it all
        f.write("partial")
        raise RuntimeError
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path / "sub")) == ["real.txt"]
    dangling = tmp_path / "dangling"
    dangling.symlink_to("sub/created.txt")
    with atomic_write(dangling) as f:
        f.write("made")
    assert (tmp_path / "sub" / "created.txt").read_text() == "made" and dangling.is_symlink()


def test_a_directory_is_refused_before_writing(tmp_path):
    with pytest.raises(ArcwiseError, match="cannot write: Is a directory"), \
            atomic_write(tmp_path) as f:
        f.write("never")
    assert os.listdir(tmp_path) == []


@needs_root
def test_parse_output_to_device_fifo_and_symlink(tiny_model, tmp_path):
    model, three = tiny_model
    expected = arcwise("parse", "-m", model, three)
    assert expected.returncode == 0 and expected.stdout, expected.stderr
    device = null_device(tmp_path)
    done = arcwise("parse", "-m", model, three, "-o", device)
    assert done.returncode == 0 and stat.S_ISCHR(os.lstat(device).st_mode), done.stderr
    fifo = tmp_path / "fifo"
    thread, received = fifo_reader(fifo)
    done = arcwise("parse", "-m", model, three, "-o", fifo)
    thread.join(30)
    assert done.returncode == 0 and bytes(received) == expected.stdout
    target = tmp_path / "target.conllu"
    target.write_text("old")
    link = tmp_path / "link.conllu"
    link.symlink_to(target.name)
    done = arcwise("parse", "-m", model, three, "-o", link)
    assert done.returncode == 0 and link.is_symlink()
    assert target.read_bytes() == expected.stdout
    assert sorted(os.listdir(tmp_path)) == ["fifo", "link.conllu", "null", "target.conllu"]
    done = arcwise("parse", "-m", model, three, "-o", tmp_path)
    assert done.returncode == 2
    assert one_line(done.stderr) == f"arcwise: {tmp_path}: cannot write: Is a directory"
