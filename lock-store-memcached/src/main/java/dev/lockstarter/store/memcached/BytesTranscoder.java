package dev.lockstarter.store.memcached;

import net.rubyeye.xmemcached.transcoders.CachedData;
import net.rubyeye.xmemcached.transcoders.CompressionMode;
import net.rubyeye.xmemcached.transcoders.Transcoder;

/**
 * A {@link Transcoder} that stores bytes as they are, never compressed or serialized.
 */
final class BytesTranscoder implements Transcoder<byte[]> {

	@Override
	public CachedData encode(byte[] value) {
		return new CachedData(0, value);
	}

	@Override
	public byte[] decode(CachedData data) {
		return data.getData();
	}

	@Override
	public void setPrimitiveAsString(boolean primitiveAsString) {
	}

	@Override
	public void setPackZeros(boolean packZeros) {
	}

	@Override
	public void setCompressionThreshold(int compressionThreshold) {
	}

	@Override
	public boolean isPrimitiveAsString() {
		return false;
	}

	@Override
	public boolean isPackZeros() {
		return false;
	}

	@Override
	public void setCompressionMode(CompressionMode compressionMode) {
	}

}
