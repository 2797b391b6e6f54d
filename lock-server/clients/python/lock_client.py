"""A minimal client for the lock server's HTTP API (``/v1``), on the standard library only.

The lock server hands out distributed locks to processes that are not on the JVM. A lock is
named by a key inside a namespace; acquiring it returns an owner token that alone can renew
or release it, and a lock that is not renewed expires at the end of its time-to-live (TTL)::

    from lock_client import LockClient, LockHeldError

    client = LockClient("https://locks.example.com", api_key, "billing")
    with client.lock("invoice/42", ttl_millis=10_000, wait_millis=5_000) as lock:
        ...  # exclusive work; pass lock.fencing_token to the resource you write to

The contract is the server's OpenAPI document (``GET /v1/openapi.yaml``). Works with Python
3.9 and later; a client object may be shared between threads.

Connections
-----------
A client keeps its connections to the server open between calls (HTTP/1.1 keep-alive), each
used by one call at a time, so that a call usually costs no TCP (or TLS) handshake. A connection
idle for longer than ``keep_alive`` seconds is not used again, and neither is one the server has
closed (it says so with ``Connection: close``, or closes an idle one): the next call opens a new
connection. ``keep_alive=0`` opens one connection per call. :meth:`LockClient.close` (or
``with LockClient(...) as client:``) closes the idle connections; a process that forks does not
use its parent's.

Errors
------
Every error answer of the server raises a :class:`LockServerError`, or one of its subclasses
for the answers a caller acts on: :class:`LockHeldError` (409 on acquire),
:class:`NotOwnerError` (409 on renew or release), :class:`LockNotHeldError` (410),
:class:`AuthenticationError` (401), :class:`ForbiddenError` (403), :class:`RateLimitedError`
(429) and :class:`StoreUnavailableError` (503). A failure of the transport (no connection, a
reset, a timeout) raises what the standard library raised: an :class:`OSError`
(``TimeoutError``/``socket.timeout``, ``ConnectionError``, ``ssl.SSLError``...) or an
``http.client.HTTPException`` (a malformed or cut answer). Two of them are the client's own:
:class:`CallTimeoutError` (a ``socket.timeout``, so also a ``TimeoutError``) when a call runs
past its deadline, and :class:`ResponseTooLargeError` (an ``HTTPException``) when an answer is
larger than ``max_response_bytes``. Messages and representations never contain the API key or
an owner token.

Transport security
------------------
``https://`` URLs are verified against the system's certificate authorities, or against the
``ssl_context`` given (a private CA, a client certificate). ``http://`` sends the API key and
owner tokens in clear text, so the client refuses it unless the host is a loopback address
(``127.0.0.0/8``, ``::1``, ``localhost``) or ``allow_insecure_http=True`` is passed.

Timeouts and retries
--------------------
``timeout`` bounds every blocking socket operation, and ``call_timeout`` the whole call, from
connecting to the last byte of the answer: a server that trickles its answer a byte at a time
cannot hold a call past its deadline. An acquire that waits for a held lock (``wait_millis``)
is a long poll: both bounds get the wait on top, so a wait that ends normally answers 409
instead of timing out on the client. Name resolution (DNS) is the one step that only the
system's resolver bounds.

The client retries nothing that is unsafe to repeat. On a timeout or a lost connection (a
mobile app changing networks, say) the outcome of the request is *unknown*:

* **acquire** may have succeeded on the server, whose answer (and owner token) was lost. A new
  acquire is a new request: it can find the lock held by that lost acquisition, which nobody
  can renew or release, until its TTL ends. So use short TTLs (renew long work instead of
  asking for a long TTL), treat a timed-out acquire as "unknown", and retry the acquire with a
  ``wait_millis`` no longer than the TTL: the retry then either gets the lock at once or when
  the lost acquisition expires, and a 409 after such a wait means someone else really holds it.
* **renew** and **release** name the lock by the owner token, so repeating them is safe
  (idempotent). :meth:`Lock.renew` and :meth:`Lock.release` retry a transport failure
  ``retries`` times (once by default) with the same token. A 410 answer to a *retried*
  release means the lock is not held any more, which is what was asked: it is not an error.
  Any other answer to a retry is reported as it is.

A kept-alive connection can turn out to be closed by the server only when a request is sent on
it. Status, renew and release are then sent again, once, on a new connection; an acquire is not
(it fails as any lost connection does), which is why a connection is not kept past
``keep_alive``, a bound below the idle timeout of the server (and of any proxy before it).

When acquire answers 409 or 429, ``retry_after`` (seconds) says when trying again makes sense.
"""

