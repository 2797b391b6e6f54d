package dev.lockstarter.sample.counter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Chooses the {@link CounterRepository} from {@code sample.store}, like the user
 * repository.
 */
@Configuration(proxyBeanMethods = false)
class CounterRepositoryConfiguration {

	@Bean
	// In memory also with sample.store=jdbc, which keeps only the users in the database
	@ConditionalOnExpression("!'redis'.equalsIgnoreCase('${sample.store:memory}')")
	InMemoryCounterRepository inMemoryCounterRepository() {
		return new InMemoryCounterRepository();
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "redis")
	RedisCounterRepository redisCounterRepository(StringRedisTemplate redis) {
		return new RedisCounterRepository(redis);
	}

}
