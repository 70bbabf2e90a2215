package handlers

import (
	"context"

	"shop/store"
)

// CardRefunds makes a refund's card part at the provider that took the
// payment, the one the record names (store/payment's CardRefunds): what
// the refund, cancellation, return and retry handlers hand the store.
type CardRefunds interface {
	RefundCard(ctx context.Context, r store.CardRefund) (store.CardRefundAnswer, error)
}