import datetime
import email.utils
import http.client
import io
import ipaddress
import json
import os
import re
import select
import socket
import ssl
import threading
import time
import urllib.parse

__all__ = [
    "lock_key",
    "LockClient",
    "Lock",
    "LockStatus",
    "LockServerError",
    "LockHeldError",
    "NotOwnerError",
    "LockNotHeldError",
    "AuthenticationError",
    "ForbiddenError",
    "RateLimitedError",
    "StoreUnavailableError",
    "CallTimeoutError",
    "ResponseTooLargeError",
]

_OWNER_TOKEN_HEADER = "Lock-Owner-Token"

_USER_AGENT = "lock-client-python/1"

_DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024

# Idle connections kept for reuse, at most; more callers at once than this open more, and close
# them after their call.
_MAX_IDLE_CONNECTIONS = 16

# Room for the status line, the headers and the chunk framing of an answer, on top of its body.
_HEAD_BYTES = 32 * 1024

# socket.timeout is TimeoutError from Python 3.10; on 3.9 the client's timeout is both.
_TIMEOUT_BASES = (socket.timeout,) if issubclass(socket.timeout, TimeoutError) else (socket.timeout, TimeoutError)


class CallTimeoutError(*_TIMEOUT_BASES):
    """A call did not complete within its deadline (``call_timeout``, plus the wait of an
    acquire); the outcome is unknown, as for any other timeout."""


class ResponseTooLargeError(http.client.HTTPException):
    """The server's answer is larger than ``max_response_bytes`` (by its ``Content-Length`` or
    by the bytes that came); the client stopped reading it and the outcome is unknown."""


class LockServerError(Exception):
    """An error answer of the lock server.

    Attributes:
        status: the HTTP status code.
        problem: the RFC 9457 problem the server sent (a dict, empty if the body was not one).
        retry_after: the ``Retry-After`` header in whole seconds, or ``None`` when absent.
    """

    def __init__(self, status, problem=None, retry_after=None, message=None):
        self.status = status
        self.problem = dict(problem) if problem else {}
        self.retry_after = retry_after
        if message is None:
            message = _describe(status, self.problem)
        super().__init__(message)

    def __repr__(self):
        return "%s(status=%r, message=%r)" % (type(self).__name__, self.status, str(self))


class LockHeldError(LockServerError):
    """The lock is held by another owner (409 on acquire), also after the wait if one was asked.

    Attributes:
        retry_after: seconds until the holder's TTL ends (at least 1), or ``None``.
        time_to_expiry_millis: the holder's remaining TTL in milliseconds, or ``None``.
    """

    @property
    def time_to_expiry_millis(self):
        value = self.problem.get("timeToExpiryMillis")
        return value if isinstance(value, int) else None


class NotOwnerError(LockServerError):
    """The lock is held under another owner token (409 on renew or release); nothing changed."""


class LockNotHeldError(LockServerError):
    """The lock is not held: it expired or was released (410); nothing changed."""


class AuthenticationError(LockServerError):
    """The API key is missing or unknown to the server (401)."""


class ForbiddenError(LockServerError):
    """The API key is valid but bound to another namespace (403)."""


class RateLimitedError(LockServerError):
    """The API key's rate limit is spent (429); ``retry_after`` says for how many seconds."""


class StoreUnavailableError(LockServerError):
    """The server's lock store did not answer in time (503); the outcome is unknown."""


