# Sourced by the release scripts: when gpg has no secret key, makes one for this run only, in a
# GNUPGHOME of its own that is removed on exit, so that the release build can sign what it stages.
if ! gpg --batch --list-secret-keys 2>/dev/null | grep -q '^sec'; then
	GNUPGHOME="$(mktemp -d)"
	export GNUPGHOME
	trap 'gpgconf --kill gpg-agent 2>/dev/null || true; rm -rf "$GNUPGHOME"' EXIT
	gpg --batch --passphrase '' --quick-gen-key "Lock Starter release check <release-check@lockstarter.invalid>" \
		ed25519 sign 1d 2>/dev/null
	echo "Signing with a key made for this run: $(gpg --batch --list-secret-keys --with-colons | grep -m 1 '^fpr' | cut -d: -f10)"
fi
