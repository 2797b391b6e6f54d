package dev.lockstarter.docs.stores;

import java.time.Duration;

import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A DynamoDB client of the application, which the DynamoDB lock store uses.
 */
@Configuration(proxyBeanMethods = false)
public class DynamoDbClientConfiguration {

	// tag::dynamodb-client-bean[]
	@Bean
	DynamoDbClient dynamoDbClient() {
		return DynamoDbClient.builder()
			.region(Region.EU_WEST_1)
			.credentialsProvider(ProfileCredentialsProvider.create("locks"))
			.overrideConfiguration((config) -> config.apiCallTimeout(Duration.ofSeconds(2)))
			.build();
	}
	// end::dynamodb-client-bean[]

}
