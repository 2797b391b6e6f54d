package dev.lockstarter.store.memory;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import kotlin.Unit;
import kotlin.jvm.functions.Function1;
import kotlin.reflect.KFunction;
import kotlin.reflect.jvm.ReflectJvmMapping;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.DSLScenarioBuilder;
import org.jetbrains.lincheck.datastructures.DSLThreadScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.SharedLockStore;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Model checking of {@link InMemoryLockStore}: Lincheck runs random concurrent scenarios
 * of its operations, and chosen ones, explores the interleavings of each, and checks that
 * every outcome is one that {@link MapLockStore}, called one operation at a time in some
 * order, could give (linearizability). Each parallel thread is one owner, so that an
 * owner's calls never overlap, as the engine makes them (owner tokens are unique to an
 * acquisition). The store's clock stands still during a run, after the locks taken before
 * it expired, so that runs take both the paths of a free key and those of an expired
 * holder; time is not part of the model, and the periodic sweep is not reached. Each
 * check is also run on {@link MapLockStore} itself, called concurrently, and must fail
 * there.
 */
class InMemoryLockStoreModelCheckTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final String[] KEYS = { "k1", "k2" };

	/**
	 * Call each kind of operation once, so that the classes they use are initialized
	 * before the model checker's first interleaving, which is then like the others.
	 */
	@BeforeAll
	static void initializeTheStoresClasses() {
		InMemoryLockStore store = expiredStore();
		store.tryAcquire(KEYS[0], "o1", TTL);
		store.extend(KEYS[0], "o1", TTL);
		store.tryAcquireAll(List.of(KEYS), "o2", TTL);
		store.releaseAll(List.of(KEYS), "o1");
		store.tryAcquirePermit("p", "o1", TTL, 2);
		store.tryAcquireRead("rw", "o1", TTL);
		store.tryAcquireWrite("rw", "o2", TTL, TTL);
		store.extendShared("rw", "o1", TTL);
		store.releaseShared("rw", "o1");
		new MapLockStore().tryAcquirePermit("p", "o1", TTL, 2);
	}

	@Test
	void mutexesAreLinearizable() {
		// Fewer scenarios than for the other kinds: the key-set lock makes each one
		// longer
		modelChecking().iterations(3)
			.invocationsPerIteration(200)
			.sequentialSpecification(MutexSpecification.class)
			.addCustomScenario(parallel(Mutexes.class, List.of(), List.of(call("acquire", 0, 1), call("release", 0, 1)),
					List.of(call("acquire", 0, 2), call("extend", 0, 2))))
			.addCustomScenario(parallel(Mutexes.class, List.of(call("acquire", 1, 0)),
					List.of(call("acquireBoth", 1), call("releaseBoth", 1)),
					List.of(call("release", 1, 0), call("acquireBoth", 2))))
			.check(Mutexes.class);
	}

	/**
	 * A single-key acquisition under the optimistic read puts its entry in the map before
	 * it validates the read. Another acquisition of the key may be refused by that entry
	 * before an acquisition of several keys takes the write lock and invalidates the
	 * read: the entry must then stand, and not be withdrawn, or the other caller was told
	 * that the key was held when no acquisition of it succeeded, which no sequential
	 * store answers.
	 */
	@Test
	void anAcquisitionIsNotRefusedForAnotherThatWithdraws() {
		modelChecking().iterations(0)
			.invocationsPerIteration(400)
			.sequentialSpecification(MutexSpecification.class)
			.addCustomScenario(parallel(Mutexes.class, List.of(), List.of(call("acquire", 0, 1)),
					List.of(call("acquire", 0, 2), call("acquireBoth", 2))))
			.check(Mutexes.class);
	}

	@Test
	void permitsAreLinearizable() {
		modelChecking().sequentialSpecification(PermitSpecification.class)
			.addCustomScenario(contendedPermits())
			.check(Permits.class);
	}

	@Test
	void readWriteLocksAreLinearizable() {
		modelChecking().sequentialSpecification(ReadWriteSpecification.class)
			.addCustomScenario(aReaderAndAWriter())
			.addCustomScenario(parallel(ReadWriteLocks.class, List.of(call("read", 0)),
					List.of(call("write", 1), call("release", 1)), List.of(call("read", 2), call("read", 2))))
			.check(ReadWriteLocks.class);
	}

	@Test
	void aMutexStoreThatChecksThenActsIsRejected() {
		assertRejected(CheckThenActMutexes.class, MutexSpecification.class,
				parallel(Mutexes.class, List.of(), List.of(call("acquire", 0, 1)), List.of(call("acquire", 0, 2))));
	}

	@Test
	void aPermitStoreThatChecksThenActsIsRejected() {
		assertRejected(CheckThenActPermits.class, PermitSpecification.class, contendedPermits());
	}

	@Test
	void aReadWriteStoreThatChecksThenActsIsRejected() {
		assertRejected(CheckThenActReadWriteLocks.class, ReadWriteSpecification.class, aReaderAndAWriter());
	}

	/** Two owners take the last of two permits at once. */
	private static Function1<DSLScenarioBuilder, Unit> contendedPermits() {
		return parallel(Permits.class, List.of(call("acquire", 0)), List.of(call("acquire", 1), call("release", 1)),
				List.of(call("acquire", 2), call("extend", 2)));
	}

	/** A reader and a writer come at once. */
	private static Function1<DSLScenarioBuilder, Unit> aReaderAndAWriter() {
		return parallel(ReadWriteLocks.class, List.of(), List.of(call("read", 1), call("release", 1)),
				List.of(call("write", 2), call("extend", 2)));
	}

	/**
	 * Random scenarios of two threads of three operations each, after two operations and
	 * before one that run alone: 10 scenarios, each in up to 500 interleavings, and as
	 * many interleavings of each custom scenario.
	 */
	private static ModelCheckingOptions modelChecking() {
		return new ModelCheckingOptions().iterations(10)
			.invocationsPerIteration(500)
			.threads(2)
			.actorsPerThread(3)
			.actorsBefore(2)
			.actorsAfter(1);
	}

	private static void assertRejected(Class<?> broken, Class<?> specification,
			Function1<DSLScenarioBuilder, Unit> scenario) {
		assertThatExceptionOfType(LincheckAssertionError.class)
			.isThrownBy(() -> modelChecking().iterations(0)
				.minimizeFailedScenario(false)
				.sequentialSpecification(specification)
				.addCustomScenario(scenario)
				.check(broken))
			.withMessageContaining("Invalid execution results");
	}

	/**
	 * A scenario: the calls of the first list run alone, then those of each further list
	 * on a thread of its own.
	 */
	@SafeVarargs
	private static Function1<DSLScenarioBuilder, Unit> parallel(Class<?> operations, List<Call> initial,
			List<Call>... threads) {
		return (scenario) -> {
			if (!initial.isEmpty()) {
				scenario.initial((thread) -> calls(operations, thread, initial));
			}
			scenario.parallel((parallel) -> {
				for (List<Call> calls : threads) {
					parallel.thread((thread) -> calls(operations, thread, calls));
				}
				return Unit.INSTANCE;
			});
			return Unit.INSTANCE;
		};
	}

	private static Unit calls(Class<?> operations, DSLThreadScenario thread, List<Call> calls) {
		for (Call call : calls) {
			thread.actor(operation(operations, call), call.arguments());
		}
		return Unit.INSTANCE;
	}

	private static KFunction<?> operation(Class<?> operations, Call call) {
		for (Method method : operations.getMethods()) {
			if (method.getName().equals(call.operation()) && method.getParameterCount() == call.arguments().length) {
				KFunction<?> function = ReflectJvmMapping.getKotlinFunction(method);
				if (function != null) {
					return function;
				}
			}
		}
		throw new IllegalArgumentException("No operation " + call + " in " + operations.getName());
	}

	private static Call call(String operation, Object... arguments) {
		return new Call(operation, arguments);
	}

	/**
	 * A call of an operation in a custom scenario, its owner given as a thread's number:
	 * 0 for the calls that run alone, then 1 and 2.
	 */
	private record Call(String operation, Object... arguments) {

	}

	private static String answer(AcquireReply reply) {
		return reply.isAcquired() ? "acquired" : "held";
	}

	/**
	 * An in-memory store whose clock has moved past the time-to-live of a mutex on the
	 * first key, of two permits, and of a write place and a writer's wait; it stands
	 * still from then on, before the first sweep is due.
	 */
	private static InMemoryLockStore expiredStore() {
		AtomicLong nanos = new AtomicLong();
		InMemoryLockStore store = new InMemoryLockStore(nanos::get);
		Duration gone = Duration.ofMillis(1);
		store.tryAcquire(KEYS[0], "gone", gone);
		store.tryAcquirePermit("p", "gone", gone, 2);
		store.tryAcquirePermit("p", "gone too", gone, 2);
		store.tryAcquireWrite("rw", "gone", gone, Duration.ZERO);
		store.tryAcquireWrite("rw", "gone too", gone, gone);
		nanos.addAndGet(gone.toNanos());
		return store;
	}

	/**
	 * Mutexes on two keys, taken one by one and together, by one owner per thread. The
	 * specification: {@link MutexSpecification}.
	 */
	@Param(name = "key", gen = IntGen.class, conf = "0:1")
	@Param(name = "owner", gen = ThreadIdGen.class)
	public static class Mutexes {

		private final MultiKeyLockStore store;

		public Mutexes() {
			this(expiredStore());
		}

		Mutexes(MultiKeyLockStore store) {
			this.store = store;
		}

		@Operation
		public String acquire(@Param(name = "key") int key, @Param(name = "owner") int owner) {
			return answer(this.store.tryAcquire(KEYS[key], "o" + owner, TTL));
		}

		@Operation
		public boolean release(@Param(name = "key") int key, @Param(name = "owner") int owner) {
			return this.store.release(KEYS[key], "o" + owner);
		}

		@Operation
		public boolean extend(@Param(name = "key") int key, @Param(name = "owner") int owner) {
			return this.store.extend(KEYS[key], "o" + owner, TTL);
		}

		@Operation
		public String acquireBoth(@Param(name = "owner") int owner) {
			MultiKeyAcquireReply reply = this.store.tryAcquireAll(List.of(KEYS), "o" + owner, TTL);
			return reply.isAcquired() ? "acquired" : "held at " + reply.heldIndex();
		}

		@Operation
		public String releaseBoth(@Param(name = "owner") int owner) {
			return Arrays.toString(this.store.releaseAll(List.of(KEYS), "o" + owner));
		}

	}

	/** The sequential specification: the same operations on a {@link MapLockStore}. */
	public static class MutexSpecification extends Mutexes {

		public MutexSpecification() {
			super(new MapLockStore());
		}

	}

	/**
	 * The broken variant: the specification called concurrently, a store that checks,
	 * then acts, without a lock.
	 */
	public static class CheckThenActMutexes extends MutexSpecification {

	}

	/**
	 * Permits, two on one key, taken by one owner per thread. The specification:
	 * {@link PermitSpecification}.
	 */
	@Param(name = "owner", gen = ThreadIdGen.class)
	public static class Permits {

		private final SharedLockStore store;

		public Permits() {
			this(expiredStore());
		}

		Permits(SharedLockStore store) {
			this.store = store;
		}

		@Operation
		public String acquire(@Param(name = "owner") int owner) {
			return answer(this.store.tryAcquirePermit("p", "o" + owner, TTL, 2));
		}

		@Operation
		public boolean release(@Param(name = "owner") int owner) {
			return this.store.releaseShared("p", "o" + owner);
		}

		@Operation
		public boolean extend(@Param(name = "owner") int owner) {
			return this.store.extendShared("p", "o" + owner, TTL);
		}

	}

	/** The sequential specification: the same operations on a {@link MapLockStore}. */
	public static class PermitSpecification extends Permits {

		public PermitSpecification() {
			super(new MapLockStore());
		}

	}

	/**
	 * The broken variant: the specification called concurrently, a store that checks,
	 * then acts, without a lock.
	 */
	public static class CheckThenActPermits extends PermitSpecification {

	}

	/**
	 * A read/write lock on one key, with readers, writers that record their wait, and one
	 * owner per thread. The specification: {@link ReadWriteSpecification}.
	 */
	@Param(name = "owner", gen = ThreadIdGen.class)
	public static class ReadWriteLocks {

		private final SharedLockStore store;

		public ReadWriteLocks() {
			this(expiredStore());
		}

		ReadWriteLocks(SharedLockStore store) {
			this.store = store;
		}

		@Operation
		public String read(@Param(name = "owner") int owner) {
			return answer(this.store.tryAcquireRead("rw", "o" + owner, TTL));
		}

		@Operation
		public String write(@Param(name = "owner") int owner) {
			return answer(this.store.tryAcquireWrite("rw", "o" + owner, TTL, TTL));
		}

		@Operation
		public boolean release(@Param(name = "owner") int owner) {
			return this.store.releaseShared("rw", "o" + owner);
		}

		@Operation
		public boolean extend(@Param(name = "owner") int owner) {
			return this.store.extendShared("rw", "o" + owner, TTL);
		}

	}

	/** The sequential specification: the same operations on a {@link MapLockStore}. */
	public static class ReadWriteSpecification extends ReadWriteLocks {

		public ReadWriteSpecification() {
			super(new MapLockStore());
		}

	}

	/**
	 * The broken variant: the specification called concurrently, a store that checks,
	 * then acts, without a lock.
	 */
	public static class CheckThenActReadWriteLocks extends ReadWriteSpecification {

	}

}