_ERRORS_BY_STATUS = {
    401: AuthenticationError,
    403: ForbiddenError,
    410: LockNotHeldError,
    429: RateLimitedError,
    503: StoreUnavailableError,
}


def lock_key(name, *values):
    """The key that a JVM application builds for the lock ``name`` on ``values``.

    It is the key of ``@ExclusiveRequest(name = name, key = ...)`` and of ``LockKeys.of(name,
    values...)``: the name as given, then each value after a ``:``, with ``\\`` in a value
    written ``\\\\`` and ``:`` written ``\\:``. Without values it is the name alone. In a
    namespace that shares the applications' keys (``shares-application-keys``), a lock on
    ``lock_key("user", user_id)`` excludes the annotated methods of that user. A key written by
    hand, ``"user:" + user_id``, is another key when the id contains ``:`` or ``\\``.

    Values are strings: convert others as the application's ``toString()`` does (``str(True)``
    is ``"True"``, Java's ``"true"``).

    Raises:
        ValueError: the name or a value is empty or only whitespace.
        TypeError: the name or a value is not a string.
    """
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    if not name.strip():
        raise ValueError("name must not be blank")
    parts = [name]
    for index, value in enumerate(values):
        if not isinstance(value, str):
            raise TypeError("value %d must be a string, as the application's toString() writes it" % index)
        if not value.strip():
            raise ValueError("value %d is blank, which names no lock" % index)
        parts.append(value.replace("\\", "\\\\").replace(":", "\\:"))
    return ":".join(parts)


def _describe(status, problem):
    title = problem.get("title") or http.client.responses.get(status, "Error")
    detail = problem.get("detail")
    text = "%d %s" % (status, title)
    return "%s: %s" % (text, detail) if detail else text


class LockStatus:
    """Whether a lock is held, as answered by :meth:`LockClient.status`.

    Attributes:
        namespace: the lock's namespace.
        key: the lock's key.
        held: whether some owner holds the lock.
        time_to_expiry_millis: how long the lock is still held, 0 when it is free.
    """

    __slots__ = ("namespace", "key", "held", "time_to_expiry_millis")

    def __init__(self, namespace, key, held, time_to_expiry_millis):
        self.namespace = namespace
        self.key = key
        self.held = held
        self.time_to_expiry_millis = time_to_expiry_millis

    def __eq__(self, other):
        if not isinstance(other, LockStatus):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __repr__(self):
        return "LockStatus(namespace=%r, key=%r, held=%r, time_to_expiry_millis=%r)" % (
            self.namespace,
            self.key,
            self.held,
            self.time_to_expiry_millis,
        )


class Lock:
    """A lock acquired by :meth:`LockClient.acquire`.

    Attributes:
        key: the lock's key.
        owner_token: the proof of ownership, sent to renew and release. Keep it secret: it is
            never shown in this object's representation.
        fencing_token: strictly increases across the owners of a key (0 if the server's store
            issues none); pass it to the resource the lock protects to reject stale writers.
        expires_at: until when the lock may be relied on unless renewed (an aware UTC
            ``datetime``, by the server's clock: the time-to-live less the server's loss
            margin), updated by :meth:`renew`.
        ttl_millis: the time-to-live of the last acquisition or renewal.
    """

    def __init__(self, client, key, owner_token, fencing_token, expires_at, ttl_millis):
        self._client = client
        self.key = key
        self.owner_token = owner_token
        self.fencing_token = fencing_token
        self.expires_at = expires_at
        self.ttl_millis = ttl_millis

    def renew(self, ttl_millis=None):
        """Reset the lock's time-to-live, counted from now.

        Args:
            ttl_millis: the new TTL; the server's default TTL when ``None``.

        Returns:
            this lock, with ``expires_at`` and ``ttl_millis`` updated.

        Raises:
            NotOwnerError: another owner holds the lock (this one expired before); nothing changed.
            LockNotHeldError: the lock is not held any more (it expired); nothing changed.
            LockServerError: another error answer.
            OSError, http.client.HTTPException: the transport failed also on the retries; the outcome is unknown.
        """
        body = _ttl_body(ttl_millis, None)
        _, answer, _ = self._client._call_with_retries(
            "PUT", self.key, body, self.owner_token, op="renew"
        )
        self.expires_at = _parse_instant(answer.get("expiresAt"))
        self.ttl_millis = answer.get("ttlMillis")
        return self

    def release(self):
        """Release the lock; waiters on any server instance are woken.

        A transport failure is retried with the same token; a 410 answer to such a retry means
        the lock was released (or expired), and returns normally.

        Raises:
            NotOwnerError: another owner holds the lock (this one expired before); nothing changed.
            LockNotHeldError: the lock was not held any more (it expired) at the first attempt.
            LockServerError: another error answer.
            OSError, http.client.HTTPException: the transport failed also on the retries; the outcome is unknown.
        """
        self._client._call_with_retries(
            "DELETE", self.key, None, self.owner_token, op="release"
        )

    def __repr__(self):
        return "Lock(key=%r, fencing_token=%r, expires_at=%r, ttl_millis=%r)" % (
            self.key,
            self.fencing_token,
            self.expires_at,
            self.ttl_millis,
        )


