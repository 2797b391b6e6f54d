package dev.lockstarter.docs.web;

import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;

// tag::custom-handler[]
// declared as a bean, it replaces the auto-configured LockExceptionHandler
@ControllerAdvice
public class ConflictProblemHandler extends LockExceptionHandler {

	public ConflictProblemHandler(@Value("${lock.web.conflict-status:409}") int conflictStatus) {
		super(conflictStatus);
	}

	@Override
	public ResponseEntity<ProblemDetail> handleLockConflict(LockConflictException ex) {
		ResponseEntity<ProblemDetail> response = super.handleLockConflict(ex);
		ProblemDetail problem = response.getBody();
		if (problem != null) {
			// A field the clients already read
			problem.setProperty("code", "REQUEST_IN_PROGRESS");
		}
		return response;
	}

}
// end::custom-handler[]
