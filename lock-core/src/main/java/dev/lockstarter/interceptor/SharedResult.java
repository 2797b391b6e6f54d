package dev.lockstarter.interceptor;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One outcome of a single-flight holder as kept in the lock store: a value, the
 * completion of a {@code void} method, or a failure. Each record has a random id, so that
 * a waiting caller can tell the outcome of the run it waited for from one left by an
 * earlier run.
 * <p>
 * Format: a magic byte and version, the id, the kind, then the value's bytes (as written
 * by the {@code ResultCodec}) or the failure's type, message and HTTP status.
 */
final class SharedResult {

	private static final int MAGIC = 0x53;

	private static final int VERSION = 1;

	private static final int MAX_MESSAGE_LENGTH = 2000;

	private final String id;

	private final Kind kind;

	private final byte @Nullable [] value;

	private final @Nullable String failureType;

	private final @Nullable String failureMessage;

	private final int status;

	private SharedResult(String id, Kind kind, byte @Nullable [] value, @Nullable String failureType,
			@Nullable String failureMessage, int status) {
		this.id = id;
		this.kind = kind;
		this.value = value;
		this.failureType = failureType;
		this.failureMessage = failureMessage;
		this.status = status;
	}

	static SharedResult value(byte[] value) {
		return new SharedResult(newId(), Kind.VALUE, value, null, null, 0);
	}

	static SharedResult completion() {
		return new SharedResult(newId(), Kind.VOID, null, null, null, 0);
	}

	static SharedResult failure(String type, @Nullable String message, int status) {
		String shortened = (message != null && message.length() > MAX_MESSAGE_LENGTH)
				? message.substring(0, MAX_MESSAGE_LENGTH) : message;
		return new SharedResult(newId(), Kind.FAILURE, null, type, shortened, status);
	}

	private static String newId() {
		return UUID.randomUUID().toString();
	}

	String id() {
		return this.id;
	}

	Kind kind() {
		return this.kind;
	}

	byte[] valueBytes() {
		byte[] bytes = this.value;
		return (bytes != null) ? bytes : new byte[0];
	}

	String failureType() {
		String type = this.failureType;
		return (type != null) ? type : "";
	}

	@Nullable String failureMessage() {
		return this.failureMessage;
	}

	int status() {
		return this.status;
	}

	byte[] toBytes() {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeByte(MAGIC);
			out.writeByte(VERSION);
			writeString(out, this.id);
			out.writeByte(this.kind.ordinal());
			if (this.kind == Kind.VALUE) {
				byte[] value = valueBytes();
				out.writeInt(value.length);
				out.write(value);
			}
			else if (this.kind == Kind.FAILURE) {
				writeString(out, failureType());
				out.writeBoolean(this.failureMessage != null);
				if (this.failureMessage != null) {
					writeString(out, this.failureMessage);
				}
				out.writeInt(this.status);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	/**
	 * Read a record written by {@link #toBytes()}.
	 * @param bytes the stored bytes, or {@code null} if there are none
	 * @return the record, or {@code null} if there are no bytes
	 * @throws IllegalArgumentException if the bytes are not a record of this format
	 */
	static @Nullable SharedResult fromBytes(byte @Nullable [] bytes) {
		if (bytes == null) {
			return null;
		}
		try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
			if (in.readUnsignedByte() != MAGIC || in.readUnsignedByte() != VERSION) {
				throw new IllegalArgumentException("Not a shared result of this version");
			}
			String id = readString(in);
			int kindIndex = in.readUnsignedByte();
			if (kindIndex >= Kind.values().length) {
				throw new IllegalArgumentException("Unknown kind of shared result: " + kindIndex);
			}
			Kind kind = Kind.values()[kindIndex];
			return switch (kind) {
				case VALUE -> new SharedResult(id, kind, readBytes(in, in.readInt()), null, null, 0);
				case VOID -> new SharedResult(id, kind, null, null, null, 0);
				case FAILURE -> {
					String type = readString(in);
					String message = in.readBoolean() ? readString(in) : null;
					yield new SharedResult(id, kind, null, type, message, in.readInt());
				}
			};
		}
		catch (IOException ex) {
			throw new IllegalArgumentException("Truncated shared result", ex);
		}
	}

	/**
	 * Return the id of the record in {@code bytes}, or {@code null} if there is none or
	 * it cannot be read.
	 */
	static @Nullable String idOf(byte @Nullable [] bytes) {
		try {
			SharedResult result = fromBytes(bytes);
			return (result != null) ? result.id : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static void writeString(DataOutputStream out, String value) throws IOException {
		byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
		out.writeInt(bytes.length);
		out.write(bytes);
	}

	private static String readString(DataInputStream in) throws IOException {
		return new String(readBytes(in, in.readInt()), StandardCharsets.UTF_8);
	}

	private static byte[] readBytes(DataInputStream in, int length) throws IOException {
		if (length < 0 || length > in.available()) {
			throw new IOException("Invalid length " + length);
		}
		return in.readNBytes(length);
	}

	enum Kind {

		VALUE, VOID, FAILURE

	}

}
