package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Key builders: the one place key formats live. They follow the AWS
// NoSQL Workbench models of the online shop and recurring payments guides.
const (
	prefixCustomer  = "c#"
	prefixProduct   = "p#"
	prefixWarehouse = "w#"
	prefixEmail     = "email#"
	prefixSession   = "session#"
	prefixCategory  = "cat#"
	prefixLimit     = "limit#"
	prefixOrder     = "o#"
	prefixOrderNo   = "ordno#" // an order number, taken
	prefixInvoice   = "i#"
	prefixShipment  = "sh#"
	prefixShipItem  = "shp#"
	prefixShipNo    = "shno#" // a shipment number, taken
	prefixCart      = "cart#"
	prefixVisitor   = "v#"
	prefixGiftCard  = "gc#"
	prefixDiscount  = "dc#"
	prefixIdem      = "idem#"
	prefixAdjust    = "adj#"
	prefixRefund    = "rf#"     // an order's refund, by its form's key, under o#id
	prefixOrdersOf  = "orders#" // GSI1 partitions of a month's orders: orders#YYYY-MM#shard
	infixDrop       = "#drop#"  // an order line bought with a drop's ticket

	// A series' counter of invoice or receipt numbers: books#kind#[series#]year.
	prefixBooks  = "books#"
	sortKeyBooks = "counter"

	// sortsLast closes a key range: it sorts after every timestamp and id.
	sortsLast = "~"

	// Recurring payments, as in the AWS guide's model.
	prefixAccount      = "ACC#"
	prefixSubscription = "SUB#"
	prefixReceipt      = "REC#"
	infixSKU           = "#SKU#"
	prefixPeriod       = "PERIOD#"   // a subscription's paid period, written once
	prefixSubsByStatus = "subs#"     // GSI1 partition of the subscriptions in a status
	prefixReminderDue  = "REM#"      // RemindersDue shard
	prefixPaymentDue   = "PAY#"      // PaymentsDue shard
	prefixGateway      = "gw#"       // the test gateway's ledger, by idempotency key
	prefixGatewayCard  = "gwcard#"   // the test gateway's cards, by token
	prefixGatewayID    = "gwcharge#" // GSI1: a ledger charge by its id
	prefixMarker       = "marker#"   // a one-time step done, under partitionMeta
	prefixRoleChange   = "role#"     // a change of an account's role or state, under its c#id
	prefixTrialTaken   = "trial#"    // a product's free trial taken, under the customer's c#id: once each
	prefixSwapWait     = "SWAPWAIT#" // a swap now whose charge waits on the bank, under ACC#, by the payment's key
	infixSessions      = "#sessions" // GSI1: a customer's signed-in sessions
	// Limited drops, as in the first-come-first-served design.
	prefixDrop           = "subject#"
	sortKeyDropInfo      = "info"
	prefixDropCounter    = "counter#"
	infixTickets         = "#ticket"
	infixClaims          = "#claims" // GSI1: a drop's tickets in claim order
	prefixClient         = "client#"
	prefixTicketDated    = "t#"           // GSI2 sort key of a customer's tickets
	prefixAPIKey         = "apikey#"      // an API key by the SHA-256 of its secret
	prefixIntegration    = "integration#" // a system using the API, by its name (taken forever)
	prefixAPIIdempotency = "apiidem#"     // an Idempotency-Key of the API, apiidem#<API key id>#<key> (24 h)
	prefixMail           = "mail#"
	prefixAccountLink    = "link#" // a mailed account link by the SHA-256 of its secret
	prefixLease          = "lease#"
	prefixRuns           = "runs#"    // a job's runs, newest last
	prefixRunFailures    = "runfail#" // a run's failures
	sortKeyCharge        = "charge"
	sortKeyRefund        = "refund" // under gw#<key>: the test gateway's refund of that key
	sortKeyCard          = "card"
	sortKeyCart          = "cart"       // the one item of a cart (its lines in a map)
	sortKeyAddresses     = "addresses"  // under c#id: the customer's saved addresses, in a map
	finderNameKey        = "find#name"  // a customer's finder item by name, under c#id
	finderEmailKey       = "find#email" // and by email
	sortKeyBillingShards = "billing-shards"
	sortKeyCurrency      = "currency" // under partitionMeta: the currency the shop prices in (currency.go)
	sortKeyListShards    = "list-shards"
	sortKeyOwners        = "owners" // under partitionMeta: how many active owners there are

	// Staff's subscription settings under partitionMeta, and a product's
	// scheduled monthly price under its p#id.
	sortKeySubSettings = "settings#subscriptions"
	// The seller's legal name, address and VAT number under partitionMeta,
	// printed on every invoice, receipt and credit note (seller.go).
	sortKeySellerSettings = "settings#seller"
	sortKeyPriceChange    = "pricechange"

	// A product drop's entry in the list of drops to close (its unclaimed
	// stock goes back then), and the sort keys of drops by closing time.
	sortKeyDropClosing = "closing"
	prefixCloses       = "closes#"

	// Partitions of small lists the UI needs (see docs/access-patterns.md).
	partitionCategories     = "categories"
	partitionWarehouses     = "warehouses"
	partitionCatalogue      = "catalogue"
	partitionMeta           = "meta"
	partitionCustomers      = "customers"
	partitionCustomerFinder = "customer-finder" // GSI1: customers by folded name and email (customer_find.go)
	partitionGiftCards      = "giftcards"
	partitionDiscounts      = "discounts"
	partitionIntents        = "payment-intents"    // GSI2: open payment intents, oldest first
	partitionSubscribes     = "subscribes-pending" // GSI2: subscribes waiting on their first payment, oldest first
	partitionPublishedDrops = "drops"              // GSI1: drops on /drops, by closing time
	partitionDrops          = "drops-all"          // GSI2: every drop, newest first
	partitionDropsToClose   = "drops-closing"      // GSI2: product drops not closed yet, by closing time (sparse)
	partitionAPIKeys        = "apikeys"            // GSI1: API keys and their integrations, newest first
	prefixIntegrationDrops  = "drops-of#"          // GSI1: an integration's drops, newest first (drops-of#<name>)
	partitionOutbox         = "outbox"             // GSI1: every mail, newest first
	partitionMailQueue      = "mail-pending"       // GSI2: mails waiting for delivery
	partitionWebhooksDue    = "webhooks-due"       // GSI2: webhook events with a delivery waiting, by when it is due (sparse)
	partitionPriceChanges   = "price-changes"      // GSI1: scheduled price changes, by the day they apply
	partitionShipping       = "shipping"           // the shipping zones, zone#id each (shipping_zones.go)
	prefixZone              = "zone#"

	// Webhooks (webhook.go, webhook_event.go): an integration's endpoints
	// under its integration#name, the events written with their change,
	// and each delivery attempt under its event.
	prefixWebhook        = "hook#"
	prefixWebhookEvent   = "whevent#"
	sortKeyWebhookEvent  = "event"
	prefixWebhookAttempt = "attempt#"
	// Staff's endpoints (webhook_staff.go), staff-hooks / hook#id, and the
	// shop events carrying a customer's data, in GSI1 by customer
	// (whevents-of#<customer>), for the privacy export and erasure.
	partitionStaffWebhooks = "staff-hooks"
	prefixCustomerEvents   = "whevents-of#"
	infixAttempts          = "#attempts" // GSI1: an endpoint's attempts, in time order

	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1-PK"
	attrGSI1SK = "GSI1-SK"
	attrGSI2PK = "GSI2-PK"
	attrGSI2SK = "GSI2-SK"
	attrTTL    = "ExpiresAt"

	indexGSI1 = "GSI1"
	indexGSI2 = "GSI2"
)

