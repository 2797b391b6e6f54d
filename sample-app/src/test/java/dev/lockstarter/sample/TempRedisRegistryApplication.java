package dev.lockstarter.sample;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

public final class TempRedisRegistryApplication {

	private TempRedisRegistryApplication() {
	}

	public static void main(String[] args) {
		new SpringApplicationBuilder(SampleApplication.class)
			.initializers((context) -> ((GenericApplicationContext) context).registerBean(RedisLockRegistry.class,
					() -> new RedisLockRegistry(context.getBean(RedisConnectionFactory.class), "sample",
							DurationStyle.detectAndParse(context.getEnvironment().getProperty("lock.ttl")).toMillis())))
			.run(args);
	}

}
