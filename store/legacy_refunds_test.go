package store_test

import (
	"shop/store"
	"shop/store/payment"
)

// legacy makes card refunds through the legacy test gateway (or a stand-in
// for its refund): the charges these tests make are its (ch_…), as the
// records of tables from before the test provider are.
func legacy(g payment.LegacyRefunder) store.Refunder { return payment.CardRefunds{Legacy: g} }
