package dev.lockstarter.docs.kinds;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.LockMode;
import org.springframework.stereotype.Service;

/**
 * Documents that many callers read at once and one caller at a time rewrites.
 */
@Service
public class Documents {

	private final Map<String, String> texts = new ConcurrentHashMap<>();

	// tag::readWrite[]
	@ExclusiveRequest(name = "document", key = "#id", mode = LockMode.READ)
	public String read(String id) {
		return this.texts.getOrDefault(id, "");
	}

	@ExclusiveRequest(name = "document", key = "#id", mode = LockMode.WRITE, waitTime = "10s")
	public void rewrite(String id, String text) {
		this.texts.put(id, text);
	}
	// end::readWrite[]

}
