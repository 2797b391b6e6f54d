package dev.lockstarter.autoconfigure;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.postgres.PostgresServer;
import dev.lockstarter.test.postgres.PostgresServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcStoreFailureIntegrationTests} on PostgreSQL: its postmaster and every
 * backend are paused, or killed.
 */
class PostgresJdbcStoreFailureIntegrationTests extends JdbcStoreFailureIntegrationTests {

	@RegisterExtension
	final PostgresServerExtension postgres = new PostgresServerExtension();

	@Override
	protected String[] dataSourceProperties() {
		return new String[] { "spring.datasource.url=" + this.postgres.jdbcUrl(),
				"spring.datasource.username=" + this.postgres.username() };
	}

	@Override
	protected void pauseDatabase() {
		this.postgres.server().pause();
	}

	@Override
	protected void resumeDatabase() {
		this.postgres.server().resume();
	}

	@Override
	protected void killDatabase() throws Exception {
		PostgresServer server = this.postgres.server();
		// Line 7 of postmaster.pid: the key and id of the postmaster's System V segment
		String[] segment = Files.readAllLines(server.directory().resolve("data/postmaster.pid"))
			.get(6)
			.strip()
			.split("\\s+");
		ProcessHandle postmaster = ProcessHandle.of(server.pid()).orElseThrow();
		List<ProcessHandle> processes = new ArrayList<>(postmaster.descendants().toList());
		processes.add(0, postmaster);
		processes.forEach(ProcessHandle::destroyForcibly);
		for (ProcessHandle process : processes) {
			assertThat(process.onExit()).as("PostgreSQL process %d killed", process.pid())
				.succeedsWithin(Duration.ofSeconds(10));
		}
		// A killed postmaster leaves that segment behind, which its next start would
		// remove
		Process removal = new ProcessBuilder("ipcrm", "-m", segment[segment.length - 1]).inheritIO().start();
		assertThat(removal.waitFor(10, TimeUnit.SECONDS)).isTrue();
	}

}