// Entity types, stored in EntityType on every item.
const (
	entityCustomer       = "customer"
	entityCustomerFinder = "customerFinder"
	entityEmail          = "email"
	entityProduct        = "product"
	entityCategory       = "category"
	entityWarehouse      = "warehouse"
	entityWarehouseItem  = "warehouseItem"
	entitySession        = "session"
	entityLimit          = "limit"
	entityMeta           = "meta"
	entityOrder          = "order"
	entityDayTotals      = "day-totals"
	entitySubTotals      = "subscription-totals"
	entityOrderNumber    = "orderNumber"
	entityOrderItem      = "orderItem"
	entityInvoice        = "invoice"
	entityRefund         = "orderRefund"
	entityShipment       = "shipment"
	entityShipmentItem   = "shipmentItem"
	entityShipmentNumber = "shipmentNumber"
	entityCart           = "cart"
	entityCartLine       = "cartLine" // a cart line of the old shape, one item per line (read to migrate)
	entityGiftCard       = "giftCard"
	entityDiscount       = "discountCode"
	entityIdempotency    = "idempotency"
	entityAdjustment     = "stockAdjustment"
	entitySubscription   = "subscription"
	entityTrialTaken     = "trialTaken"
	entitySwapWait       = "swapWaiting"
	entityReceipt        = "receipt"
	entityPeriod         = "paidPeriod"
	entitySettings       = "settings"
	entityPriceChange    = "priceChange"
	entityGatewayCharge  = "gatewayCharge"
	entityGatewayCard    = "gatewayCard"
	entityGatewayRefund  = "gatewayRefund"
	entityMail           = "mail"
	entityWebhook        = "webhookEndpoint"
	entityWebhookEvent   = "webhookEvent"
	entityWebhookAttempt = "webhookAttempt"
	entityDrop           = "drop"
	entityDropCounter    = "dropCounter"
	entityDropClosing    = "dropClosing"
	entityAPIIdempotency = "apiIdempotencyKey"
	entityTicket         = "ticket"
	entityAPIKey         = "apiKey"
	entityIntegration    = "integration"
	entityLease          = "lease"
	entityJobRun         = "jobRun"
	entityRunFailure     = "runFailure"
	entityRoleChange     = "roleChange"
	entityAddressBook    = "addressBook"
	entityAccountLink    = "accountLink"
	entityBookCounter    = "bookCounter"
	entityShippingZone   = "shippingZone"
)

