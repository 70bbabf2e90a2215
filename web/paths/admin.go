package paths

// The staff console, all under /admin.
const (
	Admin              = "/admin"
	AdminWarehouses    = "/admin/warehouses"
	AdminProducts      = "/admin/products" // POST creates one
	AdminNewProduct    = "/admin/products/new"
	AdminOrders        = "/admin/orders"
	AdminCustomers     = "/admin/customers" // ?email= finds one
	AdminSubscriptions = "/admin/subscriptions"
	AdminDue           = "/admin/subscriptions/due" // reminders and payments due on a day
	AdminBilling       = "/admin/billing"           // the subscriptions' figures: MRR, counts, a year of months
	AdminInvoices      = "/admin/invoices"          // ?id= looks one up
	AdminShipments     = "/admin/shipments"         // ?status= lists them across warehouses
	// AdminShipmentsPack packs the orders chosen on the packing queue (POST);
	// AdminShipmentsPrint is their pick list and packing slips.
	AdminShipmentsPack  = "/admin/shipments/pack"
	AdminShipmentsPrint = "/admin/shipments/print"
	AdminGiftCards      = "/admin/giftcards" // POST issues one
	AdminDiscounts      = "/admin/discounts" // POST creates one
	AdminAPIKeys        = "/admin/api-keys"  // POST adds an integration with its first key
	AdminWebhooks       = "/admin/webhooks"  // every webhook endpoint; POST registers one of staff's
	AdminDrops          = "/admin/drops"     // POST creates one
	AdminJobs           = "/admin/jobs"
	AdminOutbox         = "/admin/outbox"
	AdminArchive        = "/admin/archive"     // the archive of the books
	AdminArchiveRun     = "/admin/archive/run" // POST: archive the closed months now
	// AdminSeller is the seller's legal name, address and VAT number that
	// invoices, receipts and credit notes print (POST saves them).
	AdminSeller = "/admin/settings/seller"
)

// AdminArchiveFile is one archived month's file of a section, like
// /admin/archive/2026-05/receipts.csv.
func AdminArchiveFile(month, section, format string) string {
	return under(AdminArchive, month, section+"."+format)
}

// AdminWarehouse is a warehouse's inventory.
func AdminWarehouse(id string) string { return under(AdminWarehouses, id) }

// AdminWarehouseShipments is the shipments leaving a warehouse.
func AdminWarehouseShipments(id string) string { return under(AdminWarehouses, id, "shipments") }

// AdminWarehouseAdjustments is a warehouse's stock adjustments.
func AdminWarehouseAdjustments(id string) string { return under(AdminWarehouses, id, "adjustments") }

// AdminWarehouseStock adjusts a product's stock in a warehouse (POST).
func AdminWarehouseStock(id string) string { return under(AdminWarehouses, id, "stock") }

// AdminProduct is a product's page for staff (GET) and its edit (POST).
func AdminProduct(id string) string { return under(AdminProducts, id) }

// AdminOrdersCSV is the orders of the days from to to (included) as CSV,
// with the list's filters (name, value pairs: status, product, buyer).
func AdminOrdersCSV(from, to string, filters ...string) string {
	return WithQuery("/admin/orders.csv", append([]string{"from", from, "to", to}, filters...)...)
}

// AdminOrder is an order's page for staff.
func AdminOrder(id string) string { return under(AdminOrders, id) }

// AdminOrderShipments creates the shipments of an order (POST).
func AdminOrderShipments(orderID string) string { return under(AdminOrders, orderID, "shipments") }

// AdminOrderRefunds refunds an order (POST).
func AdminOrderRefunds(orderID string) string { return under(AdminOrders, orderID, "refunds") }

// AdminOrderRefundRetry tries a refund's card part again (POST).
func AdminOrderRefundRetry(orderID, key string) string {
	return under(AdminOrders, orderID, "refunds", key, "retry")
}

