package paths

// The JSON API for other systems, described in web/openapi.json.
const (
	APIOpenAPI  = "/api/v1/openapi.json"
	APIDrops    = "/api/v1/drops"    // POST creates one, GET lists the key's
	APIWebhooks = "/api/v1/webhooks" // POST registers one, GET lists them
)

// The patterns of the API's routes with a parameter, each filled by the
// builder of its name.
const (
	APIWebhookPattern           = "/api/v1/webhooks/:id"
	APIWebhookEnablePattern     = "/api/v1/webhooks/:id/enable"
	APIWebhookDeliveriesPattern = "/api/v1/webhooks/:id/deliveries"
	APIWebhookResendPattern     = "/api/v1/webhooks/:id/deliveries/:event/resend"
	APIDropPattern              = "/api/v1/drops/:id"
	APIDropClaimsPattern        = "/api/v1/drops/:id/claims"
	APIDropTicketsPattern       = "/api/v1/drops/:id/tickets"
	APIDropTicketPattern        = "/api/v1/drops/:id/tickets/:client"
	APIDropClosePattern         = "/api/v1/drops/:id/close"
	APIDropCancelPattern        = "/api/v1/drops/:id/cancel"
)

// APIWebhook is one webhook endpoint (DELETE removes it).
func APIWebhook(id string) string { return fill(APIWebhookPattern, id) }

// APIWebhookEnable enables a disabled endpoint (POST).
func APIWebhookEnable(id string) string { return fill(APIWebhookEnablePattern, id) }

// APIWebhookDeliveries are an endpoint's delivery attempts (GET).
func APIWebhookDeliveries(id string) string { return fill(APIWebhookDeliveriesPattern, id) }

// APIWebhookResend sends an event (evt_…) to an endpoint again (POST).
func APIWebhookResend(id, event string) string {
	return fill(APIWebhookResendPattern, id, event)
}

// APIDrop is a drop as JSON.
func APIDrop(id string) string { return fill(APIDropPattern, id) }

// APIDropClaims claims a drop's ticket for a client (POST).
func APIDropClaims(id string) string { return fill(APIDropClaimsPattern, id) }

// APIDropTickets is the tickets claimed of a drop.
func APIDropTickets(id string) string { return fill(APIDropTicketsPattern, id) }

// APIDropTicket is one client's ticket of a drop (DELETE releases it).
func APIDropTicket(id, client string) string { return fill(APIDropTicketPattern, id, client) }

// APIDropClose closes a drop now (POST).
func APIDropClose(id string) string { return fill(APIDropClosePattern, id) }

// APIDropCancel cancels a drop and voids its tickets (POST).
func APIDropCancel(id string) string { return fill(APIDropCancelPattern, id) }
