package dev.lockstarter.sample.sum;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Chooses the {@link SumCallCounter} from {@code sample.store}, like the user repository.
 */
@Configuration(proxyBeanMethods = false)
class SumCallCounterConfiguration {

	@Bean
	// In memory also with sample.store=jdbc, which keeps only the users in the database
	@ConditionalOnExpression("!'redis'.equalsIgnoreCase('${sample.store:memory}')")
	InMemorySumCallCounter inMemorySumCallCounter() {
		return new InMemorySumCallCounter();
	}

	@Bean
	@ConditionalOnProperty(name = "sample.store", havingValue = "redis")
	RedisSumCallCounter redisSumCallCounter(StringRedisTemplate redis) {
		return new RedisSumCallCounter(redis);
	}

}
