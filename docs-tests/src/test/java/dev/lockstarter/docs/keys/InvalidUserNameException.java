package dev.lockstarter.docs.keys;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A user name that breaks the naming rule.
 */
@ResponseStatus(HttpStatus.BAD_REQUEST)
public class InvalidUserNameException extends RuntimeException {

	public InvalidUserNameException(String rule) {
		super("A user name is " + rule);
	}

}