class _LockContext:
    """Acquires on enter, releases on exit; see :meth:`LockClient.lock`."""

    def __init__(self, client, key, ttl_millis, wait_millis):
        self._client = client
        self._key = key
        self._ttl_millis = ttl_millis
        self._wait_millis = wait_millis
        self._lock = None

    def __enter__(self):
        self._lock = self._client.acquire(self._key, self._ttl_millis, self._wait_millis)
        return self._lock

    def __exit__(self, exc_type, exc, tb):
        lock, self._lock = self._lock, None
        if lock is None:
            return False
        if exc_type is None:
            lock.release()
            return False
        try:
            lock.release()
        except Exception as release_error:  # the body's exception matters more
            if hasattr(exc, "add_note"):  # Python 3.11+
                exc.add_note("releasing lock %r also failed: %s" % (lock.key, release_error))
        return False

    def __repr__(self):
        return "_LockContext(key=%r)" % (self._key,)


class LockClient:
    """A client of one lock server, for the locks of one namespace.

    Args:
        base_url: the server's URL, such as ``https://locks.example.com`` (a path prefix is
            kept: ``https://example.com/locks`` calls ``https://example.com/locks/v1/...``).
            ``http://`` is refused unless the host is a loopback address or
            ``allow_insecure_http`` is true.
        api_key: the API key, sent as ``Authorization: Bearer <api key>``; never shown in
            messages or representations.
        namespace: the namespace the API key is bound to.
        timeout: the timeout, in seconds, of each blocking socket operation; an acquire with a
            wait gets the wait on top of it.
        retries: how many times renew and release repeat a request whose transport failed.
        ssl_context: the ``ssl.SSLContext`` that verifies ``https://`` servers (for a private
            CA, or to present a client certificate); by default the system's trusted CAs, with
            host name checks. Only for ``https://`` URLs.
        allow_insecure_http: whether an ``http://`` URL may name a host that is not a loopback
            address, sending the API key and owner tokens in clear text over the network.
        max_response_bytes: the largest answer body read; a larger one raises
            :class:`ResponseTooLargeError` (lock answers are well under 1 KiB).
        call_timeout: the most time, in seconds, one call may take from connecting to the last
            byte of the answer; an acquire with a wait gets the wait on top of it. Renew and
            release give each attempt this time.
        keep_alive: how long, in seconds, an idle connection is kept to be used again; keep it
            below the idle timeout of the server and of any proxy in front of it. ``0`` opens
            a new connection for every call.
    """

    def __init__(
        self,
        base_url,
        api_key,
        namespace,
        timeout=10.0,
        retries=1,
        *,
        ssl_context=None,
        allow_insecure_http=False,
        max_response_bytes=_DEFAULT_MAX_RESPONSE_BYTES,
        call_timeout=15.0,
        keep_alive=4.0,
    ):
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("base_url must be an http or https URL, such as https://host:port")
        if not api_key:
            raise ValueError("api_key is required")
        if not namespace:
            raise ValueError("namespace is required")
        if parts.scheme == "http" and not allow_insecure_http and not _is_loopback(parts.hostname):
            raise ValueError(
                "base_url is http:// to %r, which is not a loopback address: the API key and owner "
                "tokens would cross the network in clear text. Use https://, or pass "
                "allow_insecure_http=True if the network is trusted" % (parts.hostname,)
            )
        if ssl_context is not None:
            if not isinstance(ssl_context, ssl.SSLContext):
                raise TypeError("ssl_context must be an ssl.SSLContext")
            if parts.scheme != "https":
                raise ValueError("ssl_context is only used with an https:// base_url")
        if isinstance(max_response_bytes, bool) or not isinstance(max_response_bytes, int) or max_response_bytes < 1:
            raise ValueError("max_response_bytes must be a positive integer")
        if not float(call_timeout) > 0:
            raise ValueError("call_timeout must be a positive number of seconds")
        if not float(keep_alive) >= 0:
            raise ValueError("keep_alive must be 0 or a positive number of seconds")
        self._scheme = parts.scheme
        self._netloc = parts.netloc.rpartition("@")[2]
        self._prefix = parts.path.rstrip("/")
        self._api_key = api_key
        self._ssl_context = None
        if self._scheme == "https":
            self._ssl_context = ssl_context if ssl_context is not None else ssl.create_default_context()
        self.base_url = "%s://%s%s" % (self._scheme, self._netloc, self._prefix)
        self.namespace = namespace
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.max_response_bytes = max_response_bytes
        self.call_timeout = float(call_timeout)
        self.keep_alive = float(keep_alive)
        self._connections = _IdleConnections(self.keep_alive)

    def close(self):
        """Close the connections kept open for reuse. The client stays usable: a later call
        opens a new connection."""
        self._connections.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def acquire(self, key, ttl_millis=None, wait_millis=None):
        """Acquire the lock, waiting for it up to ``wait_millis`` if it is held.

        The wait is a long poll: the call returns as soon as the holder releases the lock, on
        any server instance. It is not retried on a timeout (see the module's documentation).

        Args:
            key: the lock's key (any non-empty string; it is percent-encoded).
            ttl_millis: the time-to-live; the server's default when ``None``.
            wait_millis: how long to wait for a held lock; no wait when ``None`` or 0.

        Returns:
            the acquired :class:`Lock`.

        Raises:
            LockHeldError: another owner holds the lock (also after the wait).
            LockServerError: another error answer.
            OSError, http.client.HTTPException: the transport failed; the outcome is unknown.
        """
        body = _ttl_body(ttl_millis, wait_millis)
        _, answer, _ = self._call("POST", key, body, None, op="acquire", wait_millis=wait_millis)
        return Lock(
            self,
            answer.get("key", key),
            answer["ownerToken"],
            answer.get("fencingToken"),
            _parse_instant(answer.get("expiresAt")),
            answer.get("ttlMillis"),
        )

    def lock(self, key, ttl_millis=None, wait_millis=None):
        """A context manager that acquires the lock on enter and releases it on exit.

        ``with client.lock(key) as lock:`` binds the :class:`Lock`. If the body raises, a
        failure to release does not hide the body's exception (on Python 3.11+ it is added as
        a note to it). If the body completes, a failure to release is raised: a
        :class:`LockNotHeldError` or :class:`NotOwnerError` then means the lock expired during
        the body, which was therefore not sure to be exclusive until its end.
        """
        return _LockContext(self, key, ttl_millis, wait_millis)

    def status(self, key):
        """Whether the lock is held, and for how long; never reveals the owner.

        Returns:
            a :class:`LockStatus`.

        Raises:
            LockServerError: an error answer.
            OSError, http.client.HTTPException: the transport failed.
        """
        _, answer, _ = self._call("GET", key, None, None, op="status")
        return LockStatus(
            answer.get("namespace", self.namespace),
            answer.get("key", key),
            bool(answer.get("held")),
            answer.get("timeToExpiryMillis", 0),
        )

    def __repr__(self):
        return "LockClient(base_url=%r, namespace=%r)" % (self.base_url, self.namespace)

    # -- transport --------------------------------------------------------------------------

    def _path(self, key):
        if not isinstance(key, str) or not key:
            raise ValueError("key must be a non-empty string")
        return "%s/v1/namespaces/%s/locks/%s" % (
            self._prefix,
            urllib.parse.quote(self.namespace, safe=""),
            urllib.parse.quote(key, safe="", encoding="utf-8"),
        )

    def _call_with_retries(self, method, key, body, owner_token, op):
        attempt = 0
        while True:
            try:
                return self._call(method, key, body, owner_token, op=op)
            except LockNotHeldError:
                if attempt > 0 and op == "release":
                    return 410, {}, None  # an earlier attempt released it, or it expired
                raise
            except (OSError, http.client.HTTPException):
                if attempt >= self.retries:
                    raise
                attempt += 1

    def _call(self, method, key, body, owner_token, op, wait_millis=None):
        wait = (wait_millis or 0) / 1000.0
        budget = _Budget(
            time.monotonic() + self.call_timeout + wait,
            self.timeout + wait,
            self.call_timeout,
            self.max_response_bytes,
        )
        headers = {
            "Authorization": "Bearer " + self._api_key,
            "Accept": "application/json, application/problem+json",
            "User-Agent": _USER_AGENT,
        }
        payload = None
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if owner_token is not None:
            headers[_OWNER_TOKEN_HEADER] = owner_token
        path = self._path(key)
        status, raw, retry_after = self._send(budget, method, path, payload, headers)
        document = _parse_json(raw)
        if 200 <= status < 300:
            return status, document if isinstance(document, dict) else {}, retry_after
        raise self._error(status, document, retry_after, op, owner_token)

    def _send(self, budget, method, path, payload, headers):
        """The status, body and Retry-After of the answer, on a kept-alive connection if one
        is idle, else on a new one."""
        connection = self._connections.take()
        if connection is not None:
            connection.bind(budget)
            try:
                return self._exchange(connection, budget, method, path, payload, headers)
            except _Dropped as dropped:
                # The server closed the idle connection as the request went out. Only a request
                # that is safe to repeat is sent again; an acquire may have been read.
                if method == "POST":
                    raise dropped.error from None
        connection = self._new_connection(budget)
        try:
            return self._exchange(connection, budget, method, path, payload, headers)
        except _Dropped as dropped:
            raise dropped.error from None

    def _new_connection(self, budget):
        if self._scheme == "https":
            connection = _BoundedHTTPSConnection(self._netloc, budget, context=self._ssl_context)
        else:
            connection = _BoundedHTTPConnection(self._netloc, budget)
        try:
            connection.connect()
        except BaseException:
            connection.close()
            raise
        return connection

    def _exchange(self, connection, budget, method, path, payload, headers):
        """Send one request on ``connection`` and read its answer; the connection goes back to
        the idle ones only when the answer was read to its end and the server keeps it open.
        Raises :class:`_Dropped` when the connection fails before any byte of the answer."""
        reusable = False
        try:
            try:
                connection.request(method, path, body=payload, headers=headers)
                response = connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                raise _Dropped(error) from None
            try:
                raw = _read_body(response, budget)
                status = response.status
                retry_after = _parse_retry_after(response.getheader("Retry-After"))
                reusable = response.isclosed() and not response.will_close
            finally:
                response.close()
        finally:
            if reusable:
                self._connections.put(connection)
            else:
                connection.close()
        return status, raw, retry_after

    def _error(self, status, document, retry_after, op, owner_token):
        problem = document if isinstance(document, dict) else {}
        if status == 409:
            error_type = LockHeldError if op == "acquire" else NotOwnerError
        else:
            error_type = _ERRORS_BY_STATUS.get(status, LockServerError)
        message = _describe(status, problem)
        for secret in (self._api_key, owner_token):  # the server promises not to echo them
            if secret:
                message = message.replace(secret, "***")
        return error_type(status, problem, retry_after, message)


