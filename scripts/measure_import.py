"""Time the largest allowed import, four at once, against gunicorn as deploy/ runs it.

Starts gunicorn with deploy/gunicorn.conf.py on SANTASE_DATABASE_URL (migrated first),
posts the file of 2,000 matches x 30 deals from four cookieless browsers at
once, and prints each answer's status and time, and each worker's peak memory
(VmHWM). Run from the checkout:

    .venv/bin/python scripts/measure_import.py sqlite:////tmp/measure.sqlite [port]
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.request import Request, urlopen

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bulk import bulk_export  # noqa: E402

IMPORTS_AT_ONCE = 4


def peak_megabytes(pid: int) -> float:
    """The most memory (resident) the process has held, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def workers_of(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(each) for each in found.split()]


def main(database_url: str, port: int) -> None:
    env = {
        **os.environ,
        "SANTASE_DATABASE_URL": database_url,
        "SANTASE_SECRET_KEY": "measure-" + "x" * 40,
        "SANTASE_BIND": f"127.0.0.1:{port}",
        "SANTASE_TRUSTED_HOSTS": "127.0.0.1",
        "SANTASE_RATELIMIT_ENABLED": "false",
        "SESSION_COOKIE_SECURE": "false",
    }
    subprocess.run(
        [sys.executable, "-m", "flask", "--app", "counter.wsgi:app", "db", "upgrade"],
        env=env,
        check=True,
        cwd=ROOT,
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "counter.wsgi:app"],
        env=env,
        cwd=ROOT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urlopen(base + "/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        files = [bulk_export(first=n * 10_000) for n in range(IMPORTS_AT_ONCE)]
        print(f"file: {len(files[0]) / 1e6:.1f} MB, {IMPORTS_AT_ONCE} at once")
        answers: list[str] = []

        def send(body: bytes) -> None:
            started = time.monotonic()
            request = Request(
                base + "/api/import",
                data=body,
                headers={"Content-Type": "application/json", "Origin": base},
            )
            try:
                with urlopen(request, timeout=120) as response:
                    status = response.status
            except Exception as error:  # printed, whatever it is
                status = getattr(error, "code", repr(error))
            answers.append(f"{status} in {time.monotonic() - started:.1f} s")

        threads = [threading.Thread(target=send, args=(body,)) for body in files]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print("answers:", ", ".join(answers))
        for pid in workers_of(server.pid):
            print(f"worker {pid}: peak {peak_megabytes(pid):.0f} MB")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5181)
