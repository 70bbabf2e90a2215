package store

// The test provider's records (testpay.go): each by its id, its
// idempotency keys apart (gwkey#<key>, the sort key saying what the key
// made), its secret under partitionMeta, and what is due (events to
// deliver, open sessions to expire) in the sharded GSI2 list
// testpay-due#n, by when it is due.
const (
	prefixTestPaySession  = "gwsession#"
	prefixTestPayIntent   = "gwintent#"
	prefixTestPayRefund   = "gwrefund#"
	prefixTestPayCustomer = "gwcustomer#"
	prefixTestPayMethod   = "gwmethod#"
	prefixTestPayEvent    = "gwevent#"
	prefixTestPayKey      = "gwkey#"
	listTestPayDue        = "testpay-due"
	sortKeyTestPaySecret  = "testpay-secret"
	sortKeySession        = "session"
	sortKeyIntent         = "intent"
	sortKeyCustomer       = "customer"
	sortKeyMethod         = "method"
	sortKeyEvent          = "event"
	entityTestPaySession  = "testPaySession"
	entityTestPayIntent   = "testPayIntent"
	entityTestPayRefund   = "testPayRefund"
	entityTestPayCustomer = "testPayCustomer"
	entityTestPayMethod   = "testPayMethod"
	entityTestPayEvent    = "testPayEvent"
	entityTestPayKey      = "testPayKey"
)

func testPaySessionKey(id string) string  { return prefixTestPaySession + id }
func testPayIntentKey(id string) string   { return prefixTestPayIntent + id }
func testPayRefundKey(id string) string   { return prefixTestPayRefund + id }
func testPayCustomerKey(id string) string { return prefixTestPayCustomer + id }
func testPayMethodKey(id string) string   { return prefixTestPayMethod + id }
func testPayEventKey(id string) string    { return prefixTestPayEvent + id }

// testPayIdemKey is the item of an idempotency key the test provider was
// given; its sort key (sortKeySession, sortKeyIntent, sortKeyRefund,
// sortKeyCustomer) keeps one key's uses by kind apart.
func testPayIdemKey(key string) string { return prefixTestPayKey + key }

// testPayDueKey is the shard of the test provider's due list an id falls in.
func testPayDueKey(id string, shards int) string {
	return shardKey(listTestPayDue, shardOf(id, shards))
}

func gatewayChargeKey(idempotencyKey string) string { return prefixGateway + idempotencyKey }
func gatewayCardKey(token string) string            { return prefixGatewayCard + token }
func gatewayIDKey(chargeID string) string           { return prefixGatewayID + chargeID }