func customerKey(id string) string  { return prefixCustomer + id }
func productKey(id string) string   { return prefixProduct + id }
func warehouseKey(id string) string { return prefixWarehouse + id }
func categoryKey(slug string) string {
	return prefixCategory + slug
}
func sessionKey(id string) string { return prefixSession + id }

// customerSessionsKey is the GSI1 partition of a customer's signed-in
// sessions.
func customerSessionsKey(customerID string) string { return customerKey(customerID) + infixSessions }

// roleChangeKey sorts an account's role changes by time, the id keeping
// equal times apart.
func roleChangeKey(at time.Time, id string) string { return prefixRoleChange + createdKey(at, id) }

// emailKey is the uniqueness item of a sign-in address; addresses compare
// case-insensitively.
func emailKey(email string) string { return prefixEmail + NormalizeEmail(email) }

// catalogueSortKey orders products by name, then id so equal names stay apart.
func catalogueSortKey(name, id string) string {
	return prefixProduct + strings.ToLower(name) + "#" + id
}

func limitKey(scope, subject string) string { return prefixLimit + scope + "#" + subject }

// limitWindowKey is the sort key of a rate limit's window: its start in
// Unix seconds.
func limitWindowKey(start time.Time) string { return strconv.FormatInt(start.Unix(), 10) }

// finderIndexKey is a finder's GSI1 sort key: the folded text, then the
// id so equal texts stay apart.
func finderIndexKey(text, id string) string { return text + "#" + id }

// markerKey is the sort key of a one-time step's marker.
func markerKey(name string) string { return prefixMarker + name }

func orderKey(id string) string        { return prefixOrder + id }
func invoiceKey(id string) string      { return prefixInvoice + id }
func shipmentKey(id string) string     { return prefixShipment + id }
func shipmentItemKey(id string) string { return prefixShipItem + id }
func giftCardKey(code string) string   { return prefixGiftCard + code }
func discountKey(code string) string   { return prefixDiscount + code }
func idempotencyKey(k string) string   { return prefixIdem + k }
func refundKey(key string) string      { return prefixRefund + key }

// accountKey is the partition of a customer's subscriptions and receipts.
func accountKey(customerID string) string { return prefixAccount + customerID }

// subscriptionSortKey is SUB#<id>#SKU#<product id>, as in the AWS model.
func subscriptionSortKey(id, productID string) string {
	return prefixSubscription + id + infixSKU + productID
}

// subscriptionIDPrefix finds a subscription by id alone (begins_with).
func subscriptionIDPrefix(id string) string { return prefixSubscription + id + infixSKU }

// receiptSortKey is REC#<processed at>#SKU#<product id>: receipts sort by
// the time the charge was made.
func receiptSortKey(processedAt time.Time, productID string) string {
	return prefixReceipt + timestamp(processedAt) + infixSKU + productID
}

// receiptRange is the key range of receipts processed from `from` on.
func receiptRange(from time.Time) (string, string) { return sinceRange(prefixReceipt, from) }

// receiptAtPrefix finds the receipts processed at one instant (begins_with).
func receiptAtPrefix(at time.Time) string { return prefixReceipt + timestamp(at) + infixSKU }

// receiptSKU is the product of a receipt's sort key, "" if it names none.
func receiptSKU(sk string) string {
	if i := strings.LastIndex(sk, infixSKU); i >= 0 {
		return sk[i+len(infixSKU):]
	}
	return ""
}

// subscriptionKeys reads ACC#<account> / SUB#<id>#SKU#<product>.
func subscriptionKeys(pk, sk string) (account, id, sku string, ok bool) {
	account = trimPrefix(pk, prefixAccount)
	id, sku, ok = strings.Cut(trimPrefix(sk, prefixSubscription), infixSKU)
	return account, id, sku, ok && ValidID(account) && ValidID(id) && ValidID(sku)
}

// subscribeKey is the idempotency key of a subscribe form's submission,
// also the gateway's key of its first charge.
func subscribeKey(customerID, formKey string) string { return "sub-" + customerID + "-" + formKey }

