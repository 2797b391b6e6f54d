package dev.lockstarter.interop

import dev.lockstarter.reactivesample.user.InvalidUserNameException
import dev.lockstarter.reactivesample.user.UserNames
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test
import dev.lockstarter.sample.user.InvalidUserNameException as JavaInvalidUserNameException
import dev.lockstarter.sample.user.UserNames as JavaUserNames

/**
 * The Kotlin sample's user name rule, against the Java sample's: both must accept,
 * normalize and refuse alike, or the two would lock and store one name under two keys.
 */
class UserNamesTests {

	private val names = listOf("alice", "Alice.B_c-9", "e\u0301mile", "\u00e9mile", "\u6771\u4eac", "a".repeat(30),
		"a".repeat(31), "", " ", "a b", "-alice", ".alice", "alice!", "a\u0000b", "x".repeat(200),
		"e" + "\u0301".repeat(29), "\u0661\u0662", "\ud83d\ude00")

	@Test
	fun normalizesAndRefusesExactlyAsTheJavaSample() {
		for (name in names) {
			val java = runCatching { JavaUserNames.normalize(name) }
			val kotlin = runCatching { UserNames.normalize(name) }
			assertThat(kotlin.getOrNull()).`as`("normalized %s", name).isEqualTo(java.getOrNull())
			if (java.isFailure) {
				assertThat(java.exceptionOrNull()).isInstanceOf(JavaInvalidUserNameException::class.java)
				assertThat(kotlin.exceptionOrNull()).isInstanceOf(InvalidUserNameException::class.java)
					.hasMessage(java.exceptionOrNull()!!.message)
			}
			assertThat(UserNames.lookupForm(name)).isEqualTo(JavaUserNames.lookupForm(name))
		}
	}

	@Test
	fun missingNameIsRefusedWithTheRule() {
		assertThatExceptionOfType(InvalidUserNameException::class.java).isThrownBy { UserNames.normalize(null) }
			.withMessage("'userName' is missing; it must have ${UserNames.RULE}")
	}

	@Test
	fun nameIsNormalizedToNfc() {
		assertThat(UserNames.normalize("e\u0301mile")).isEqualTo("\u00e9mile")
	}

}
