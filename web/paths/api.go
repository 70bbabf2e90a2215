package paths

// The JSON API for other systems, described in web/openapi.json.
const (
	APIOpenAPI  = "/api/v1/openapi.json"
	APIDrops    = "/api/v1/drops"    // POST creates one
	APIWebhooks = "/api/v1/webhooks" // POST registers one, GET lists them
)

// APIWebhook is one webhook endpoint (DELETE removes it).
func APIWebhook(id string) string { return under(APIWebhooks, id) }

// APIDrop is a drop as JSON.
func APIDrop(id string) string { return under(APIDrops, id) }

// APIDropClaims claims a drop's ticket for a client (POST).
func APIDropClaims(id string) string { return under(APIDrops, id, "claims") }

// APIDropTickets is the tickets claimed of a drop.
func APIDropTickets(id string) string { return under(APIDrops, id, "tickets") }