// trialTakenKey is the sort key, under the customer's c#id, of the marker
// that they took a product's free trial: written on condition it does not
// exist, it gives each customer one trial of a product.
func trialTakenKey(productID string) string { return prefixTrialTaken + productID }

// swapWaitKey is the sort key, under the customer's ACC#, of a swap now
// whose charge (paymentKey) waits for the card holder at the bank.
func swapWaitKey(paymentKey string) string { return prefixSwapWait + paymentKey }

// subscriptionChargeKey is the gateway's idempotency key of one charge of
// a subscription: its period and attempt.
func subscriptionChargeKey(subscriptionID string, period time.Time, attempt int) string {
	return fmt.Sprintf("sub-%s-%s-a%d", subscriptionID, FormatDate(period), attempt)
}

// periodKey marks one paid period of a subscription: written on condition
// it does not exist, it makes a second receipt for a period impossible.
func periodKey(subscriptionID string, periodStart time.Time) string {
	return prefixPeriod + subscriptionID + "#" + FormatDate(periodStart)
}

func subscriptionsByStatusKey(st SubscriptionStatus) string { return prefixSubsByStatus + string(st) }

// dueShardKey is the partition of one shard of a billing-due index.
func dueShardKey(prefix string, shard int) string { return fmt.Sprintf("%s%d", prefix, shard) }

// dueSortKey sorts a billing-due index by date, the id keeping equal dates
// apart; dueUpTo is the upper bound of "due on or before day".
func dueSortKey(day time.Time, subscriptionID string) string {
	return FormatDate(day) + "#" + subscriptionID
}
func dueUpTo(day time.Time) string { return FormatDate(day) + "#" + sortsLast }

// shardOf spreads subscriptions over n shards by a hash of their id.
func shardOf(id string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

func mailKey(id string) string { return prefixMail + id }

// webhookKey is the sort key of an endpoint under its integration's
// integration#name: one Query lists an integration's endpoints.
func webhookKey(id string) string { return prefixWebhook + id }

// webhookEventKey is an event's partition (its sort key is "event"; its
// attempts sit beside it).
func webhookEventKey(id string) string { return prefixWebhookEvent + id }

// customerEventsKey lists the shop events carrying a customer's data (GSI1).
func customerEventsKey(customerID string) string { return prefixCustomerEvents + customerID }

// webhookAttemptKey sorts an event's attempts by endpoint, then time.
func webhookAttemptKey(endpoint string, at time.Time) string {
	return prefixWebhookAttempt + endpoint + "#" + timestamp(at)
}

// webhookAttemptsKey is the GSI1 partition of an endpoint's attempts.
func webhookAttemptsKey(endpoint string) string { return webhookKey(endpoint) + infixAttempts }

// accountLinkKey keys a mailed link by the hash of its secret: what the
// table holds cannot be clicked.
func accountLinkKey(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return prefixAccountLink + hex.EncodeToString(h[:])
}

func dropKey(id string) string    { return prefixDrop + id }
func dropCounterKey(n int) string { return fmt.Sprintf("%s%03d", prefixDropCounter, n) }

// closesKey sorts drops by when they close, the id keeping equal times
// apart; closedBy(t) sorts after every drop closing at or before t, so
// "closes after t" and "closed by t" are key conditions, not filters.
func closesKey(t time.Time, id string) string { return prefixCloses + createdKey(t, id) }
func closedBy(t time.Time) string             { return prefixCloses + timestamp(t) + "#" + sortsLast }

// dropCounterOf is the number of a counter's sort key (counter#<n>).
func dropCounterOf(sk string) (int, bool) {
	n, err := strconv.Atoi(trimPrefix(sk, prefixDropCounter))
	return n, err == nil && strings.HasPrefix(sk, prefixDropCounter)
}
func ticketPartition(id string) string { return prefixDrop + id + infixTickets }
func ticketSortKey(client string) string {
	return prefixClient + client
}
func dropClaimsKey(id string) string    { return prefixDrop + id + infixClaims }
func ticketDatedKey(t time.Time) string { return prefixTicketDated + timestamp(t) }
func apiKeyKey(hash string) string      { return prefixAPIKey + hash }
func integrationKey(name string) string { return prefixIntegration + name }
func integrationDropsKey(name string) string {
	return prefixIntegrationDrops + name
}
func apiIdempotencyKey(scope, key string) string { return prefixAPIIdempotency + scope + "#" + key }

// leaseKey is the lease of one job's tick: a job and the date it processes.
func leaseKey(job string, day time.Time) string { return prefixLease + job + "#" + FormatDate(day) }

func runsKey(job string) string          { return prefixRuns + job }
func runFailuresKey(runID string) string { return prefixRunFailures + runID }

// shippingZoneKey is a shipping zone's sort key under partitionShipping.
func shippingZoneKey(id string) string { return prefixZone + id }