def _is_loopback(host):
    """Whether ``host`` (a URL's host name, without brackets) is ``localhost`` or a loopback
    address: 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


class _Budget:
    """The deadline and the byte allowance of one call."""

    def __init__(self, deadline, operation_timeout, call_timeout, max_response_bytes):
        self.deadline = deadline
        self.operation_timeout = operation_timeout
        self.call_timeout = call_timeout
        self.max_response_bytes = max_response_bytes

    def socket_timeout(self):
        """The timeout of the next socket operation: the smaller of the per-operation timeout
        and the time left; raises :class:`CallTimeoutError` when none is left."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self.expired()
        return min(self.operation_timeout, remaining)

    def check(self):
        self.socket_timeout()

    def is_over(self):
        return time.monotonic() >= self.deadline

    def expired(self):
        return CallTimeoutError(
            "the lock server's answer did not complete within the call's deadline "
            "(call_timeout=%gs, plus the acquire's wait if any)" % self.call_timeout
        )

    def too_large(self, detail):
        return ResponseTooLargeError(
            "the lock server's answer is larger than max_response_bytes=%d (%s); the client "
            "stopped reading it"
            % (self.max_response_bytes, detail)
        )


def _connect(address, budget, source_address):
    """socket.create_connection, with each attempt bounded by the call's time left."""
    host, port = address
    last_error = None
    for family, kind, protocol, _, target in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
        sock = None
        try:
            sock = socket.socket(family, kind, protocol)
            sock.settimeout(budget.socket_timeout())
            if source_address:
                sock.bind(source_address)
            sock.connect(target)
            sock.settimeout(budget.socket_timeout())  # the TLS handshake's bound, as a whole
            return sock
        except OSError as error:
            if sock is not None:
                sock.close()
            if isinstance(error, CallTimeoutError):
                raise
            if budget.is_over():
                raise budget.expired() from error
            last_error = error
    if last_error is None:
        raise OSError("getaddrinfo returned no address for %r" % (host,))
    raise last_error