// AdminOrderAllocate allocates an order awaiting stock (POST).
func AdminOrderAllocate(orderID string) string { return under(AdminOrders, orderID, "allocate") }

// AdminOrderShipment changes a shipment of an order one step (POST).
func AdminOrderShipment(orderID, shipmentID string) string {
	return under(AdminOrders, orderID, "shipments", shipmentID)
}

// AdminOrderShipmentUndo undoes a shipment's last change (POST).
func AdminOrderShipmentUndo(orderID, shipmentID string) string {
	return under(AdminOrders, orderID, "shipments", shipmentID, "undo")
}

// AdminPackingSlip is a shipment's printable packing slip.
func AdminPackingSlip(orderID, shipmentID string) string {
	return under(AdminOrders, orderID, "shipments", shipmentID, "slip")
}

// AdminShipmentsIn lists every warehouse's shipments in a status.
func AdminShipmentsIn(status string) string { return WithQuery(AdminShipments, "status", status) }

// AdminCustomer is a customer's page for staff.
func AdminCustomer(id string) string { return under(AdminCustomers, id) }

// AdminCustomerRole gives a customer the role in the form (POST, owners).
func AdminCustomerRole(id string) string { return under(AdminCustomers, id, "role") }

// AdminCustomerDeactivate stops an account from signing in (POST, owners).
func AdminCustomerDeactivate(id string) string { return under(AdminCustomers, id, "deactivate") }

// AdminCustomerReactivate lets an account sign in again (POST, owners).
func AdminCustomerReactivate(id string) string { return under(AdminCustomers, id, "reactivate") }

// Staff's subscription settings (refund on cancelling now) and the
// products' scheduled price changes (GET shows, POST saves).
const (
	AdminSubscriptionSettings = "/admin/subscriptions/settings"
	AdminPriceChanges         = "/admin/subscriptions/prices"
)

// AdminCustomerReceipt is one of a customer's receipts for staff, with
// its refund.
func AdminCustomerReceipt(customerID, number string) string {
	return under(AdminCustomers, customerID, "receipts", number)
}

// AdminReceiptRefund refunds a receipt (POST).
func AdminReceiptRefund(customerID, number string) string {
	return under(AdminCustomers, customerID, "receipts", number, "refund")
}

// AdminSubscriptionsIn lists the subscriptions in one status.
func AdminSubscriptionsIn(status string) string {
	return WithQuery(AdminSubscriptions, "status", status)
}

// AdminInvoice is an invoice with its payments.
func AdminInvoice(id string) string { return under(AdminInvoices, id) }

// AdminCreditNotePDF is the credit note of an order's refund.
func AdminCreditNotePDF(orderID, key string) string {
	return under(AdminOrders, orderID, "refunds", key, "credit-note.pdf")
}

// AdminInvoicePDF is the invoice as a PDF.
func AdminInvoicePDF(id string) string { return under(AdminInvoices, id, "invoice.pdf") }

// AdminReceiptPDF is a customer's receipt as a PDF.
func AdminReceiptPDF(customerID, number string) string {
	return under(AdminCustomers, customerID, "receipts", number, "receipt.pdf")
}

// AdminReceiptCreditNotePDF is the credit note (by its number) of a
// customer's receipt's refund.
func AdminReceiptCreditNotePDF(customerID, number, note string) string {
	return under(AdminCustomers, customerID, "receipts", number, "credit-notes", note, "credit-note.pdf")
}

// AdminShipment is a shipment with its items.
func AdminShipment(id string) string { return under(AdminShipments, id) }

// AdminAPIKeyRevoke asks to revoke an API key (GET) and revokes it (POST).
func AdminAPIKeyRevoke(id string) string { return under(AdminAPIKeys, id, "revoke") }

// AdminAPIKeyRotate asks to rotate an API key (GET) and replaces it with a
// new one (POST).
func AdminAPIKeyRotate(id string) string { return under(AdminAPIKeys, id, "rotate") }

