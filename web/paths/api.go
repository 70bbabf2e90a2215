package paths

// The JSON API for other systems, described in web/openapi.json.
const (
	APIOpenAPI  = "/api/v1/openapi.json"
	APIDrops    = "/api/v1/drops"    // POST creates one, GET lists the key's
	APIWebhooks = "/api/v1/webhooks" // POST registers one, GET lists them
)

// APIWebhook is one webhook endpoint (DELETE removes it).
func APIWebhook(id string) string { return under(APIWebhooks, id) }

// APIWebhookEnable enables a disabled endpoint (POST).
func APIWebhookEnable(id string) string { return under(APIWebhooks, id, "enable") }

// APIWebhookDeliveries are an endpoint's delivery attempts (GET).
func APIWebhookDeliveries(id string) string { return under(APIWebhooks, id, "deliveries") }

// APIWebhookResend sends an event (evt_…) to an endpoint again (POST).
func APIWebhookResend(id, event string) string {
	return under(APIWebhooks, id, "deliveries", event, "resend")
}

// APIDrop is a drop as JSON.
func APIDrop(id string) string { return under(APIDrops, id) }

// APIDropClaims claims a drop's ticket for a client (POST).
func APIDropClaims(id string) string { return under(APIDrops, id, "claims") }

// APIDropTickets is the tickets claimed of a drop.
func APIDropTickets(id string) string { return under(APIDrops, id, "tickets") }

// APIDropTicket is one client's ticket of a drop (DELETE releases it).
func APIDropTicket(id, client string) string { return under(APIDrops, id, "tickets", client) }

// APIDropClose closes a drop now (POST).
func APIDropClose(id string) string { return under(APIDrops, id, "close") }

// APIDropCancel cancels a drop and voids its tickets (POST).
func APIDropCancel(id string) string { return under(APIDrops, id, "cancel") }