class _Dropped(Exception):
    """A connection failed before any byte of the answer came: ``error`` is what failed."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


class _IdleConnections:
    """The connections kept open between calls, newest last; each is in use by one call at a
    time, taken out of here for the call. A connection idle for more than ``keep_alive``
    seconds, or one the server has closed (readable while idle: its end of the stream, or
    bytes nobody asked for), is closed instead of being handed out. Connections of another
    process (the parent before a fork) are let go without being used or closed."""

    def __init__(self, keep_alive):
        self._keep_alive = keep_alive
        self._lock = threading.Lock()
        self._idle = []
        self._pid = os.getpid()

    def take(self):
        while True:
            with self._lock:
                if self._pid != os.getpid():
                    self._idle, self._pid = [], os.getpid()
                if not self._idle:
                    return None
                connection, idle_since = self._idle.pop()
            if time.monotonic() - idle_since < self._keep_alive and not _is_dropped(connection):
                return connection
            connection.close()

    def put(self, connection):
        if self._keep_alive <= 0:
            connection.close()
            return
        with self._lock:
            if self._pid == os.getpid():
                self._idle.append((connection, time.monotonic()))
                connection = None
                if len(self._idle) > _MAX_IDLE_CONNECTIONS:
                    connection, _ = self._idle.pop(0)
        if connection is not None:
            connection.close()

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.close()


def _is_dropped(connection):
    """Whether an idle connection is closed: nothing is due on it, so anything to read (the
    end of the stream included) means it cannot carry another request."""
    sock = connection.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class _BoundedConnectionMixin:
    """Gives every socket operation of an ``http.client`` connection the time left of the
    call's deadline, and reads the answer through a :class:`_BoundedReader`."""

    def bind(self, budget):
        """Give the next request on this connection the deadline and allowance of ``budget``."""
        self.timeout = budget.socket_timeout()
        self._bound(budget)

    def _bound(self, budget):
        self._budget = budget
        self._create_connection = lambda address, timeout, source: _connect(address, budget, source)
        self.response_class = lambda sock, **options: _BoundedResponse(sock, budget, **options)

    def connect(self):
        super().connect()
        self._budget.check()

    def send(self, data):
        if self.sock is not None:
            self.sock.settimeout(self._budget.socket_timeout())
        super().send(data)


