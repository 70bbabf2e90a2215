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

// The patterns of the console's routes with a parameter (and of the
// orders' CSV, which its builder adds a query to), each filled by the
// builder of its name: AdminOrder fills AdminOrderPattern.
const (
	AdminArchiveFilePattern          = "/admin/archive/:month/:file"
	AdminWarehousePattern            = "/admin/warehouses/:id"
	AdminWarehouseShipmentsPattern   = "/admin/warehouses/:id/shipments"
	AdminWarehouseAdjustmentsPattern = "/admin/warehouses/:id/adjustments"
	AdminWarehouseStockPattern       = "/admin/warehouses/:id/stock"
	AdminProductPattern              = "/admin/products/:id"
	AdminOrdersCSVPattern            = "/admin/orders.csv"
	AdminOrderPattern                = "/admin/orders/:id"
	AdminOrderShipmentsPattern       = "/admin/orders/:id/shipments"
	AdminOrderRefundsPattern         = "/admin/orders/:id/refunds"
	AdminOrderRefundRetryPattern     = "/admin/orders/:id/refunds/:key/retry"
	AdminOrderAllocatePattern        = "/admin/orders/:id/allocate"
	AdminOrderShipmentPattern        = "/admin/orders/:id/shipments/:sid"
	AdminOrderShipmentUndoPattern    = "/admin/orders/:id/shipments/:sid/undo"
	AdminPackingSlipPattern          = "/admin/orders/:id/shipments/:sid/slip"
	AdminCustomerPattern             = "/admin/customers/:id"
	AdminCustomerRolePattern         = "/admin/customers/:id/role"
	AdminCustomerDeactivatePattern   = "/admin/customers/:id/deactivate"
	AdminCustomerReactivatePattern   = "/admin/customers/:id/reactivate"
	AdminCustomerReceiptPattern      = "/admin/customers/:id/receipts/:number"
	AdminReceiptRefundPattern        = "/admin/customers/:id/receipts/:number/refund"
	AdminInvoicePattern              = "/admin/invoices/:id"
	AdminCreditNotePDFPattern        = "/admin/orders/:id/refunds/:key/credit-note.pdf"
	AdminInvoicePDFPattern           = "/admin/invoices/:id/invoice.pdf"
	AdminReceiptPDFPattern           = "/admin/customers/:id/receipts/:number/receipt.pdf"
	AdminReceiptCreditNotePDFPattern = "/admin/customers/:id/receipts/:number/credit-notes/:note/credit-note.pdf"
	AdminShipmentPattern             = "/admin/shipments/:id"
	AdminAPIKeyRevokePattern         = "/admin/api-keys/:id/revoke"
	AdminAPIKeyRotatePattern         = "/admin/api-keys/:id/rotate"
	AdminIntegrationKeysPattern      = "/admin/api-keys/integrations/:name/keys"
	AdminIntegrationRevokePattern    = "/admin/api-keys/integrations/:name/revoke"
	AdminWebhookPattern              = "/admin/webhooks/:owner/:id"
	AdminWebhookDeletePattern        = "/admin/webhooks/:owner/:id/delete"
	AdminDropPattern                 = "/admin/drops/:id"
	AdminDropLivePattern             = "/admin/drops/:id/live"
	AdminDropTicketsCSVPattern       = "/admin/drops/:id/tickets.csv"
	AdminDropTicketReleasePattern    = "/admin/drops/:id/tickets/:client/release"
	AdminDropClosePattern            = "/admin/drops/:id/close"
	AdminDropCancelPattern           = "/admin/drops/:id/cancel"
	AdminDropDescriptionPattern      = "/admin/drops/:id/description"
	AdminDropPhotoPattern            = "/admin/drops/:id/photo"
	AdminJobRunNowPattern            = "/admin/jobs/:job/run"
	AdminJobRunsPattern              = "/admin/jobs/:job/runs"
	AdminJobRunPattern               = "/admin/jobs/:job/runs/:id"
	AdminJobRunProgressPattern       = "/admin/jobs/:job/runs/:id/progress"
	AdminMailPattern                 = "/admin/outbox/:id"
	AdminDashboardBlockPattern       = "/admin/dashboard/:block"
	AdminProductLowStockPattern      = "/admin/products/:id/low-stock"
	AdminShippingZonePattern         = "/admin/shipping/:id"
	AdminShippingZoneDeletePattern   = "/admin/shipping/:id/delete"
	AdminWebhookEnablePattern        = "/admin/webhooks/:owner/:id/enable"
	AdminWebhookResendPattern        = "/admin/webhooks/:owner/:id/deliveries/:event/resend"
)

// AdminArchiveFile is one archived month's file of a section, like
// /admin/archive/2026-05/receipts.csv.
func AdminArchiveFile(month, section, format string) string {
	return fill(AdminArchiveFilePattern, month, section+"."+format)
}

