"""Tests of lock_client against a real, running lock server.

Configuration, from the environment (no test is skipped when it is missing; they fail):

* ``LOCK_SERVER_URL``: the server's URL, such as ``http://127.0.0.1:8090``.
* ``LOCK_SERVER_API_KEY``: an API key bound to ``LOCK_SERVER_NAMESPACE``.
* ``LOCK_SERVER_NAMESPACE``: the namespace of that key.
* ``LOCK_SERVER_OTHER_NAMESPACE`` (optional): a namespace the key is not bound to; a random
  one when absent (the server refuses any other namespace, existing or not).

Run from this directory: ``python3 -m unittest -v test_lock_client``. Every test uses its own
random keys, so tests do not see each other's locks.
"""

import base64
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

from lock_client import (
    AuthenticationError,
    ForbiddenError,
    Lock,
    LockClient,
    LockHeldError,
    LockNotHeldError,
    LockServerError,
    NotOwnerError,
)

HERE = os.path.dirname(os.path.abspath(__file__))


def _config():
    names = ("LOCK_SERVER_URL", "LOCK_SERVER_API_KEY", "LOCK_SERVER_NAMESPACE")
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise AssertionError(
            "these tests need a running lock server; set %s (and optionally "
            "LOCK_SERVER_OTHER_NAMESPACE)" % ", ".join(missing)
        )
    other = os.environ.get("LOCK_SERVER_OTHER_NAMESPACE") or "other-" + uuid.uuid4().hex[:12]
    return tuple(os.environ[name] for name in names) + (other,)


def _random_token():
    """A well-formed owner token (22 base64url characters) that nobody was given."""
    return base64.urlsafe_b64encode(os.urandom(16)).decode("ascii").rstrip("=")


class LockClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.url, cls.api_key, cls.namespace, cls.other_namespace = _config()

    def setUp(self):
        self.client = LockClient(self.url, self.api_key, self.namespace, timeout=10.0)
        self.locks = []

    def tearDown(self):
        for lock in self.locks:
            try:
                lock.release()
            except LockServerError:
                pass

    def key(self, suffix=""):
        return "py-test-%s%s" % (uuid.uuid4().hex, suffix)

    def acquire(self, key, **options):
        lock = self.client.acquire(key, **options)
        self.locks.append(lock)
        return lock

    def assertNoSecrets(self, *objects, secrets=()):
        for obj in objects:
            for text in (str(obj), repr(obj)):
                for secret in secrets:
                    self.assertNotIn(secret, text, "%s shows a secret" % type(obj).__name__)

    # -- the life of a lock -----------------------------------------------------------------

    def test_life_of_a_lock(self):
        key = self.key()
        lock = self.acquire(key, ttl_millis=5000)
        self.assertEqual(key, lock.key)
        self.assertRegex(lock.owner_token, r"^[A-Za-z0-9_-]{22}$")
        self.assertIsInstance(lock.fencing_token, int)
        self.assertEqual(5000, lock.ttl_millis)
        self.assertIsNotNone(lock.expires_at)
        first_expiry = lock.expires_at

        status = self.client.status(key)
        self.assertTrue(status.held)
        self.assertEqual(key, status.key)
        self.assertEqual(self.namespace, status.namespace)
        self.assertGreater(status.time_to_expiry_millis, 0)
        self.assertLessEqual(status.time_to_expiry_millis, 5000)

        lock.renew(ttl_millis=60000)
        self.assertEqual(60000, lock.ttl_millis)
        self.assertGreater(lock.expires_at, first_expiry)
        renewed = self.client.status(key)
        self.assertTrue(renewed.held)
        self.assertGreater(renewed.time_to_expiry_millis, 5000)
        self.assertLessEqual(renewed.time_to_expiry_millis, 60000)

        lock.release()
        free = self.client.status(key)
        self.assertFalse(free.held)
        self.assertEqual(0, free.time_to_expiry_millis)

        again = self.acquire(key, ttl_millis=5000)
        self.assertNotEqual(lock.owner_token, again.owner_token)
        if lock.fencing_token != 0:  # 0 when the store issues no fencing tokens
            self.assertGreater(again.fencing_token, lock.fencing_token)

    def test_second_acquire_is_refused_with_retry_after(self):
        key = self.key()
        self.acquire(key, ttl_millis=30000)
        with self.assertRaises(LockHeldError) as raised:
            self.client.acquire(key, ttl_millis=1000)
        error = raised.exception
        self.assertEqual(409, error.status)
        self.assertIsNotNone(error.retry_after)
        self.assertGreaterEqual(error.retry_after, 1)
        self.assertLessEqual(error.retry_after, 30)
        self.assertIsNotNone(error.time_to_expiry_millis)
        self.assertGreater(error.time_to_expiry_millis, 0)
        self.assertLessEqual(error.time_to_expiry_millis, 30000)

    def test_acquire_wait_ends_with_lock_held_error_not_a_socket_timeout(self):
        key = self.key()
        self.acquire(key, ttl_millis=30000)
        # The socket timeout (0.5 s) is shorter than the wait: the client must add the wait to it.
        impatient = LockClient(self.url, self.api_key, self.namespace, timeout=0.5)
        started = time.monotonic()
        with self.assertRaises(LockHeldError):
            impatient.acquire(key, ttl_millis=1000, wait_millis=1500)
        self.assertGreaterEqual(time.monotonic() - started, 1.4)

    def test_waiting_acquire_is_woken_by_a_release_from_another_thread(self):
        key = self.key()
        holder = self.acquire(key, ttl_millis=60000)
        outcome = {}

        def wait_for_lock():
            started = time.monotonic()
            try:
                outcome["lock"] = self.client.acquire(key, ttl_millis=5000, wait_millis=20000)
            except Exception as error:  # reported by the assertions below
                outcome["error"] = error
            outcome["elapsed"] = time.monotonic() - started

        waiter = threading.Thread(target=wait_for_lock, daemon=True)
        waiter.start()
        time.sleep(0.5)  # let the waiter reach the server; not a measure of anything
        self.assertTrue(waiter.is_alive(), "the acquire did not wait: %r" % outcome)
        holder.release()
        waiter.join(25)
        self.assertFalse(waiter.is_alive())
        self.assertNotIn("error", outcome)
        self.locks.append(outcome["lock"])
        self.assertNotEqual(holder.owner_token, outcome["lock"].owner_token)
        self.assertLess(outcome["elapsed"], 10.0, "woken only near the end of the 20 s wait")
        self.assertTrue(self.client.status(key).held)

    # -- ownership --------------------------------------------------------------------------

    def test_wrong_token_neither_renews_nor_releases(self):
        key = self.key()
        lock = self.acquire(key, ttl_millis=5000)
        impostor = Lock(self.client, key, _random_token(), lock.fencing_token, lock.expires_at, 5000)

        with self.assertRaises(NotOwnerError) as renew_raised:
            impostor.renew(ttl_millis=120000)
        self.assertEqual(409, renew_raised.exception.status)
        status = self.client.status(key)
        self.assertTrue(status.held)
        self.assertLessEqual(status.time_to_expiry_millis, 5000, "the impostor's renewal took effect")

        with self.assertRaises(NotOwnerError) as release_raised:
            impostor.release()
        self.assertEqual(409, release_raised.exception.status)
        self.assertTrue(self.client.status(key).held, "the impostor's release took effect")

        lock.release()
        self.assertFalse(self.client.status(key).held)

    def test_release_after_expiry_is_not_held(self):
        key = self.key()
        lock = self.acquire(key, ttl_millis=300)
        self._await_free(key)
        with self.assertRaises(LockNotHeldError) as raised:
            lock.release()
        self.assertEqual(410, raised.exception.status)
        with self.assertRaises(LockNotHeldError):
            lock.renew(ttl_millis=1000)
        self.assertFalse(self.client.status(key).held)

    def _await_free(self, key, limit=5.0):
        deadline = time.monotonic() + limit
        time.sleep(0.3)
        while self.client.status(key).held:
            self.assertLess(time.monotonic(), deadline, "a 300 ms lock was still held after %s s" % limit)
            time.sleep(0.05)

    # -- authentication ---------------------------------------------------------------------

    def test_unknown_api_key_is_refused(self):
        bad_key = "not-a-key-" + uuid.uuid4().hex
        stranger = LockClient(self.url, bad_key, self.namespace)
        with self.assertRaises(AuthenticationError) as raised:
            stranger.acquire(self.key())
        self.assertEqual(401, raised.exception.status)
        with self.assertRaises(AuthenticationError):
            stranger.status(self.key())
        self.assertNoSecrets(raised.exception, stranger, secrets=(bad_key,))

    def test_other_namespace_is_forbidden(self):
        outsider = LockClient(self.url, self.api_key, self.other_namespace)
        key = self.key()
        with self.assertRaises(ForbiddenError) as raised:
            outsider.acquire(key)
        self.assertEqual(403, raised.exception.status)
        with self.assertRaises(ForbiddenError):
            outsider.status(key)
        self.assertFalse(self.client.status(key).held)

    # -- keys -------------------------------------------------------------------------------

    def test_keys_round_trip_percent_encoded(self):
        odd_keys = [
            self.key("/with/slashes"),
            self.key(" with spaces "),
            self.key("-ключ-鍵-🔒"),
            self.key("?query#fragment&a=b+c%2F;"),
            self.key("/.."),
        ]
        for key in odd_keys:
            with self.subTest(key=key):
                self.assertFalse(self.client.status(key).held)
                lock = self.acquire(key, ttl_millis=10000)
                self.assertEqual(key, lock.key)
                status = self.client.status(key)
                self.assertEqual(key, status.key)
                self.assertTrue(status.held)
                lock.renew(ttl_millis=10000)
                lock.release()
                self.assertFalse(self.client.status(key).held)

    def test_encoded_and_plain_slash_are_different_keys(self):
        base = self.key()
        self.acquire(base + "/x", ttl_millis=10000)
        self.assertFalse(self.client.status(base + "%2Fx").held)
        other = self.acquire(base + "%2Fx", ttl_millis=10000)
        self.assertEqual(base + "%2Fx", other.key)

    # -- the context manager ----------------------------------------------------------------

    def test_context_manager_releases_after_the_body(self):
        key = self.key()
        with self.client.lock(key, ttl_millis=10000) as lock:
            self.assertTrue(self.client.status(key).held)
            self.assertEqual(key, lock.key)
        self.assertFalse(self.client.status(key).held)

    def test_context_manager_releases_on_exception(self):
        key = self.key()

        class Boom(Exception):
            pass

        with self.assertRaises(Boom):
            with self.client.lock(key, ttl_millis=10000):
                self.assertTrue(self.client.status(key).held)
                raise Boom()
        self.assertFalse(self.client.status(key).held)

    def test_failed_release_does_not_hide_the_body_exception(self):
        key = self.key()

        class Boom(Exception):
            pass

        with self.assertRaises(Boom):
            with self.client.lock(key, ttl_millis=300):
                self._await_free(key)  # the lock expires inside the body: release will fail
                raise Boom()

    def test_failed_release_after_a_completed_body_is_raised(self):
        key = self.key()
        with self.assertRaises(LockNotHeldError):
            with self.client.lock(key, ttl_millis=300):
                self._await_free(key)

    # -- secrets ----------------------------------------------------------------------------

    def test_representations_never_show_the_token_or_the_api_key(self):
        key = self.key()
        lock = self.acquire(key, ttl_millis=10000)
        token = lock.owner_token
        with self.assertRaises(LockHeldError) as held:
            self.client.acquire(key)
        impostor = Lock(self.client, key, _random_token(), 0, None, 1000)
        with self.assertRaises(NotOwnerError) as not_owner:
            impostor.release()
        lock.release()
        with self.assertRaises(LockNotHeldError) as not_held:
            lock.release()
        status = self.client.status(key)
        self.assertNoSecrets(
            lock,
            impostor,
            status,
            self.client,
            self.client.lock(key),
            held.exception,
            not_owner.exception,
            not_held.exception,
            secrets=(token, impostor.owner_token, self.api_key),
        )
        for error in (held.exception, not_owner.exception, not_held.exception):
            for value in error.problem.values():
                self.assertNotIn(token, str(value))
                self.assertNotIn(impostor.owner_token, str(value))
                self.assertNotIn(self.api_key, str(value))


class CounterWorkerTests(unittest.TestCase):
    """Two counter_worker processes increment one file under the lock: no update is lost."""

    @classmethod
    def setUpClass(cls):
        cls.url, cls.api_key, cls.namespace, _ = _config()

    def test_two_workers_lose_no_increment(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "counter.txt")
            with open(path, "w", encoding="utf-8") as file:
                file.write("0\n")
            command = [
                sys.executable,
                os.path.join(HERE, "counter_worker.py"),
                "--urls", self.url + "," + self.url,
                "--api-key", self.api_key,
                "--namespace", self.namespace,
                "--key", "py-worker-" + uuid.uuid4().hex,
                "--file", path,
                "--increments", "25",
            ]
            workers = [
                subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)
            ]
            for worker in workers:
                _, error = worker.communicate(timeout=150)
                self.assertEqual(0, worker.returncode, error)
                self.assertNotIn(self.api_key, error)
            with open(path, encoding="utf-8") as file:
                self.assertEqual(50, int(file.read()))


if __name__ == "__main__":
    unittest.main()