class _BoundedHTTPConnection(_BoundedConnectionMixin, http.client.HTTPConnection):
    def __init__(self, netloc, budget):
        super().__init__(netloc, timeout=budget.socket_timeout())
        self._bound(budget)


class _BoundedHTTPSConnection(_BoundedConnectionMixin, http.client.HTTPSConnection):
    def __init__(self, netloc, budget, context):
        super().__init__(netloc, timeout=budget.socket_timeout(), context=context)
        self._bound(budget)


class _BoundedReader(io.RawIOBase):
    """Reads a socket with the call's time left as the timeout of each read, and at most the
    answer's byte allowance (``max_response_bytes`` plus room for the head) in all."""

    def __init__(self, sock, budget, socket_file):
        super().__init__()
        self._sock = sock
        self._budget = budget
        self._allowance = budget.max_response_bytes + 1 + _HEAD_BYTES
        # Holds the socket open, as http.client's own reader would, after the connection lets
        # go of it (it does so at once when the answer is delimited by the end of the stream).
        self._socket_file = socket_file

    def close(self):
        if not self.closed:
            self._socket_file.close()
        super().close()

    def readable(self):
        return True

    def readinto(self, buffer):
        if self._allowance <= 0:
            raise self._budget.too_large(
                "its status line and headers, with any interim answers and chunk framing, "
                "came to more than %d bytes" % _HEAD_BYTES
            )
        self._sock.settimeout(self._budget.socket_timeout())
        view = memoryview(buffer)[: self._allowance]
        try:
            count = self._sock.recv_into(view)
        except socket.timeout:
            if self._budget.is_over():
                raise self._budget.expired() from None
            raise
        self._allowance -= count
        return count


