"""A minimal client for the lock server's HTTP API (``/v1``), on the standard library only.

The lock server hands out distributed locks to processes that are not on the JVM. A lock is
named by a key inside a namespace; acquiring it returns an owner token that alone can renew
or release it, and a lock that is not renewed expires at the end of its time-to-live (TTL)::

    from lock_client import LockClient, LockHeldError

    client = LockClient("https://locks.example.com", api_key, "billing")
    with client.lock("invoice/42", ttl_millis=10_000, wait_millis=5_000) as lock:
        ...  # exclusive work; pass lock.fencing_token to the resource you write to

The contract is the server's OpenAPI document (``GET /v1/openapi.yaml``). Works with Python
3.9 and later; a client object keeps no connection open and may be shared between threads.

Errors
------
Every error answer of the server raises a :class:`LockServerError`, or one of its subclasses
for the answers a caller acts on: :class:`LockHeldError` (409 on acquire),
:class:`NotOwnerError` (409 on renew or release), :class:`LockNotHeldError` (410),
:class:`AuthenticationError` (401), :class:`ForbiddenError` (403), :class:`RateLimitedError`
(429) and :class:`StoreUnavailableError` (503). A failure of the transport (no connection, a
reset, a timeout) raises what the standard library raised: an :class:`OSError`
(``TimeoutError``/``socket.timeout``, ``ConnectionError``, ``ssl.SSLError``...) or an
``http.client.HTTPException`` (a malformed or cut answer). Messages and
representations never contain the API key or an owner token.

Timeouts and retries
--------------------
``timeout`` bounds every blocking socket operation. An acquire that waits for a held lock
(``wait_millis``) is a long poll: its socket timeout is the wait plus ``timeout``, so a wait
that ends normally answers 409 instead of timing out on the client.

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

When acquire answers 409 or 429, ``retry_after`` (seconds) says when trying again makes sense.
"""

import datetime
import email.utils
import http.client
import json
import re
import urllib.parse

__all__ = [
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
]

_OWNER_TOKEN_HEADER = "Lock-Owner-Token"

_USER_AGENT = "lock-client-python/1"


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
        expires_at: when the lock expires unless renewed (an aware UTC ``datetime``, by the
            server's clock), updated by :meth:`renew`.
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
        api_key: the API key, sent as ``Authorization: Bearer <api key>``; never shown in
            messages or representations.
        namespace: the namespace the API key is bound to.
        timeout: the timeout, in seconds, of each blocking socket operation; an acquire with a
            wait gets the wait on top of it.
        retries: how many times renew and release repeat a request whose transport failed.
    """

    def __init__(self, base_url, api_key, namespace, timeout=10.0, retries=1):
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("base_url must be an http or https URL, such as https://host:port")
        if not api_key:
            raise ValueError("api_key is required")
        if not namespace:
            raise ValueError("namespace is required")
        self._scheme = parts.scheme
        self._netloc = parts.netloc.rpartition("@")[2]
        self._prefix = parts.path.rstrip("/")
        self._api_key = api_key
        self.base_url = "%s://%s%s" % (self._scheme, self._netloc, self._prefix)
        self.namespace = namespace
        self.timeout = float(timeout)
        self.retries = int(retries)

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
        timeout = self.timeout + (wait_millis or 0) / 1000.0
        _, answer, _ = self._call("POST", key, body, None, op="acquire", timeout=timeout)
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

    def _call(self, method, key, body, owner_token, op, timeout=None):
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
        if self._scheme == "https":
            connection_type = http.client.HTTPSConnection
        else:
            connection_type = http.client.HTTPConnection
        connection = connection_type(self._netloc, timeout=self.timeout if timeout is None else timeout)
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            status = response.status
            retry_after = _parse_retry_after(response.getheader("Retry-After"))
        finally:
            connection.close()
        document = _parse_json(raw)
        if 200 <= status < 300:
            return status, document if isinstance(document, dict) else {}, retry_after
        raise self._error(status, document, retry_after, op, owner_token)

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
