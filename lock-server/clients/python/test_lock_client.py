"""Tests of lock_client against a real, running lock server.

Configuration, from the environment (no test is skipped when it is missing; they fail):

* ``LOCK_SERVER_URL``: the server's URL, such as ``http://127.0.0.1:8090``.
* ``LOCK_SERVER_API_KEY``: an API key bound to ``LOCK_SERVER_NAMESPACE``.
* ``LOCK_SERVER_NAMESPACE``: the namespace of that key.
* ``LOCK_SERVER_OTHER_NAMESPACE`` (optional): a namespace the key is not bound to; a random
  one when absent (the server refuses any other namespace, existing or not).

Run from this directory: ``python3 -m unittest -v test_lock_client``. Every test uses its own
random keys, so tests do not see each other's locks.

The tests of the transport (``InsecureHttpTests``, ``ResponseSizeTests``, ``CallDeadlineTests``,
``ConnectionReuseTests``, ``TlsTests``) need no lock server: they run the client against servers of their own on
loopback, hostile ones included, and ``TlsTests`` makes its certificates with ``openssl``
(which must be on the ``PATH``). Alone: ``python3 -m unittest -v test_lock_client.TlsTests``.
"""

import base64
import http.client
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

import lock_client
from lock_client import (
    AuthenticationError,
    ForbiddenError,
    Lock,
    LockClient,
    LockHeldError,
    LockNotHeldError,
    LockServerError,
    LockStatus,
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


class LockKeyTests(unittest.TestCase):
    """lock_key gives the keys of the JVM's LockKeys.of; LockKeysTests asserts the same ones."""

    def test_values_are_escaped_and_joined_after_the_name(self):
        self.assertEqual("user:42", lock_client.lock_key("user", "42"))
        self.assertEqual("user:a\\:b", lock_client.lock_key("user", "a:b"))
        self.assertEqual("user:a\\\\\\:b", lock_client.lock_key("user", "a\\:b"))
        self.assertEqual("user:\\\\", lock_client.lock_key("user", "\\"))
        self.assertEqual("user:\u00fc\u20ac\U0001d11e\\:", lock_client.lock_key("user", "\u00fc\u20ac\U0001d11e:"))
        self.assertEqual("order:x\\:y:z", lock_client.lock_key("order", "x:y", "z"))
        self.assertEqual("order:x:y\\:z", lock_client.lock_key("order", "x", "y:z"))
        self.assertEqual("a:b:c", lock_client.lock_key("a:b", "c"))
        self.assertEqual("report", lock_client.lock_key("report"))

    def test_blank_or_non_string_parts_are_refused(self):
        for blank in ("", " ", "\t\n"):
            with self.assertRaises(ValueError):
                lock_client.lock_key("user", blank)
            with self.assertRaises(ValueError):
                lock_client.lock_key(blank, "42")
        for other in (None, 42, True):
            with self.assertRaises(TypeError):
                lock_client.lock_key("user", other)


class LockClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.url, cls.api_key, cls.namespace, cls.other_namespace = _config()

    def setUp(self):
        self.client = LockClient(self.url, self.api_key, self.namespace, timeout=10.0)
        self.addCleanup(self.client.close)
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
        self.addCleanup(impatient.close)
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
        self.addCleanup(stranger.close)
        with self.assertRaises(AuthenticationError) as raised:
            stranger.acquire(self.key())
        self.assertEqual(401, raised.exception.status)
        with self.assertRaises(AuthenticationError):
            stranger.status(self.key())
        self.assertNoSecrets(raised.exception, stranger, secrets=(bad_key,))

    def test_other_namespace_is_forbidden(self):
        outsider = LockClient(self.url, self.api_key, self.other_namespace)
        self.addCleanup(outsider.close)
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

    # -- connections ------------------------------------------------------------------------

    def test_calls_reuse_one_connection_that_the_server_keeps_alive(self):
        key = self.key()
        lock = self.acquire(key, ttl_millis=5000)
        first = self._idle_connection_port()
        self.assertTrue(self.client.status(key).held)
        lock.renew(ttl_millis=5000)
        lock.release()
        self.assertFalse(self.client.status(key).held)
        self.assertEqual(first, self._idle_connection_port(), "a call opened a new connection")
        self.client.close()
        self.assertEqual([], self.client._connections._idle)
        self.assertFalse(self.client.status(key).held)

    def _idle_connection_port(self):
        idle = self.client._connections._idle
        self.assertEqual(1, len(idle), "one connection kept open for the next call")
        return idle[0][0].sock.getsockname()[1]

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


# -- the transport, against servers of the tests' own ----------------------------------------

API_KEY = "test-api-key-" + uuid.uuid4().hex


def _status_document(key, padding=0):
    document = json.dumps({"namespace": "tests", "key": key, "held": False, "timeToExpiryMillis": 0})
    return (document + " " * padding).encode("utf-8")


def _read_request(connection):
    """Read one request (head and body) from ``connection``; return its head as text."""
    connection.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            return data.decode("latin-1")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = connection.recv(4096)
        if not chunk:
            break
        body += chunk
    return head.decode("latin-1")


class _HostileServer:
    """A TCP server on loopback that reads each request, then answers with ``behaviour(connection,
    stop)``, which may trickle, stall or flood; ``stop`` is set when the test ends."""

    def __init__(self, behaviour):
        self._behaviour = behaviour
        self.stop = threading.Event()
        self.requests = []
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.2)
        self.url = "http://127.0.0.1:%d" % self._listener.getsockname()[1]
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection):
        with connection:
            try:
                self.requests.append(_read_request(connection))
                self._behaviour(connection, self.stop)
            except OSError:
                pass  # the client went away, which is what several tests make it do

    def close(self):
        self.stop.set()
        for thread in list(self._threads):
            thread.join(10)
        self._listener.close()


