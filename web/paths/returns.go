package paths

// Returns: the customer asks from the order's page; staff work through
// them under /admin/returns and on each return's page under its order.

// AdminReturns lists the returns in a status (?status=, default requested).
const AdminReturns = "/admin/returns"

// The patterns of the returns' routes, each filled by the builder of its
// name.
const (
	OrderReturnsPattern       = "/orders/:id/returns"
	AdminReturnPattern        = "/admin/orders/:id/returns/:rid"
	AdminReturnReceivePattern = "/admin/orders/:id/returns/:rid/receive"
	AdminReturnInspectPattern = "/admin/orders/:id/returns/:rid/inspect"
	AdminReturnRefundPattern  = "/admin/orders/:id/returns/:rid/refund"
	OrderReturnSlipPattern    = "/orders/:id/returns/:rid/slip"
)

// OrderReturns asks to return lines of an order (POST).
func OrderReturns(orderID string) string { return fill(OrderReturnsPattern, orderID) }

// AdminReturnsIn lists the returns in one status.
func AdminReturnsIn(status string) string { return WithQuery(AdminReturns, "status", status) }

// AdminReturn is a return's page for staff.
func AdminReturn(orderID, returnID string) string {
	return fill(AdminReturnPattern, orderID, returnID)
}

// AdminReturnReceive marks a return received (POST).
func AdminReturnReceive(orderID, returnID string) string {
	return fill(AdminReturnReceivePattern, orderID, returnID)
}

// AdminReturnInspect records the verdict on each line (POST).
func AdminReturnInspect(orderID, returnID string) string {
	return fill(AdminReturnInspectPattern, orderID, returnID)
}

// AdminReturnRefund refunds the accepted lines (POST).
func AdminReturnRefund(orderID, returnID string) string {
	return fill(AdminReturnRefundPattern, orderID, returnID)
}

// OrderReturnSlip is the printable slip a customer puts in the return's
// parcel.
func OrderReturnSlip(orderID, returnID string) string {
	return fill(OrderReturnSlipPattern, orderID, returnID)
}
