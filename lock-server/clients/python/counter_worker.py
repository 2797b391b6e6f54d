#!/usr/bin/env python3
"""Increment a counter held in a text file, under a lock of the lock server.

Used to prove that a lock excludes processes: several workers increment the same file, each
read-modify-write inside ``with client.lock(...)``; the file ends with the sum of their
increments only if no two of them ever held the lock at once. With ``--no-lock`` the same
read-modify-write runs unprotected and loses updates, which shows that the check can fail.

Each iteration talks to the next URL of ``--urls`` in turn, so that a lock taken through one
server instance must exclude a worker that goes through another.

Exit status: 0 on success; 1 with a message on standard error on any error; 2 on bad
arguments.
"""

import argparse
import os
import random
import sys
import tempfile
import time

from lock_client import LockClient, LockHeldError, RateLimitedError

ACQUIRE_DEADLINE_SECONDS = 120.0


def read_counter(path):
    """The integer held in ``path``."""
    with open(path, encoding="utf-8") as file:
        return int(file.read().strip())


def write_counter(path, value):
    """Write ``value`` to ``path`` atomically: a temporary file in the same directory, then
    ``os.replace``, so that a reader never sees a half-written file."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=".counter-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write("%d\n" % value)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def increment(path):
    """Read the counter, sleep 1-5 ms to widen the race, and write it back plus one."""
    value = read_counter(path)
    time.sleep(random.uniform(0.001, 0.005))
    write_counter(path, value + 1)


def locked_increment(client, key, path, ttl_millis, wait_millis):
    """Increment under the lock, retrying the acquisition while the lock is held (after each
    wait ended) or the rate limit is spent, until ``ACQUIRE_DEADLINE_SECONDS``."""
    deadline = time.monotonic() + ACQUIRE_DEADLINE_SECONDS
    while True:
        try:
            with client.lock(key, ttl_millis=ttl_millis, wait_millis=wait_millis):
                increment(path)
            return
        except (LockHeldError, RateLimitedError) as error:
            pause = 0.0
            if isinstance(error, RateLimitedError):
                pause = float(error.retry_after or 1)
            if time.monotonic() + pause >= deadline:
                raise RuntimeError(
                    "could not acquire lock %r within %d s: %s" % (key, ACQUIRE_DEADLINE_SECONDS, error)
                ) from error
            time.sleep(pause)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", required=True, help="comma-separated server URLs, used in turn")
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--key", required=True, help="the lock's key")
    parser.add_argument("--file", required=True, help="a text file holding an integer")
    parser.add_argument("--increments", type=int, default=50)
    parser.add_argument("--ttl-millis", type=int, default=10000)
    parser.add_argument("--wait-millis", type=int, default=30000)
    parser.add_argument("--no-lock", action="store_true", help="increment without the lock")
    arguments = parser.parse_args(argv)
    arguments.urls = [url.strip() for url in arguments.urls.split(",") if url.strip()]
    if not arguments.urls:
        parser.error("--urls names no URL")
    if arguments.increments < 0:
        parser.error("--increments must not be negative")
    return arguments


def main(argv=None):
    arguments = parse_arguments(argv)
    try:
        clients = [LockClient(url, arguments.api_key, arguments.namespace) for url in arguments.urls]
        for iteration in range(arguments.increments):
            if arguments.no_lock:
                increment(arguments.file)
            else:
                client = clients[iteration % len(clients)]
                locked_increment(
                    client, arguments.key, arguments.file, arguments.ttl_millis, arguments.wait_millis
                )
    except KeyboardInterrupt:
        print("counter_worker: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # report any failure as a message and a non-zero status
        print("counter_worker: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