class _TransportTestCase(unittest.TestCase):
    def serve(self, behaviour):
        server = _HostileServer(behaviour)
        self.addCleanup(server.close)
        return server

    def call_within(self, limit, function):
        """Run ``function`` in a thread; fail if it is still running after ``limit`` seconds.
        Returns a dict with ``value`` or ``error``, and ``elapsed`` (seconds)."""
        outcome = {}

        def run():
            started = time.monotonic()
            try:
                outcome["value"] = function()
            except BaseException as error:  # reported by the test's assertions
                outcome["error"] = error
            outcome["elapsed"] = time.monotonic() - started

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(limit)
        self.assertFalse(thread.is_alive(), "the call was still running after %s s" % limit)
        return outcome


class InsecureHttpTests(unittest.TestCase):
    """http:// sends the API key in clear text: only to loopback, unless told."""

    def test_http_to_a_host_that_is_not_loopback_is_refused_naming_the_argument(self):
        for url in (
            "http://locks.example.com",
            "http://10.0.0.5:8090",
            "http://192.168.1.20:8090/locks",
            "http://[2001:db8::1]:8090",
            "http://127.0.0.1.example.com",
            "http://localhost.example.com",
        ):
            with self.subTest(url=url):
                with self.assertRaises(ValueError) as raised:
                    LockClient(url, API_KEY, "tests")
                self.assertIn("allow_insecure_http=True", str(raised.exception))
                self.assertIn("https://", str(raised.exception))
                self.assertNotIn(API_KEY, str(raised.exception))

    def test_http_on_loopback_is_accepted(self):
        for url in (
            "http://127.0.0.1:8090",
            "http://127.8.9.10",
            "http://[::1]:8090/locks",
            "http://[::ffff:127.0.0.1]:8090",
            "http://localhost:8090",
            "http://LocalHost",
        ):
            with self.subTest(url=url):
                self.assertEqual(url.lower(), LockClient(url, API_KEY, "tests").base_url.lower())

    def test_http_to_any_host_is_accepted_when_told(self):
        client = LockClient("http://10.0.0.5:8090", API_KEY, "tests", allow_insecure_http=True)
        self.assertEqual("http://10.0.0.5:8090", client.base_url)

    def test_https_to_any_host_is_accepted(self):
        self.assertEqual("https://10.0.0.5", LockClient("https://10.0.0.5", API_KEY, "tests").base_url)

    def test_an_ssl_context_with_http_is_refused(self):
        with self.assertRaises(ValueError) as raised:
            LockClient("http://127.0.0.1:8090", API_KEY, "tests", ssl_context=ssl.create_default_context())
        self.assertIn("ssl_context", str(raised.exception))
        with self.assertRaises(TypeError):
            LockClient("https://127.0.0.1:8090", API_KEY, "tests", ssl_context="/etc/ssl/ca.pem")


