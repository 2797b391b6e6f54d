package dev.lockstarter.docs.singleflight;

import java.util.List;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import org.springframework.stereotype.Service;

/**
 * A slow computation that simultaneous callers share.
 */
@Service
public class SumService {

	// tag::sum[]
	// 5 simultaneous calls with [1, 2]: one run, five {"sum": 3}
	@ExclusiveRequest(name = "sum", key = "#values", onConflict = OnConflict.SHARE_RESULT)
	public Sum sum(List<Long> values) {
		return new Sum(values.stream().mapToLong(Long::longValue).sum());
	}
	// end::sum[]

}