// AdminIntegrationKeys issues another key of an integration (POST).
func AdminIntegrationKeys(name string) string {
	return under(AdminAPIKeys, "integrations", name, "keys")
}

// AdminIntegrationRevoke asks to revoke an integration (GET) and revokes
// it (POST).
func AdminIntegrationRevoke(name string) string {
	return under(AdminAPIKeys, "integrations", name, "revoke")
}

// AdminWebhook is a webhook endpoint of owner (an integration's name, or
// store.StaffWebhooks) for staff.
func AdminWebhook(owner, id string) string { return under(AdminWebhooks, owner, id) }

// AdminWebhookDelete asks to delete an endpoint (GET) and deletes it
// (POST).
func AdminWebhookDelete(owner, id string) string { return under(AdminWebhooks, owner, id, "delete") }

// AdminDrop is a drop's page for staff.
func AdminDrop(id string) string { return under(AdminDrops, id) }

// AdminDropLive is a drop's live panel, which refreshes itself.
func AdminDropLive(id string) string { return under(AdminDrops, id, "live") }

// AdminDropTicketsCSV is the holders of a drop's tickets as CSV.
func AdminDropTicketsCSV(id string) string { return under(AdminDrops, id, "tickets.csv") }

// AdminDropTicketRelease asks before a holder's ticket is given back
// (GET), and gives it back (POST).
func AdminDropTicketRelease(id, client string) string {
	return under(AdminDrops, id, "tickets", client, "release")
}

// AdminDropClose closes a drop early (POST).
func AdminDropClose(id string) string { return under(AdminDrops, id, "close") }

// AdminDropCancel cancels a drop (POST).
func AdminDropCancel(id string) string { return under(AdminDrops, id, "cancel") }

// AdminDropDescription replaces what a drop says it gives (POST).
func AdminDropDescription(id string) string { return under(AdminDrops, id, "description") }

// AdminDropPhoto takes a drop's photo (POST, multipart).
func AdminDropPhoto(id string) string { return under(AdminDrops, id, "photo") }

// AdminJobRunNow starts a billing job now (POST).
func AdminJobRunNow(job string) string { return under(AdminJobs, job, "run") }

// AdminJobRuns is a billing job's runs.
func AdminJobRuns(job string) string { return under(AdminJobs, job, "runs") }

// AdminJobRun is one run of a billing job.
func AdminJobRun(job, runID string) string { return under(AdminJobs, job, "runs", runID) }

// AdminJobRunProgress is a run's progress panel, polled while it runs.
func AdminJobRunProgress(job, runID string) string {
	return under(AdminJobs, job, "runs", runID, "progress")
}

// AdminMail is one mail of the outbox.
func AdminMail(id string) string { return under(AdminOutbox, id) }

// AdminDashboardBlock is one block of the console's home (sales, to-ship,
// low-stock, jobs, drops): a partial for htmx, a page of its own without.
func AdminDashboardBlock(name string) string { return under(Admin, "dashboard", name) }

// AdminProductLowStock sets the level under which a product's stock is low
// (POST).
func AdminProductLowStock(id string) string { return under(AdminProducts, id, "low-stock") }

// AdminShipping is the shipping zones and their rates; POST adds one.
const AdminShipping = "/admin/shipping"

// AdminShippingZone is a zone's form; POST changes it.
func AdminShippingZone(id string) string { return under(AdminShipping, id) }

// AdminShippingZoneDelete removes a zone (POST).
func AdminShippingZoneDelete(id string) string { return under(AdminShipping, id, "delete") }

// AdminWebhookEnable enables a disabled endpoint (POST).
func AdminWebhookEnable(owner, id string) string { return under(AdminWebhooks, owner, id, "enable") }

// AdminWebhookResend sends one event to the endpoint again (POST).
func AdminWebhookResend(owner, id, event string) string {
	return under(AdminWebhooks, owner, id, "deliveries", event, "resend")
}