class ResponseSizeTests(_TransportTestCase):
    """A lock answer is under 1 KiB: a larger one is refused, and not read past the bound."""

    def test_a_content_length_over_the_bound_is_refused_without_reading_the_body(self):
        def huge_and_stalled(connection, stop):
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000000\r\n\r\n{\"namespace\":"
            )
            stop.wait(30)  # the rest never comes: a client that waits for it times out

        server = self.serve(huge_and_stalled)
        client = LockClient(server.url, API_KEY, "tests", timeout=20.0)
        outcome = self.call_within(10, lambda: client.status("k"))
        error = outcome.get("error")
        self.assertIsInstance(error, lock_client.ResponseTooLargeError, outcome)
        self.assertIsInstance(error, http.client.HTTPException)
        self.assertIn("max_response_bytes=65536", str(error))
        self.assertIn("Content-Length: 1000000000", str(error))

    def test_a_body_over_the_bound_is_refused_after_the_bound_plus_one_byte(self):
        bound = 64 * 1024  # the default
        framings = {
            "until the connection closes": b"Connection: close\r\n\r\n" + b"x" * (bound + 1),
            "chunked": b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % (bound + 1) + b"x" * (bound + 1),
        }
        for framing, rest in framings.items():
            with self.subTest(framing=framing):

                def bound_plus_one_then_stalled(connection, stop, rest=rest):
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + rest)
                    stop.wait(30)  # neither the end nor another byte comes

                server = self.serve(bound_plus_one_then_stalled)
                client = LockClient(server.url, API_KEY, "tests", timeout=20.0)
                outcome = self.call_within(10, lambda: client.status("k"))
                error = outcome.get("error")
                self.assertIsInstance(error, lock_client.ResponseTooLargeError, outcome)
                self.assertIn("max_response_bytes=65536", str(error))

    def test_a_body_of_exactly_the_bound_is_read(self):
        bound = 1024
        body = _status_document("k", padding=bound - len(_status_document("k")))
        self.assertEqual(bound, len(body))

        def exactly_the_bound(connection, stop):
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % bound
                + body
            )

        server = self.serve(exactly_the_bound)
        client = LockClient(server.url, API_KEY, "tests", max_response_bytes=bound)
        self.addCleanup(client.close)
        self.assertEqual(LockStatus("tests", "k", False, 0), client.status("k"))

    def test_endless_interim_answers_are_cut(self):
        def endless_continues(connection, stop):
            while not stop.is_set():
                connection.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" * 64)

        server = self.serve(endless_continues)
        client = LockClient(server.url, API_KEY, "tests", timeout=20.0)
        outcome = self.call_within(10, lambda: client.status("k"))
        self.assertIsInstance(outcome.get("error"), lock_client.ResponseTooLargeError, outcome)


def _trickle(head, stop, connection, pause=0.1):
    """Send ``head``, then one byte every ``pause`` seconds until the client goes away."""
    connection.sendall(head)
    while not stop.wait(pause):
        connection.sendall(b"a")