class _BoundedResponse(http.client.HTTPResponse):
    def __init__(self, sock, budget, **options):
        super().__init__(sock, **options)
        self.fp = io.BufferedReader(_BoundedReader(sock, budget, self.fp))


def _read_body(response, budget):
    """The answer's body, refused by its Content-Length or after max_response_bytes + 1 bytes."""
    limit = budget.max_response_bytes
    if response.length is not None and response.length > limit:
        raise budget.too_large("Content-Length: %d" % response.length)
    chunks = []
    size = 0
    while size <= limit:
        chunk = response.read(limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise budget.too_large("more than %d bytes of body came" % limit)
    return b"".join(chunks)


def _ttl_body(ttl_millis, wait_millis):
    body = {}
    if ttl_millis is not None:
        body["ttlMillis"] = int(ttl_millis)
    if wait_millis is not None:
        body["waitMillis"] = int(wait_millis)
    return body or None


def _parse_json(raw):
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError:
        return None


def _parse_retry_after(value):
    """Retry-After in whole seconds (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    delta = (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    return max(0, int(delta + 0.999))


_INSTANT = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def _parse_instant(text):
    """An RFC 3339 date-time (such as Java's ``Instant``, with up to 9 fraction digits) as an
    aware ``datetime`` in UTC, or None when absent or unreadable."""
    if not isinstance(text, str):
        return None
    match = _INSTANT.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    micros = int((match.group(7) or "0")[:6].ljust(6, "0"))
    offset = datetime.timedelta(0)
    if match.group(9):
        offset = datetime.timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        if match.group(9) == "-":
            offset = -offset
    value = datetime.datetime(
        year, month, day, hour, minute, min(second, 59), micros, datetime.timezone(offset)
    )
    return value.astimezone(datetime.timezone.utc)
