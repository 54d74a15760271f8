"""`memgit mcp`'s stdio plumbing (memgit/commands/mcp.py): the client's lines read in chunks, and the writers of the
pipe that carries the SDK's answers closed when it is done."""

from __future__ import annotations

import os


class Lines:
    """Lines from a file descriptor, read in chunks; what is not taken stays for the SDK."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buf, self.eof = fd, bytearray(), False

    def next(self, timeout: float | None = None) -> bytes | None:
        """The next line with its newline (at the end: what is left, b"" when nothing); None when no line came
        within TIMEOUT seconds."""
        import select

        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line = bytes(self.buf[: end + 1])
                del self.buf[: end + 1]
                return line
            if self.eof:
                line = bytes(self.buf)
                self.buf.clear()
                return line
            if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
                return None
            chunk = os.read(self.fd, 65536)
            if chunk:
                self.buf += chunk
            else:
                self.eof = True

    def push_back(self, line: bytes) -> None:
        self.buf[0:0] = line


def close_writers(pipe: tuple[int, int]) -> None:
    """Point every descriptor that writes into the answer pipe at /dev/null: fd 1, and the private duplicate
    the SDK's stdio transport keeps of it (released with its stream object, not when `run` returns; while it
    stayed open the drainer never saw the pipe's end and `memgit mcp` took 10 s to exit after its client left)."""
    import fcntl

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for name in os.listdir("/dev/fd"):
            fd = int(name)
            if fd == devnull:
                continue
            try:
                st = os.fstat(fd)
                writes = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
            except OSError:
                continue  # the listing's own descriptor, already closed
            if writes and (st.st_dev, st.st_ino) == pipe:
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)
