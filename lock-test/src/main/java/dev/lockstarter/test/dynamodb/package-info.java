/**
 * A real DynamoDB Local server for tests:
 * {@link dev.lockstarter.test.dynamodb.DynamoDbLocalServer}, run in the test JVM from the
 * {@code com.amazonaws:DynamoDBLocal} artifact, and the JUnit 5
 * {@link dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension} that manages one per
 * test class.
 */
@NullMarked
package dev.lockstarter.test.dynamodb;

import org.jspecify.annotations.NullMarked;
