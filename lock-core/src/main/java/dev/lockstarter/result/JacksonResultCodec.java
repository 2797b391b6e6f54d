package dev.lockstarter.result;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

import org.springframework.util.Assert;

/**
 * {@link ResultCodec} that writes results as JSON with a Jackson 3 {@link ObjectMapper},
 * usually the application's own, so that results are written as the application writes
 * them in its responses. Values are written and read as the method's declared type.
 *
 * @since 0.1.0
 */
public class JacksonResultCodec implements ResultCodec {

	private final ObjectMapper mapper;

	/**
	 * Create a new codec.
	 * @param mapper the mapper
	 */
	public JacksonResultCodec(ObjectMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		this.mapper = mapper;
	}

	@Override
	public byte[] encode(@Nullable Object value, Type type) {
		Assert.notNull(type, "'type' must not be null");
		return this.mapper.writerFor(javaType(type)).writeValueAsBytes(value);
	}

	@Override
	public @Nullable Object decode(byte[] bytes, Type type) {
		Assert.notNull(bytes, "'bytes' must not be null");
		Assert.notNull(type, "'type' must not be null");
		return this.mapper.readValue(bytes, javaType(type));
	}

	private JavaType javaType(Type type) {
		return this.mapper.constructType(type);
	}

}
