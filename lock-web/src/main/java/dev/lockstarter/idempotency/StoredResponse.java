package dev.lockstarter.idempotency;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The response kept for an idempotency key, with the fingerprint of the request that
 * produced it. Written as a versioned binary record: version, fingerprint, status, header
 * count and name/value pairs, body.
 *
 * @param fingerprint the SHA-256 of the request's payload
 * @param status the response status
 * @param headers the kept headers, in order, as name and value pairs
 * @param body the response body
 */
record StoredResponse(byte[] fingerprint, int status, List<Map.Entry<String, String>> headers, byte[] body) {

	private static final int VERSION = 1;

	byte[] toBytes() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(this.body.length + 128);
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeByte(VERSION);
			out.writeShort(this.fingerprint.length);
			out.write(this.fingerprint);
			out.writeShort(this.status);
			out.writeShort(this.headers.size());
			for (Map.Entry<String, String> header : this.headers) {
				out.writeUTF(header.getKey());
				out.writeUTF(header.getValue());
			}
			out.writeInt(this.body.length);
			out.write(this.body);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	static StoredResponse fromBytes(byte[] bytes) {
		try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
			int version = in.readUnsignedByte();
			if (version != VERSION) {
				throw new IllegalStateException("Unknown stored response version " + version);
			}
			byte[] fingerprint = in.readNBytes(in.readUnsignedShort());
			int status = in.readUnsignedShort();
			int count = in.readUnsignedShort();
			Map.Entry<String, String>[] headers = newEntries(count);
			for (int i = 0; i < count; i++) {
				headers[i] = Map.entry(in.readUTF(), in.readUTF());
			}
			int length = in.readInt();
			byte[] body = in.readNBytes(length);
			if (body.length != length || in.read() != -1) {
				throw new IllegalStateException("Stored response has " + body.length + " body bytes, " + length
						+ " expected, or trailing bytes");
			}
			return new StoredResponse(fingerprint, status, List.of(headers), body);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Stored response cannot be read", ex);
		}
	}

	@SuppressWarnings("unchecked")
	private static Map.Entry<String, String>[] newEntries(int count) {
		return new Map.Entry[count];
	}

	boolean matches(byte[] fingerprint) {
		return Arrays.equals(this.fingerprint, fingerprint);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof StoredResponse that
				&& Arrays.equals(this.fingerprint, that.fingerprint) && this.status == that.status
				&& this.headers.equals(that.headers) && Arrays.equals(this.body, that.body));
	}

	@Override
	public int hashCode() {
		return Objects.hash(Arrays.hashCode(this.fingerprint), this.status, this.headers, Arrays.hashCode(this.body));
	}

	@Override
	public String toString() {
		return "StoredResponse[status=" + this.status + ", headers=" + this.headers + ", body=" + this.body.length
				+ " bytes]";
	}

}
