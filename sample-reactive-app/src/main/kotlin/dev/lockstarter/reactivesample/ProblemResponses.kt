package dev.lockstarter.reactivesample

import org.springframework.http.HttpStatus
import org.springframework.http.MediaType
import org.springframework.http.ProblemDetail
import org.springframework.http.ResponseEntity
import java.net.URI

/**
 * Return an RFC 9457 problem with a type, a title and a detail.
 */
fun problem(status: HttpStatus, type: URI, title: String, detail: String): ProblemDetail =
	ProblemDetail.forStatusAndDetail(status, detail).apply {
		this.type = type
		this.title = title
	}

/**
 * Return the `application/problem+json` response of a problem.
 */
fun ProblemDetail.toResponse(): ResponseEntity<ProblemDetail> =
	ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(this)