class CallDeadlineTests(_TransportTestCase):
    """A server that trickles its answer cannot keep a call past call_timeout (plus its wait):
    each byte comes well within the socket timeout, so only a deadline ends the call."""

    def assertTimedOutAtTheDeadline(self, outcome, deadline):
        error = outcome.get("error")
        self.assertIsInstance(error, lock_client.CallTimeoutError, outcome)
        self.assertIsInstance(error, socket.timeout)
        self.assertIsInstance(error, TimeoutError)
        self.assertIn("call_timeout=1.5s", str(error))
        self.assertGreaterEqual(outcome["elapsed"], deadline - 0.1, "ended before its deadline")
        self.assertLess(outcome["elapsed"], deadline + 5, "ended long after its deadline")

    def test_a_server_trickling_its_head_cannot_hold_a_call(self):
        server = self.serve(lambda connection, stop: _trickle(b"HTTP/1.1 200 OK\r\nX-Slow: ", stop, connection))
        client = LockClient(server.url, API_KEY, "tests", timeout=1.0, call_timeout=1.5)
        self.assertTimedOutAtTheDeadline(self.call_within(15, lambda: client.status("k")), 1.5)

    def test_a_server_trickling_its_body_cannot_hold_a_call(self):
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        server = self.serve(lambda connection, stop: _trickle(head, stop, connection))
        client = LockClient(server.url, API_KEY, "tests", timeout=1.0, call_timeout=1.5)
        self.assertTimedOutAtTheDeadline(self.call_within(15, lambda: client.status("k")), 1.5)

    def test_renew_and_release_retry_a_call_cut_at_its_deadline_then_raise(self):
        server = self.serve(lambda connection, stop: _trickle(b"HTTP/1.1 204 No Content\r\nX: ", stop, connection))
        client = LockClient(server.url, API_KEY, "tests", timeout=1.0, retries=1, call_timeout=1.5)
        lock = Lock(client, "k", _random_token(), 1, None, 1000)
        outcome = self.call_within(20, lock.release)
        self.assertIsInstance(outcome.get("error"), lock_client.CallTimeoutError, outcome)
        self.assertEqual(2, len(server.requests))
        self.assertGreaterEqual(outcome["elapsed"], 2 * 1.5 - 0.1)

    def test_an_acquire_gets_its_wait_on_top_of_the_deadline(self):
        server = self.serve(lambda connection, stop: _trickle(b"HTTP/1.1 201 Created\r\nX-Slow: ", stop, connection))
        client = LockClient(server.url, API_KEY, "tests", timeout=1.0, call_timeout=1.5)
        outcome = self.call_within(15, lambda: client.acquire("k", wait_millis=1000))
        self.assertTimedOutAtTheDeadline(outcome, 2.5)

    def test_an_answer_that_comes_within_the_wait_is_not_cut(self):
        problem = json.dumps({"status": 409, "title": "Conflict", "timeToExpiryMillis": 500}).encode("utf-8")

        def answer_after_the_wait(connection, stop):
            stop.wait(2.0)  # longer than call_timeout, shorter than call_timeout + the wait
            connection.sendall(
                b"HTTP/1.1 409 Conflict\r\nContent-Type: application/problem+json\r\n"
                b"Retry-After: 1\r\nContent-Length: %d\r\n\r\n" % len(problem) + problem
            )

        server = self.serve(answer_after_the_wait)
        client = LockClient(server.url, API_KEY, "tests", timeout=0.5, call_timeout=0.5)
        outcome = self.call_within(15, lambda: client.acquire("k", wait_millis=3000))
        self.assertIsInstance(outcome.get("error"), LockHeldError, outcome)
        self.assertEqual(500, outcome["error"].time_to_expiry_millis)


class _KeepAliveServer:
    """A TCP server on loopback that answers any number of requests on each connection, with
    ``answer(connection, number)`` for the request of that number (from 1) on its connection,
    which returns whether to go on reading that connection. Records the connections and the
    request lines."""

    def __init__(self, answer):
        self._answer = answer
        self.connections = 0
        self.requests = []
        self.closed = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(8)
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self.url = "http://127.0.0.1:%d" % self._listener.getsockname()[1]
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connections += 1
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection):
        try:
            with connection:
                for number in range(1, 1000):
                    head = _read_request(connection)
                    if not head:
                        return
                    self.requests.append(head.split("\r\n", 1)[0])
                    if not self._answer(connection, number):
                        return
        except OSError:
            pass
        finally:
            self.closed.set()  # once the connection is closed

    def close(self):
        self._stop.set()
        for thread in list(self._threads):
            thread.join(10)
        self._listener.close()


