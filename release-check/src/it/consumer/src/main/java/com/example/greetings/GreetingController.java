package com.example.greetings;

import dev.lockstarter.annotation.ExclusiveRequest;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Greets a user name, one call per name at a time: a call for a name whose greeting is
 * under way gets a 409 problem response.
 */
@RestController
public class GreetingController {

	private final Greeter greeter;

	public GreetingController(Greeter greeter) {
		this.greeter = greeter;
	}

	@PostMapping("/greetings/{userName}")
	@ExclusiveRequest(key = "#userName")
	public ResponseEntity<String> greet(@PathVariable String userName) {
		return ResponseEntity.status(HttpStatus.CREATED).body(this.greeter.greet(userName));
	}

}
