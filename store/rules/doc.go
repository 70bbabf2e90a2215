// Package rules is the shop's rules that need no table: what an amount is
// and how it is written (Money, the currencies), the VAT in a price, the
// countries a parcel goes to, the billing calendar and what a share of a
// period costs, how an order's total is paid (the tender), and the ids.
// It holds the stock allocation too (allocate.go: which warehouses fill an
// order's lines, Allocate and AllocateAtMost, and where a product drop's
// units are set aside and given back), and the subscription rules that
// are arithmetic of values: a discount code's terms and a subscription's
// Coupon (coupon.go), a free trial's first charge (trial.go), the money of
// a swap now (swap.go), and the limits of a quantity and a pause with the
// payment after one (subscription.go). It answers in plain values (a
// Shortage, not the store's refusal): the store words them.
//
// It is named for what it holds, the rules every part of the shop agrees
// on: the store applies them when it writes, and the pages and messages
// (views/lang) show amounts and dates by them, without importing the store.
// It imports only the standard library and nothing of the shop, so anything
// may import it and it stays quick to test: its tests are table-driven and
// fuzzed, with no DynamoDB.
package rules
