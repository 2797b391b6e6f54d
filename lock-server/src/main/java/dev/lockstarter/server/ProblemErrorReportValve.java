package dev.lockstarter.server;

import java.io.IOException;
import java.io.Writer;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Tomcat's error report for requests that never reach the application, such as a URI that
 * is not valid UTF-8 or a malformed header: an RFC 9457 problem instead of an HTML page,
 * so that every error of the lock server has the same shape. It says nothing of the
 * request.
 *
 * @since 0.1.0
 */
public class ProblemErrorReportValve extends ErrorReportValve {

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		HttpStatus known = HttpStatus.resolve(status);
		String title = (known != null) ? known.getReasonPhrase() : "Error";
		String detail = (status == 400) ? "The request is not well-formed HTTP, or its URI is not valid UTF-8"
				: "The server refused the request";
		try {
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("UTF-8");
			Writer writer = response.getReporter();
			if (writer != null) {
				writer.write("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status
						+ ",\"detail\":\"" + detail + "\"}");
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The client has gone: nothing to report to
		}
	}

}