// AdminWarehouse is a warehouse's inventory.
func AdminWarehouse(id string) string { return fill(AdminWarehousePattern, id) }

// AdminWarehouseShipments is the shipments leaving a warehouse.
func AdminWarehouseShipments(id string) string { return fill(AdminWarehouseShipmentsPattern, id) }

// AdminWarehouseAdjustments is a warehouse's stock adjustments.
func AdminWarehouseAdjustments(id string) string { return fill(AdminWarehouseAdjustmentsPattern, id) }

// AdminWarehouseStock adjusts a product's stock in a warehouse (POST).
func AdminWarehouseStock(id string) string { return fill(AdminWarehouseStockPattern, id) }

// AdminProduct is a product's page for staff (GET) and its edit (POST).
func AdminProduct(id string) string { return fill(AdminProductPattern, id) }

// AdminOrdersCSV is the orders of the days from to to (included) as CSV,
// with the list's filters (name, value pairs: status, product, buyer).
func AdminOrdersCSV(from, to string, filters ...string) string {
	return WithQuery(AdminOrdersCSVPattern, append([]string{"from", from, "to", to}, filters...)...)
}

// AdminOrder is an order's page for staff.
func AdminOrder(id string) string { return fill(AdminOrderPattern, id) }

// AdminOrderShipments creates the shipments of an order (POST).
func AdminOrderShipments(orderID string) string { return fill(AdminOrderShipmentsPattern, orderID) }

// AdminOrderRefunds refunds an order (POST).
func AdminOrderRefunds(orderID string) string { return fill(AdminOrderRefundsPattern, orderID) }

// AdminOrderRefundRetry tries a refund's card part again (POST).
func AdminOrderRefundRetry(orderID, key string) string {
	return fill(AdminOrderRefundRetryPattern, orderID, key)
}

// AdminOrderAllocate allocates an order awaiting stock (POST).
func AdminOrderAllocate(orderID string) string { return fill(AdminOrderAllocatePattern, orderID) }

// AdminOrderShipment changes a shipment of an order one step (POST).
func AdminOrderShipment(orderID, shipmentID string) string {
	return fill(AdminOrderShipmentPattern, orderID, shipmentID)
}

// AdminOrderShipmentUndo undoes a shipment's last change (POST).
func AdminOrderShipmentUndo(orderID, shipmentID string) string {
	return fill(AdminOrderShipmentUndoPattern, orderID, shipmentID)
}

// AdminPackingSlip is a shipment's printable packing slip.
func AdminPackingSlip(orderID, shipmentID string) string {
	return fill(AdminPackingSlipPattern, orderID, shipmentID)
}

// AdminShipmentsIn lists every warehouse's shipments in a status.
func AdminShipmentsIn(status string) string { return WithQuery(AdminShipments, "status", status) }

// AdminCustomer is a customer's page for staff.
func AdminCustomer(id string) string { return fill(AdminCustomerPattern, id) }

// AdminCustomerRole gives a customer the role in the form (POST, owners).
func AdminCustomerRole(id string) string { return fill(AdminCustomerRolePattern, id) }

// AdminCustomerDeactivate stops an account from signing in (POST, owners).
func AdminCustomerDeactivate(id string) string { return fill(AdminCustomerDeactivatePattern, id) }

// AdminCustomerReactivate lets an account sign in again (POST, owners).
func AdminCustomerReactivate(id string) string { return fill(AdminCustomerReactivatePattern, id) }

// Staff's subscription settings (refund on cancelling now) and the
// products' scheduled price changes (GET shows, POST saves).
const (
	AdminSubscriptionSettings = "/admin/subscriptions/settings"
	AdminPriceChanges         = "/admin/subscriptions/prices"
)

// AdminCustomerReceipt is one of a customer's receipts for staff, with
// its refund.
func AdminCustomerReceipt(customerID, number string) string {
	return fill(AdminCustomerReceiptPattern, customerID, number)
}

// AdminReceiptRefund refunds a receipt (POST).
func AdminReceiptRefund(customerID, number string) string {
	return fill(AdminReceiptRefundPattern, customerID, number)
}

// AdminSubscriptionsIn lists the subscriptions in one status.
func AdminSubscriptionsIn(status string) string {
	return WithQuery(AdminSubscriptions, "status", status)
}

// AdminInvoice is an invoice with its payments.
func AdminInvoice(id string) string { return fill(AdminInvoicePattern, id) }

// AdminCreditNotePDF is the credit note of an order's refund.
func AdminCreditNotePDF(orderID, key string) string {
	return fill(AdminCreditNotePDFPattern, orderID, key)
}

// AdminInvoicePDF is the invoice as a PDF.
func AdminInvoicePDF(id string) string { return fill(AdminInvoicePDFPattern, id) }

// AdminReceiptPDF is a customer's receipt as a PDF.
func AdminReceiptPDF(customerID, number string) string {
	return fill(AdminReceiptPDFPattern, customerID, number)
}

