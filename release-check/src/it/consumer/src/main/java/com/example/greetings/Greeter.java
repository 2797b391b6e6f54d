package com.example.greetings;

import org.springframework.stereotype.Service;

/**
 * Makes the greeting of a user name.
 */
@Service
public class Greeter {

	public String greet(String userName) {
		return "Hello, " + userName;
	}

}
