/**
 * The DynamoDB lock store, on the AWS SDK for Java 2.x.
 */
@NullMarked
package dev.lockstarter.store.dynamodb;

import org.jspecify.annotations.NullMarked;
