package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * The Redisson call site of {@link InvoiceSettlement#settle} as an annotation.
 */
@Service
public class InvoiceService {

	private final Invoices invoices;

	InvoiceService(Invoices invoices) {
		this.invoices = invoices;
	}

	// tag::annotation[]
	@ExclusiveRequest(name = "invoice", key = "#invoiceId", waitTime = "5s")
	public void settle(String invoiceId) {
		this.invoices.settle(invoiceId);
	}
	// end::annotation[]

}