// AdminReceiptCreditNotePDF is the credit note (by its number) of a
// customer's receipt's refund.
func AdminReceiptCreditNotePDF(customerID, number, note string) string {
	return fill(AdminReceiptCreditNotePDFPattern, customerID, number, note)
}

// AdminShipment is a shipment with its items.
func AdminShipment(id string) string { return fill(AdminShipmentPattern, id) }

// AdminAPIKeyRevoke asks to revoke an API key (GET) and revokes it (POST).
func AdminAPIKeyRevoke(id string) string { return fill(AdminAPIKeyRevokePattern, id) }

// AdminAPIKeyRotate asks to rotate an API key (GET) and replaces it with a
// new one (POST).
func AdminAPIKeyRotate(id string) string { return fill(AdminAPIKeyRotatePattern, id) }

// AdminIntegrationKeys issues another key of an integration (POST).
func AdminIntegrationKeys(name string) string {
	return fill(AdminIntegrationKeysPattern, name)
}

// AdminIntegrationRevoke asks to revoke an integration (GET) and revokes
// it (POST).
func AdminIntegrationRevoke(name string) string {
	return fill(AdminIntegrationRevokePattern, name)
}

// AdminWebhook is a webhook endpoint of owner (an integration's name, or
// store.StaffWebhooks) for staff.
func AdminWebhook(owner, id string) string { return fill(AdminWebhookPattern, owner, id) }

// AdminWebhookDelete asks to delete an endpoint (GET) and deletes it
// (POST).
func AdminWebhookDelete(owner, id string) string { return fill(AdminWebhookDeletePattern, owner, id) }

// AdminDrop is a drop's page for staff.
func AdminDrop(id string) string { return fill(AdminDropPattern, id) }

// AdminDropLive is a drop's live panel, which refreshes itself.
func AdminDropLive(id string) string { return fill(AdminDropLivePattern, id) }

// AdminDropTicketsCSV is the holders of a drop's tickets as CSV.
func AdminDropTicketsCSV(id string) string { return fill(AdminDropTicketsCSVPattern, id) }

// AdminDropTicketRelease asks before a holder's ticket is given back
// (GET), and gives it back (POST).
func AdminDropTicketRelease(id, client string) string {
	return fill(AdminDropTicketReleasePattern, id, client)
}

// AdminDropClose closes a drop early (POST).
func AdminDropClose(id string) string { return fill(AdminDropClosePattern, id) }

// AdminDropCancel cancels a drop (POST).
func AdminDropCancel(id string) string { return fill(AdminDropCancelPattern, id) }

// AdminDropDescription replaces what a drop says it gives (POST).
func AdminDropDescription(id string) string { return fill(AdminDropDescriptionPattern, id) }

// AdminDropPhoto takes a drop's photo (POST, multipart).
func AdminDropPhoto(id string) string { return fill(AdminDropPhotoPattern, id) }

// AdminJobRunNow starts a billing job now (POST).
func AdminJobRunNow(job string) string { return fill(AdminJobRunNowPattern, job) }

// AdminJobRuns is a billing job's runs.
func AdminJobRuns(job string) string { return fill(AdminJobRunsPattern, job) }

// AdminJobRun is one run of a billing job.
func AdminJobRun(job, runID string) string { return fill(AdminJobRunPattern, job, runID) }

// AdminJobRunProgress is a run's progress panel, polled while it runs.
func AdminJobRunProgress(job, runID string) string {
	return fill(AdminJobRunProgressPattern, job, runID)
}

// AdminMail is one mail of the outbox.
func AdminMail(id string) string { return fill(AdminMailPattern, id) }

// AdminDashboardBlock is one block of the console's home (sales, to-ship,
// low-stock, jobs, drops): a partial for htmx, a page of its own without.
func AdminDashboardBlock(name string) string { return fill(AdminDashboardBlockPattern, name) }

// AdminProductLowStock sets the level under which a product's stock is low
// (POST).
func AdminProductLowStock(id string) string { return fill(AdminProductLowStockPattern, id) }

// AdminShipping is the shipping zones and their rates; POST adds one.
const AdminShipping = "/admin/shipping"

// AdminShippingZone is a zone's form; POST changes it.
func AdminShippingZone(id string) string { return fill(AdminShippingZonePattern, id) }

// AdminShippingZoneDelete removes a zone (POST).
func AdminShippingZoneDelete(id string) string { return fill(AdminShippingZoneDeletePattern, id) }

// AdminWebhookEnable enables a disabled endpoint (POST).
func AdminWebhookEnable(owner, id string) string { return fill(AdminWebhookEnablePattern, owner, id) }

// AdminWebhookResend sends one event to the endpoint again (POST).
func AdminWebhookResend(owner, id, event string) string {
	return fill(AdminWebhookResendPattern, owner, id, event)
}