def _answer(connection, method, close=False):
    """A lock server's answer to ``method``, optionally with ``Connection: close``."""
    if method == "DELETE":
        head, body = b"HTTP/1.1 204 No Content\r\n", b""
    elif method == "POST":
        body = json.dumps({"namespace": "tests", "key": "k", "ownerToken": _random_token(), "fencingToken": 1,
                           "expiresAt": "2030-01-01T00:00:00Z", "ttlMillis": 1000}).encode("utf-8")
        head = b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
    else:
        head, body = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", _status_document("k")
    extra = b"Connection: close\r\n" if close else b""
    connection.sendall(head + extra + b"Content-Length: %d\r\n\r\n" % len(body) + body)


class ConnectionReuseTests(unittest.TestCase):
    """Calls share a kept-alive connection while the server keeps it open, and go to a new one
    when it does not; only requests that are safe to repeat are sent again."""

    def serve(self, answer):
        server = _KeepAliveServer(answer)
        self.addCleanup(server.close)
        return server

    def client(self, server, **options):
        client = LockClient(server.url, API_KEY, "tests", timeout=5.0, **options)
        self.addCleanup(client.close)
        return client

    @staticmethod
    def method(server):
        return server.requests[-1].split(" ", 1)[0]

    def test_calls_share_one_connection_the_server_keeps_alive(self):
        server = self.serve(lambda connection, number: _answer(connection, self.method(server)) or True)
        client = self.client(server)
        lock = client.acquire("k")
        client.status("k")
        lock.renew()
        lock.release()
        self.assertEqual(["POST", "GET", "PUT", "DELETE"], [line.split(" ")[0] for line in server.requests])
        self.assertEqual(1, server.connections)

    def test_a_connection_the_server_closes_after_its_answer_is_not_used_again(self):
        def answer_and_close(connection, number):
            _answer(connection, self.method(server), close=True)
            return False

        server = self.serve(answer_and_close)
        client = self.client(server)
        for _ in range(3):
            client.acquire("k")
        self.assertEqual(3, server.connections)

    def test_an_idle_connection_the_server_closed_is_not_used_again_even_for_an_acquire(self):
        def answer_then_close_silently(connection, number):
            _answer(connection, self.method(server))
            return False  # as a server's idle timeout does, without saying so in the answer

        server = self.serve(answer_then_close_silently)
        client = self.client(server)
        client.status("k")
        self.assertTrue(server.closed.wait(10))
        client.acquire("k")
        self.assertEqual(["GET", "POST"], [line.split(" ")[0] for line in server.requests])
        self.assertEqual(2, server.connections)

    def test_keep_alive_bounds_how_long_a_connection_stays_idle(self):
        server = self.serve(lambda connection, number: _answer(connection, self.method(server)) or True)
        never = self.client(server, keep_alive=0)
        never.status("k")
        never.status("k")
        self.assertEqual(2, server.connections)
        briefly = self.client(server, keep_alive=0.2)
        briefly.status("k")
        briefly.status("k")
        self.assertEqual(3, server.connections)
        time.sleep(0.3)  # idle past keep_alive
        briefly.status("k")
        self.assertEqual(4, server.connections)

    def test_close_closes_the_idle_connections_and_the_client_stays_usable(self):
        server = self.serve(lambda connection, number: _answer(connection, self.method(server)) or True)
        with LockClient(server.url, API_KEY, "tests") as client:
            client.status("k")
        self.assertTrue(server.closed.wait(10), "the server did not see the connection closed")
        client.status("k")
        client.close()
        self.assertEqual(2, server.connections)

    def test_a_kept_connection_lost_as_the_request_goes_out_resends_a_status_but_not_an_acquire(self):
        def second_request_unanswered(connection, number):
            if number == 2:
                return False  # closed after reading the request, with no answer
            _answer(connection, self.method(server))
            return True

        server = self.serve(second_request_unanswered)
        client = self.client(server)
        client.status("k")
        self.assertEqual(LockStatus("tests", "k", False, 0), client.status("k"))
        self.assertEqual(["GET", "GET", "GET"], [line.split(" ")[0] for line in server.requests])
        self.assertEqual(2, server.connections)
        with self.assertRaises(ConnectionError):
            client.acquire("k")
        self.assertEqual(["GET", "GET", "GET", "POST"], [line.split(" ")[0] for line in server.requests])
        self.assertEqual(2, server.connections, "the acquire was sent again")

    def test_threads_do_not_share_a_connection_at_once(self):
        started = threading.Barrier(4, timeout=10)

        def slow_answer(connection, number):
            time.sleep(0.2)
            _answer(connection, "GET")
            return True

        server = self.serve(slow_answer)
        client = self.client(server)
        errors = []

        def call():
            try:
                started.wait()
                for _ in range(3):
                    client.status("k")
            except Exception as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        self.assertEqual([], errors)
        self.assertEqual(12, len(server.requests))
        self.assertLessEqual(server.connections, 4 + 4, "connections were not reused")
        self.assertGreaterEqual(server.connections, 2, "calls of several threads shared one connection at once")


