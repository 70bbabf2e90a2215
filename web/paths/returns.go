package paths

// Returns: the customer asks from the order's page; staff work through
// them under /admin/returns and on each return's page under its order.

// AdminReturns lists the returns in a status (?status=, default requested).
const AdminReturns = "/admin/returns"

// OrderReturns asks to return lines of an order (POST).
func OrderReturns(orderID string) string { return under(Orders, orderID, "returns") }

// AdminReturnsIn lists the returns in one status.
func AdminReturnsIn(status string) string { return WithQuery(AdminReturns, "status", status) }

// AdminReturn is a return's page for staff.
func AdminReturn(orderID, returnID string) string {
	return under(AdminOrders, orderID, "returns", returnID)
}

// AdminReturnReceive marks a return received (POST).
func AdminReturnReceive(orderID, returnID string) string {
	return under(AdminOrders, orderID, "returns", returnID, "receive")
}

// AdminReturnInspect records the verdict on each line (POST).
func AdminReturnInspect(orderID, returnID string) string {
	return under(AdminOrders, orderID, "returns", returnID, "inspect")
}

// AdminReturnRefund refunds the accepted lines (POST).
func AdminReturnRefund(orderID, returnID string) string {
	return under(AdminOrders, orderID, "returns", returnID, "refund")
}

// OrderReturnSlip is the printable slip a customer puts in the return's
// parcel.
func OrderReturnSlip(orderID, returnID string) string {
	return under(Orders, orderID, "returns", returnID, "slip")
}