def _openssl(*args, cwd):
    if shutil.which("openssl") is None:
        raise AssertionError("TlsTests make their certificates with openssl: install it (apt-get install openssl)")
    subprocess.run(("openssl",) + args, cwd=cwd, check=True, capture_output=True)


def _make_certificates(directory):
    """A private CA, and a server (127.0.0.1, localhost) and a client certificate it signed."""
    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(
        "req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=directory,
    )
    for name, usage, names in (
        ("server", "serverAuth", "subjectAltName=IP:127.0.0.1,DNS:localhost\n"),
        ("client", "clientAuth", ""),
    ):
        with open(os.path.join(directory, name + ".ext"), "w", encoding="ascii") as file:
            file.write(
                "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "extendedKeyUsage=%s\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n%s" % (usage, names)
            )
        _openssl("req", "-new", *key, "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name, cwd=directory)
        _openssl(
            "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext", cwd=directory,
        )


class _FakeLockServer(http.server.ThreadingHTTPServer):
    """Answers every GET with a free lock's status, over TLS; records the Authorization headers."""

    daemon_threads = True

    def __init__(self, context):
        super().__init__(("127.0.0.1", 0), _FakeLockHandler)
        self.socket = context.wrap_socket(self.socket, server_side=True)
        self.authorizations = []
        self.url = "https://127.0.0.1:%d" % self.server_address[1]
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    def close(self):
        self.shutdown()
        self.server_close()
        self._thread.join(10)


class _FakeLockHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.server.authorizations.append(self.headers.get("Authorization"))
        body = _status_document(self.path.rsplit("/", 1)[1])
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class TlsTests(unittest.TestCase):
    """https:// against a server whose certificate a private CA signed."""

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="lock-client-tls-")
        _make_certificates(cls.directory)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.directory, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.directory, name)

    def start_server(self, require_client_certificate=False):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.path("server.crt"), self.path("server.key"))
        if require_client_certificate:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.path("ca.crt"))
        server = _FakeLockServer(context)
        self.addCleanup(server.close)
        return server

    def trusting_the_ca(self):
        return ssl.create_default_context(cafile=self.path("ca.crt"))

    def test_a_private_ca_is_trusted_only_through_the_ssl_context(self):
        server = self.start_server()
        with self.assertRaises(ssl.SSLCertVerificationError):
            LockClient(server.url, API_KEY, "tests").status("k")
        self.assertEqual([], server.authorizations, "the API key was sent to an unverified server")

        client = LockClient(server.url, API_KEY, "tests", ssl_context=self.trusting_the_ca())
        self.addCleanup(client.close)
        self.assertEqual(LockStatus("tests", "k", False, 0), client.status("k"))
        self.assertEqual(["Bearer " + API_KEY], server.authorizations)

    def test_a_client_certificate_is_presented_from_the_ssl_context(self):
        server = self.start_server(require_client_certificate=True)
        with self.assertRaises((ssl.SSLError, ConnectionError)):
            LockClient(server.url, API_KEY, "tests", ssl_context=self.trusting_the_ca()).status("k")
        self.assertEqual([], server.authorizations, "a client without a certificate was served")

        with_certificate = self.trusting_the_ca()
        with_certificate.load_cert_chain(self.path("client.crt"), self.path("client.key"))
        client = LockClient(server.url, API_KEY, "tests", ssl_context=with_certificate)
        self.addCleanup(client.close)
        self.assertEqual(LockStatus("tests", "k", False, 0), client.status("k"))
        self.assertEqual(["Bearer " + API_KEY], server.authorizations)


if __name__ == "__main__":
    unittest.main()
